// The code object reader (runtime/code_object.c) and what the launcher builds from what it
// reads: kernel argument images and AQL packets. Seeds: gg's own code objects (a kernel
// with its _group_ends kernel, a plain one, preshuffled B) compiled at start-up. Oracles:
// the sanitizers, and an argument image written only inside its segment (the image ends
// at a PROT_NONE page).
#define _DEFAULT_SOURCE  // MAP_ANONYMOUS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compiler/compile.h"
#include "runtime/code_object.h"
#include "runtime/dispatch.h"
#include "tests/fuzz/fuzz.h"

static const gg_op_desc seeds[] = {
    {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FNUZ, 256, 512, 3, {0}, GG_TARGET_GFX942, GG_ACCUM_PROMOTED},
    {GG_LAYOUT_BATCHED, GG_SCALING_BLOCKWISE, GG_B_PLAIN, GG_FP8_E4M3FN, 256, 256, 2, {0}, GG_TARGET_GFX950, GG_ACCUM_PROMOTED},
    {GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, GG_B_PRESHUFFLED, GG_FP8_E4M3FN, 256, 256, 2, {0}, GG_TARGET_GFX950, GG_ACCUM_PROMOTED},
};
enum { SEEDS = sizeof seeds / sizeof seeds[0] };

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  for (int i = 0; i < SEEDS; ++i) {
    gg_text code;
    gg_text_init(&code);
    gg_status status = gg_compile_emit(&seeds[i], GG_STAGE_BINARY, &code);
    if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
    gg_fuzz_add_seed(code.data, code.length);
    gg_text_free(&code);
  }
  static const char* const dictionary[] = {".name", ".symbol", ".args", ".kernarg_segment_size",
                                           ".offset", ".size", ".value_kind", "global_buffer",
                                           "hidden_block_count_x", "amdhsa.kernels", "_group_ends"};
  for (size_t i = 0; i < sizeof dictionary / sizeof dictionary[0]; ++i)
    gg_fuzz_add_token(dictionary[i]);
  return 0;
}

// Builds a kernel argument image for the kernel into memory that ends at a guard page.
static void build_image(const gg_kernel_info* kernel, const gg_op_desc* desc) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t size = kernel->kernarg_size, pages = (size + page - 1) / page + 1;
  uint8_t* map = mmap(NULL, (pages + 1) * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED || mprotect(map, pages * page, PROT_READ | PROT_WRITE) != 0)
    gg_fuzz_fail("cannot map guarded memory");
  uint8_t* image = map + pages * page - size;
  void* buffers[GG_OPERAND_COUNT];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) buffers[i] = (void*)(uintptr_t)(0x10000u * (i + 1));
  const int64_t grid[3] = {2, 3, 1};
  gg_status_free(gg_kernarg_build(kernel, desc, buffers, 64, (void*)(uintptr_t)0x90000, grid,
                                  image, size));
  gg_aql_packet packet;
  gg_status_free(gg_aql_build(&packet, grid, kernel, 1, 2, 3));
  munmap(map, (pages + 1) * page);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gg_code_object_info info;
  gg_status status = gg_code_object_read(data, size, &info);
  if (status) {
    gg_status_free(status);
    return 0;
  }
  if (info.kernel.arg_count > GG_MAX_KERNEL_ARGS) gg_fuzz_fail("%u arguments", info.kernel.arg_count);
  // The image for whichever seed's descriptor: mismatches must be refused, not overrun.
  const gg_op_desc* desc = &seeds[size % SEEDS];
  build_image(&info.kernel, desc);
  if (info.has_group_ends) build_image(&info.group_ends, desc);
  return 0;
}
