// libgg_runtime's stand-in for the compiler: a kernel no bundle holds is not found, and
// what only a compiler makes is unimplemented. libgg links api/compiler_backend.c,
// api/emit.c and api/bundle_write.c instead.
#include "api/internal.h"

gg_status gg_api_build(gg_context* context, gg_kernel* kernel, gg_kernel_source* source) {
  *source = GG_KERNEL_FROM_COMPILER;
  char flags[512];
  gg_op_desc_flags(&kernel->desc, flags, sizeof flags);
  size_t bundled = gg_context_bundle_kernel_count(context);
  return gg_status_make(GG_STATUS_NOT_FOUND,
                        "no kernel %s in the %zu bundled kernel%s of this context, and "
                        "libgg_runtime does not compile; build it with: gg bundle -o FILE %s",
                        kernel->name, bundled, bundled == 1 ? "" : "s", flags);
}

static gg_status no_compiler(const char* what) {
  return gg_status_make(GG_STATUS_UNIMPLEMENTED,
                        "%s needs the compiler: link libgg (pkg-config gg), not libgg_runtime",
                        what);
}

gg_status gg_emit(const gg_op_desc* desc, gg_artifact artifact, gg_bytes* out) {
  (void)desc;
  (void)artifact;
  if (out) *out = (gg_bytes){NULL, 0};
  return no_compiler("gg_emit");
}

gg_status gg_emit_after_pass(const gg_op_desc* desc, const char* pass, gg_bytes* out) {
  (void)desc;
  (void)pass;
  if (out) *out = (gg_bytes){NULL, 0};
  return no_compiler("gg_emit_after_pass");
}

gg_status gg_bundle_write(const char* path, const gg_op_desc* descs, const char* const* flags,
                          size_t count, int threads) {
  (void)path;
  (void)descs;
  (void)flags;
  (void)count;
  (void)threads;
  return no_compiler("gg_bundle_write");
}
