// Kernels: cache keys, one compile per key however many threads ask, the disk cache,
// loading, and running a checked call.
#define _GNU_SOURCE  // dl_iterate_phdr
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/disk_cache.h"
#include "api/internal.h"
#include "compiler/compile.h"
#include "compiler/files.h"
#include "compiler/host_library.h"
#include "llvm-c/Core.h"
#include "runtime/code_object.h"

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

static char* cache_key(const gg_op_desc* desc) {
  pthread_once(&process_identity_once, process_identity);
  char descriptor[1024];
  gg_op_desc_format(desc, descriptor, sizeof descriptor);
  const char* compiler = process_compiler;
  const char* cpu = desc->target == GG_TARGET_HOST ? process_cpu : "";
  const char* artifact = desc->target == GG_TARGET_HOST ? "host-library" : "hsaco";
  size_t size = strlen(descriptor) + strlen(compiler) + strlen(cpu) + 128;
  char* key = malloc(size);
  if (key)
    snprintf(key, size, "gg-cache v1\ncompiler %s\nartifact %s\ncpu %s\n%s\n", compiler,
             artifact, cpu, descriptor);
  return key;
}

// ---------------------------------------------------------------------------------------
// Building one kernel (outside the context's lock).

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// dlopen needs a file: the checked payload is written to a private one (mkstemp: created
// exclusively, 0600), loaded, and unlinked on every path once it exists.
static gg_status load_host_library(const gg_text* bytes, const char* name,
                                   gg_host_library** out) {
  const char* tmp = getenv("TMPDIR");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/gg-kernel-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return gg_status_make(GG_STATUS_IO, "cannot create %s: %s", path, strerror(errno));
  int failed = gg_fd_write_all(fd, bytes->data, bytes->length) != 0;
  failed = close(fd) != 0 || failed;
  gg_status status = failed ? gg_status_make(GG_STATUS_IO, "writing %s failed", path)
                            : gg_host_library_open(path, name, out);
  unlink(path);
  return status;
}

// Loads the artifact bytes into the kernel: a host library, or a checked code object.
static gg_status install(gg_kernel* kernel, gg_text* bytes) {
  if (bytes->failed) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (kernel->desc.target == GG_TARGET_HOST)
    return load_host_library(bytes, kernel->name, &kernel->host);
  gg_code_object_info info;
  GG_RETURN_IF_ERROR(gg_code_object_read(bytes->data, bytes->length, &info));
  if (strcmp(info.kernel.name, kernel->name) != 0)
    return gg_status_make(GG_STATUS_INTERNAL, "the code object holds %s, not %s",
                          info.kernel.name, kernel->name);
  if (info.has_group_ends != gg_layout_has_group_ends(kernel->desc.layout))
    return gg_status_make(GG_STATUS_INTERNAL, "the code object for %s %s a _group_ends kernel",
                          kernel->name, info.has_group_ends ? "has" : "lacks");
  kernel->code_object = bytes->data;  // taken over
  kernel->code_object_size = bytes->length;
  gg_text_init(bytes);
  return GG_OK;
}

typedef enum build_source { FROM_DISK, FROM_COMPILER } build_source;

static gg_status compile_artifact(const gg_op_desc* desc, gg_text* out) {
  if (desc->target == GG_TARGET_HOST) return gg_compile_host_library(desc, out);
  return gg_compile_emit(desc, GG_STAGE_BINARY, out);
}

static gg_status build(gg_context* context, gg_kernel* kernel, build_source* source) {
  gg_text bytes;
  gg_text_init(&bytes);
  gg_status status = GG_OK;
  *source = FROM_COMPILER;
  const char* cache_dir = gg_context_cache_dir(context);
  if (cache_dir) {
    gg_disk_lookup lookup;
    char why[PATH_MAX + 64];
    status = gg_disk_cache_load(cache_dir, kernel->key, &bytes, &lookup, why, sizeof why);
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
        *source = FROM_DISK;
        gg_text_free(&bytes);
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
  double start = now_ms();
  status = compile_artifact(&kernel->desc, &bytes);
  if (!status) {
    gg_log(context, GG_LOG_INFO, "compiled %s for %s in %.0f ms", kernel->name,
           gg_target_name(kernel->desc.target), now_ms() - start);
    if (cache_dir) {
      gg_status stored = gg_disk_cache_store(cache_dir, kernel->key, bytes.data, bytes.length);
      if (stored) gg_log(context, GG_LOG_INFO, "cache: %s", gg_status_message(stored));
      gg_status_free(stored);
    }
    status = install(kernel, &bytes);
  }
  gg_text_free(&bytes);
  return status;
}

// ---------------------------------------------------------------------------------------
// The kernel table.

static gg_status copy_error(gg_status error) {
  return gg_status_make(gg_status_code_of(error), "%s", gg_status_message(error));
}

static void unlink_kernel(gg_context* context, gg_kernel* kernel) {
  for (gg_kernel** p = &context->kernels; *p; p = &(*p)->next)
    if (*p == kernel) {
      *p = kernel->next;
      return;
    }
}

void gg_kernel_free(gg_kernel* kernel) {
  gg_hsa_kernel_destroy(kernel->hsa);
  gg_host_library_close(kernel->host);
  gg_status_free(kernel->error);
  free(kernel->code_object);
  free(kernel->key);
  free(kernel);
}

gg_status gg_kernel_get(gg_context* context, const gg_op_desc* in, gg_kernel** out) {
  if (!context || !in || !out)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_kernel_get: NULL argument");
  *out = NULL;
  GG_RETURN_IF_ERROR(gg_op_desc_validate(in));
  gg_op_desc desc = gg_op_desc_with_defaults(in);
  char* key = cache_key(&desc);
  if (!key) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");

  pthread_mutex_lock(&context->mutex);
  for (;;) {
    gg_kernel* found = NULL;
    for (gg_kernel* k = context->kernels; k; k = k->next)
      if (!strcmp(k->key, key)) found = k;
    if (!found) break;
    if (found->state == KERNEL_BUILDING) {  // another thread is building it
      pthread_cond_wait(&context->built, &context->mutex);
      continue;
    }
    if (found->state == KERNEL_READY) {
      ++context->stats.memory_hits;
      pthread_mutex_unlock(&context->mutex);
      free(key);
      *out = found;
      return GG_OK;
    }
    // A failed build: drop it and try again (the failure may have been transient).
    unlink_kernel(context, found);
    gg_kernel_free(found);
  }
  gg_kernel* kernel = calloc(1, sizeof *kernel);
  if (!kernel) {
    pthread_mutex_unlock(&context->mutex);
    free(key);
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  kernel->key = key;
  kernel->desc = desc;
  gg_op_desc_kernel_name(&desc, kernel->name, sizeof kernel->name);
  kernel->next = context->kernels;
  context->kernels = kernel;
  pthread_mutex_unlock(&context->mutex);

  build_source source;
  gg_status status = build(context, kernel, &source);

  pthread_mutex_lock(&context->mutex);
  if (status) {
    kernel->state = KERNEL_FAILED;
    kernel->error = copy_error(status);
  } else {
    kernel->state = KERNEL_READY;
    if (source == FROM_DISK) ++context->stats.disk_hits;
    else ++context->stats.compiles;
  }
  pthread_cond_broadcast(&context->built);
  pthread_mutex_unlock(&context->mutex);
  if (status) return status;
  gg_log(context, GG_LOG_DEBUG, "%s ready (%s)", kernel->name,
         source == FROM_DISK ? "from the disk cache" : "compiled");
  *out = kernel;
  return GG_OK;
}

const gg_op_desc* gg_kernel_desc(const gg_kernel* kernel) { return &kernel->desc; }
const char* gg_kernel_name(const gg_kernel* kernel) { return kernel->name; }

void gg_kernel_code_object(const gg_kernel* kernel, const void** data, size_t* size) {
  *data = kernel->code_object;
  *size = kernel->code_object_size;
}

// ---------------------------------------------------------------------------------------
// Running.

// The kernel loaded on the context's GPU, on first use.
static gg_status gpu_kernel(gg_context* context, gg_kernel* kernel, gg_hsa_kernel** out) {
  gg_hsa_device* gpu;
  GG_RETURN_IF_ERROR(gg_context_gpu(context, &gpu));
  pthread_mutex_lock(&context->mutex);
  gg_status status = GG_OK;
  if (!kernel->hsa)
    status = gg_hsa_kernel_load(gpu, kernel->code_object, kernel->code_object_size, &kernel->hsa);
  *out = kernel->hsa;
  pthread_mutex_unlock(&context->mutex);
  return status;
}

gg_status gg_kernel_run(gg_context* context, gg_kernel* kernel, const gg_checked_call* call) {
  if (call->on_gpu) {
    gg_hsa_kernel* hsa;
    GG_RETURN_IF_ERROR(gpu_kernel(context, kernel, &hsa));
    return gg_hsa_kernel_run(hsa, &kernel->desc, call->buffers, call->m, call->zeroing);
  }
  if (!kernel->host)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s is a %s kernel, not a host kernel",
                          kernel->name, gg_target_name(kernel->desc.target));
  return gg_host_invoke(gg_host_library_entry(kernel->host), &kernel->desc, call->buffers,
                        call->m, call->zeroing);
}
