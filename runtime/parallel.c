// gg_parallel_for (runtime/parallel.h): a shared counter hands out the iterations.
#include "runtime/parallel.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 64

typedef struct loop {
  size_t count, next;  // next: the next iteration to hand out, under lock
  void (*body)(void*, size_t);
  void* user;
  pthread_mutex_t lock;
} loop;

static void* worker(void* arg) {
  loop* l = arg;
  for (;;) {
    pthread_mutex_lock(&l->lock);
    size_t i = l->next++;
    pthread_mutex_unlock(&l->lock);
    if (i >= l->count) return NULL;
    l->body(l->user, i);
  }
}

void gg_parallel_for(size_t count, int threads, void (*body)(void* user, size_t i), void* user) {
  if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if ((size_t)threads > count) threads = count ? (int)count : 1;
  loop l = {count, 0, body, user, PTHREAD_MUTEX_INITIALIZER};
  pthread_t workers[MAX_THREADS];
  int started = 0;
  for (int t = 1; t < threads; ++t)
    if (pthread_create(&workers[started], NULL, worker, &l) == 0) ++started;
  worker(&l);
  for (int t = 0; t < started; ++t) pthread_join(workers[t], NULL);
}
