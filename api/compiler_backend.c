// What libgg adds to the runtime: kernels the context neither holds nor finds in a bundle
// come from the disk cache or the compiler. libgg_runtime links api/no_compiler.c instead.
#define _GNU_SOURCE  // dl_iterate_phdr
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/disk_cache.h"
#include "runtime/clock.h"
#include "api/internal.h"
#include "compiler/compile.h"
#include "compiler/host_library.h"
#include "compiler/target.h"
#include "llvm-c/Core.h"

// ---------------------------------------------------------------------------------------
// The compiler's identity: the GNU build ID of the binary holding the compiler, so a
// rebuilt compiler never loads kernels an older one cached. Without a build ID, the
// binary's size and modification time stand in.

typedef struct identity_search {
  const void* address;
  char text[128];
} identity_search;

static int visit_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  identity_search* search = data;
  uintptr_t address = (uintptr_t)search->address;
  int contains = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && address >= start && address < start + ph->p_memsz) contains = 1;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const uint8_t* p = (const uint8_t*)(info->dlpi_addr + ph->p_vaddr);
    const uint8_t* end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr)* note = (const ElfW(Nhdr)*)p;
      const uint8_t* name = p + sizeof *note;
      const uint8_t* desc = name + ((note->n_namesz + 3) & ~3u);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
        size_t n = note->n_descsz < 48 ? note->n_descsz : 48;
        strcpy(search->text, "build-id ");
        for (size_t b = 0; b < n; ++b)
          snprintf(search->text + strlen(search->text), 3, "%02x", desc[b]);
        return 1;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  // No build ID: the file's size and time.
  const char* path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  struct stat st;
  if (stat(path, &st) == 0)
    snprintf(search->text, sizeof search->text, "file %lld %lld.%09ld", (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  return 1;
}

static void compiler_identity(char* buffer, size_t size) {
  identity_search search = {(const void*)&gg_compile_emit, "unknown"};
  dl_iterate_phdr(visit_object, &search);
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(buffer, size, "%s llvm %u.%u.%u", search.text, major, minor, patch);
}

// What every key of this process shares, found once: not on each request's path.
static char process_compiler[256], process_cpu[1024];
static pthread_once_t process_identity_once = PTHREAD_ONCE_INIT;

static void process_identity(void) {
  compiler_identity(process_compiler, sizeof process_compiler);
  gg_host_cpu_id(process_cpu, sizeof process_cpu);
}

// The disk cache's key: the descriptor, the compiler and (for host kernels) the CPU; for
// sm_90a kernels built with gg-to-nvvm's bounded waits (GG_SM90_WAIT_LIMIT, a debugging
// aid), the limit too, so that neither kind is served for the other.
static char* cache_key(const gg_op_desc* desc, const char* descriptor) {
  pthread_once(&process_identity_once, process_identity);
  const char* compiler = process_compiler;
  const char* cpu = desc->target == GG_TARGET_HOST ? process_cpu : "";
  const char* artifact = gg_target_backend_of(desc->target)->artifact;
  const char* wait = desc->target == GG_TARGET_SM90A ? getenv("GG_SM90_WAIT_LIMIT") : NULL;
  char wait_line[64] = "";
  if (wait && *wait) snprintf(wait_line, sizeof wait_line, "wait-limit %.40s\n", wait);
  size_t size = strlen(descriptor) + strlen(compiler) + strlen(cpu) + strlen(wait_line) + 128;
  char* key = malloc(size);
  if (key)
    snprintf(key, size, "gg-cache v1\ncompiler %s\nartifact %s\ncpu %s\n%s%s\n", compiler,
             artifact, cpu, wait_line, descriptor);
  return key;
}

// ---------------------------------------------------------------------------------------
// Building one kernel (outside the context's lock).


// Installs the bytes of an artifact (a text that may have failed to grow).
static gg_status install(gg_kernel* kernel, const gg_text* bytes) {
  if (bytes->failed) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  return gg_kernel_install(kernel, bytes->data, bytes->length);
}

gg_status gg_api_build(gg_context* context, gg_kernel* kernel, gg_kernel_source* source) {
  char* key = cache_key(&kernel->desc, kernel->key);
  if (!key) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  gg_text bytes;
  gg_text_init(&bytes);
  gg_status status = GG_OK;
  *source = GG_KERNEL_FROM_COMPILER;
  const char* cache_dir = gg_context_cache_dir(context);
  if (cache_dir) {
    gg_disk_lookup lookup;
    char why[PATH_MAX + 64];
    status = gg_disk_cache_load(cache_dir, key, &bytes, &lookup, why, sizeof why);
    if (status) {  // an unreadable cache directory costs a compile, not the launch
      gg_log(context, GG_LOG_INFO, "cache: %s", gg_status_message(status));
      gg_status_free(status);
      status = GG_OK;
    } else if (lookup == GG_DISK_CORRUPT) {
      gg_log(context, GG_LOG_INFO, "cache: rejected %s; rebuilding %s", why, kernel->name);
      pthread_mutex_lock(&context->mutex);
      ++context->stats.files_rejected;
      pthread_mutex_unlock(&context->mutex);
    } else if (lookup == GG_DISK_HIT) {
      status = install(kernel, &bytes);
      if (!status) {
        *source = GG_KERNEL_FROM_DISK;
        gg_text_free(&bytes);
        free(key);
        return GG_OK;
      }
      // A file that passed its checksum yet does not load was written by a broken
      // compiler; rebuild rather than fail.
      gg_log(context, GG_LOG_INFO, "cache: %s did not load (%s); rebuilding", kernel->name,
             gg_status_message(status));
      gg_status_free(status);
      status = GG_OK;
      gg_text_clear(&bytes);
    }
  }
  double start = gg_now_ms();
  status = gg_compile_artifact(&kernel->desc, &bytes);
  if (!status) {
    gg_log(context, GG_LOG_INFO, "compiled %s for %s in %.0f ms", kernel->name,
           gg_target_name(kernel->desc.target), gg_now_ms() - start);
    if (cache_dir) {
      gg_status stored = gg_disk_cache_store(cache_dir, key, bytes.data, bytes.length);
      if (stored) gg_log(context, GG_LOG_INFO, "cache: %s", gg_status_message(stored));
      gg_status_free(stored);
    }
    status = install(kernel, &bytes);
  }
  gg_text_free(&bytes);
  free(key);
  return status;
}
