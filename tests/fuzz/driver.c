// The fuzz driver (fuzz.h): seeds, a deterministic mutator, and the run loop.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "runtime/clock.h"

typedef struct input {
  uint8_t* data;
  size_t size;
} input;

typedef struct list {
  input* items;
  size_t count, capacity;
} list;

static list seeds, tokens;
static int text_inputs;

void gg_fuzz_text_inputs(void) { text_inputs = 1; }

static void list_push(list* l, const void* data, size_t size) {
  if (l->count == l->capacity) {
    size_t capacity = l->capacity ? 2 * l->capacity : 16;
    input* items = realloc(l->items, capacity * sizeof *items);
    if (!items) gg_fuzz_fail("out of memory");
    l->items = items;
    l->capacity = capacity;
  }
  input* in = &l->items[l->count];
  in->data = malloc(size ? size : 1);
  if (!in->data) gg_fuzz_fail("out of memory");
  memcpy(in->data, data, size);
  in->size = size;
  l->count++;
}

void gg_fuzz_add_seed(const void* data, size_t size) { list_push(&seeds, data, size); }
void gg_fuzz_add_token(const char* token) { list_push(&tokens, token, strlen(token)); }

void gg_fuzz_fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "gg fuzz: check failed: ");
  vfprintf(stderr, format, args);
  fprintf(stderr, "\n");
  va_end(args);
  abort();
}

__attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return 0;
}

// splitmix64: the whole run follows from --seed.
static uint64_t rng_state;
static uint64_t next(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

// The buffer being mutated: data[0, size) of capacity max_len.
typedef struct buffer {
  uint8_t* data;
  size_t size, max_len;
} buffer;

static void insert(buffer* b, size_t at, const uint8_t* bytes, size_t n) {
  if (b->size + n > b->max_len) n = b->max_len - b->size;
  memmove(b->data + at + n, b->data + at, b->size - at);
  memcpy(b->data + at, bytes, n);
  b->size += n;
}

static void erase(buffer* b, size_t at, size_t n) {
  if (at + n > b->size) n = b->size - at;
  memmove(b->data + at, b->data + at + n, b->size - at - n);
  b->size -= n;
}

// Integers that find boundary bugs, little-endian, 1 to 8 bytes.
static void interesting(uint8_t* out, size_t* n) {
  static const int64_t values[] = {0,          1,          -1,          2,         16,
                                   127,        128,        255,         256,       4096,
                                   32767,      -32768,     65535,       65536,     INT32_MAX,
                                   INT32_MIN,  UINT32_MAX, (int64_t)1 << 32, INT64_MAX,
                                   INT64_MIN,  (int64_t)1 << 47, ((int64_t)1 << 62) + 64};
  int64_t v = values[below(sizeof values / sizeof values[0])];
  static const size_t widths[] = {1, 2, 4, 8};
  *n = widths[below(4)];
  for (size_t i = 0; i < *n; ++i) out[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

// The start and length of the line holding byte `at`.
static void line_at(const buffer* b, size_t at, size_t* start, size_t* length) {
  size_t s = at, e = at;
  while (s > 0 && b->data[s - 1] != '\n') --s;
  while (e < b->size && b->data[e] != '\n') ++e;
  *start = s;
  *length = e - s + (e < b->size);  // with its newline
}

// Text mutations: a number becomes another (often a boundary), a dictionary token goes in,
// a line is deleted, doubled or moved.
static void mutate_text(buffer* b) {
  if (!b->size) return;
  size_t at = below(b->size), start, length;
  switch (below(5)) {
    case 0: {  // renumber
      size_t s = at;
      while (s < b->size && !is_digit(b->data[s])) ++s;
      if (s == b->size) break;
      size_t e = s;
      while (e < b->size && is_digit(b->data[e])) ++e;
      static const char* const numbers[] = {"0", "1", "2", "3", "7", "16", "64", "128", "256",
                                            "-1", "2147483647", "2147483648", "4294967296",
                                            "9223372036854775807", "100000"};
      const char* n = numbers[below(sizeof numbers / sizeof numbers[0])];
      erase(b, s, e - s);
      insert(b, s, (const uint8_t*)n, strlen(n));
      break;
    }
    case 1: {  // a token
      if (!tokens.count) break;
      input* t = &tokens.items[below(tokens.count)];
      insert(b, at, t->data, t->size);
      break;
    }
    case 2:  // delete a line
      line_at(b, at, &start, &length);
      erase(b, start, length);
      break;
    default: {  // copy a line to the start of another
      uint8_t line[512];
      line_at(b, at, &start, &length);
      if (length > sizeof line) length = sizeof line;
      memcpy(line, b->data + start, length);
      size_t to_start, to_length;
      line_at(b, below(b->size), &to_start, &to_length);
      insert(b, to_start, line, length);
      break;
    }
  }
}

static void mutate_once(buffer* b) {
  if (text_inputs && below(8) != 0) {
    mutate_text(b);
    return;
  }
  uint8_t bytes[64];
  size_t n;
  switch (below(9)) {
    case 0:  // flip a bit
      if (b->size) b->data[below(b->size)] ^= (uint8_t)(1u << below(8));
      break;
    case 1:  // a random byte
      if (b->size) b->data[below(b->size)] = (uint8_t)next();
      break;
    case 2:  // an interesting integer, overwritten
      interesting(bytes, &n);
      if (b->size >= n) memcpy(b->data + below(b->size - n + 1), bytes, n);
      break;
    case 3:  // an interesting integer, inserted
      interesting(bytes, &n);
      insert(b, below(b->size + 1), bytes, n);
      break;
    case 4:  // delete a run
      if (b->size) erase(b, below(b->size), 1 + below(16));
      break;
    case 5: {  // copy a run elsewhere
      if (!b->size) break;
      size_t from = below(b->size), length = 1 + below(b->size - from < 64 ? b->size - from : 64);
      memcpy(bytes, b->data + from, length);
      insert(b, below(b->size + 1), bytes, length);
      break;
    }
    case 6:    // a dictionary token, inserted
    case 7: {  // or overwriting
      if (!tokens.count) break;
      input* t = &tokens.items[below(tokens.count)];
      size_t at = below(b->size + 1);
      if (below(2) && at + t->size <= b->size) memcpy(b->data + at, t->data, t->size);
      else insert(b, at, t->data, t->size);
      break;
    }
    default: {  // splice in a run of another seed
      if (!seeds.count) break;
      input* s = &seeds.items[below(seeds.count)];
      if (!s->size) break;
      size_t from = below(s->size), length = 1 + below(s->size - from);
      if (length > 256) length = 1 + below(256);
      size_t at = below(b->size + 1);
      if (below(2)) erase(b, at, length);
      insert(b, at, s->data + from, length);
      break;
    }
  }
}

static const char* input_path(void) {
  static char path[4096];
  const char* env = getenv("GG_FUZZ_INPUT");
  if (env && *env) return env;
  const char* dir = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (!dir || !*dir) return NULL;
  snprintf(path, sizeof path, "%s/input.bin", dir);
  return path;
}

// Keeps the input about to run, so a crash leaves it behind.
static void save_input(const char* path, const uint8_t* data, size_t size) {
  if (!path) return;
  FILE* f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, size, f);
  fclose(f);
}

static int read_file(const char* path, input* out) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  size_t capacity = 4096, size = 0;
  uint8_t* data = malloc(capacity);
  size_t n;
  while (data && (n = fread(data + size, 1, capacity - size, f)) > 0) {
    size += n;
    if (size == capacity) {
      uint8_t* grown = realloc(data, capacity *= 2);
      if (!grown) free(data);
      data = grown;
    }
  }
  fclose(f);
  if (!data) return 0;
  out->data = data;
  out->size = size;
  return 1;
}


static int usage(void) {
  fprintf(stderr, "usage: FUZZER [--seed S] [--runs N] [--max-len L] [--replay FILE] [SEED_FILE...]\n");
  return 2;
}

int main(int argc, char** argv) {
  unsigned long long seed = 1, runs = 1000, max_len = 4096;
  const char* replay = NULL;
  int first_file = argc;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    char* end;
    if (i + 1 < argc && (!strcmp(a, "--seed") || !strcmp(a, "--runs") || !strcmp(a, "--max-len"))) {
      errno = 0;
      unsigned long long v = strtoull(argv[++i], &end, 10);
      if (errno || *end) return usage();
      *(!strcmp(a, "--seed") ? &seed : !strcmp(a, "--runs") ? &runs : &max_len) = v;
    } else if (i + 1 < argc && !strcmp(a, "--replay")) {
      replay = argv[++i];
    } else if (a[0] == '-') {
      return usage();
    } else {
      first_file = i;
      break;
    }
  }
  if (max_len < 16) max_len = 16;
  LLVMFuzzerInitialize(&argc, &argv);
  for (int i = first_file; i < argc; ++i) {
    input in;
    if (!read_file(argv[i], &in)) {
      fprintf(stderr, "cannot read seed %s\n", argv[i]);
      return 2;
    }
    gg_fuzz_add_seed(in.data, in.size);
    free(in.data);
  }
  if (replay) {
    input in;
    if (!read_file(replay, &in)) {
      fprintf(stderr, "cannot read %s\n", replay);
      return 2;
    }
    LLVMFuzzerTestOneInput(in.data, in.size);
    printf("replayed %s (%zu bytes)\n", replay, in.size);
    free(in.data);
    return 0;
  }
  const char* path = input_path();
  double start = (gg_now_ms() / 1e3);
  // Every seed as it is, then mutants.
  for (size_t i = 0; i < seeds.count; ++i) {
    save_input(path, seeds.items[i].data, seeds.items[i].size);
    LLVMFuzzerTestOneInput(seeds.items[i].data, seeds.items[i].size);
  }
  rng_state = seed;
  buffer b = {malloc(max_len), 0, max_len};
  if (!b.data) return 1;
  for (unsigned long long run = 0; run < runs; ++run) {
    b.size = 0;
    if (seeds.count) {
      input* s = &seeds.items[below(seeds.count)];
      b.size = s->size < max_len ? s->size : max_len;
      memcpy(b.data, s->data, b.size);
    }
    for (size_t m = 1 + below(4); m > 0; --m) mutate_once(&b);
    save_input(path, b.data, b.size);
    LLVMFuzzerTestOneInput(b.data, b.size);
  }
  printf("%s: seed %llu, %zu seed inputs and %llu mutants run in %.1f s, no failure\n", argv[0],
         seed, seeds.count, runs, (gg_now_ms() / 1e3) - start);
  free(b.data);
  return 0;
}

uint64_t gg_fuzz_take(gg_fuzz_cursor* c, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    uint64_t b = c->left ? (--c->left, *c->p++) : 0;
    v |= b << (8 * i);
  }
  return v;
}
