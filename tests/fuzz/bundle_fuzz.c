// The bundle decoder (runtime/bundle.c), which every context runs on files it is handed.
// Seeds: bundles gg_bundle_write makes at start-up (two host kernels; a gfx950 kernel with
// its _group_ends kernel). Oracles: the sanitizers, and a round trip: a bundle the decoder
// accepts encodes back to exactly its bytes (nothing non-canonical gets through).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gg/gg.h"
#include "runtime/bundle.h"
#include "runtime/files.h"
#include "tests/fuzz/fuzz.h"

static void add_bundle_seed(const gg_op_desc* descs, size_t count) {
  const char* dir = getenv("TEST_TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/seed-%d.ggb", dir && *dir ? dir : "/tmp", (int)getpid());
  gg_status status = gg_bundle_write(path, descs, NULL, count, 1);
  if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
  gg_text bytes;
  gg_text_init(&bytes);
  status = gg_file_read(path, &bytes);
  if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
  unlink(path);
  gg_fuzz_add_seed(bytes.data, bytes.length);
  gg_text_free(&bytes);
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  const gg_op_desc host[] = {
      {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, 128, 128, 2, {0}, GG_TARGET_HOST, GG_ACCUM_PROMOTED},
      {GG_LAYOUT_BATCHED, GG_SCALING_BLOCKWISE, GG_B_PLAIN, GG_FP8_E4M3FN, 128, 128, 2, {0}, GG_TARGET_HOST, GG_ACCUM_PROMOTED},
  };
  const gg_op_desc amd[] = {
      {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, 256, 256, 3, {0}, GG_TARGET_GFX950, GG_ACCUM_PROMOTED},
  };
  add_bundle_seed(host, 2);
  add_bundle_seed(amd, 1);
  static const char* const dictionary[] = {GG_BUNDLE_MAGIC, "KRNL", "GGBEND", "host", "gfx942",
                                           "gfx950", "gg-kernel", "layout=", "global_buffer"};
  for (size_t i = 0; i < sizeof dictionary / sizeof dictionary[0]; ++i)
    gg_fuzz_add_token(dictionary[i]);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t* copy = malloc(size ? size : 1);
  if (!copy) gg_fuzz_fail("out of memory");
  memcpy(copy, data, size);
  gg_bundle* bundle = NULL;
  gg_status status = gg_bundle_decode(copy, size, &bundle);
  if (status) {
    if (bundle) gg_fuzz_fail("a refused bundle was returned");
    gg_status_free(status);
    return 0;
  }
  if (bundle->count == 0) gg_fuzz_fail("an accepted bundle holds no kernels");
  gg_text again;
  gg_text_init(&again);
  status = gg_bundle_encode(&bundle->header, bundle->kernels, bundle->count, &again);
  if (status) gg_fuzz_fail("an accepted bundle does not encode: %s", gg_status_message(status));
  if (again.length != size || memcmp(again.data, data, size) != 0)
    gg_fuzz_fail("an accepted bundle encodes to other bytes (%zu, not %zu)", again.length, size);
  gg_text_free(&again);
  gg_bundle_free(bundle);
  return 0;
}
