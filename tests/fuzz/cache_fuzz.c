// Cache files (api/disk_cache.c): an input is the bytes of one entry, written under the
// key of a host kernel or of an AMD code object, then looked up. Seeds: real entries
// written by gg_disk_cache_store. Oracles: the sanitizers; a lookup that returns a hit
// hands back exactly a payload whose checksum the file carried, and an AMD payload is read
// by the code object reader without harm.
#define _GNU_SOURCE  // mkdtemp
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/disk_cache.h"
#include "compiler/compile.h"
#include "runtime/files.h"
#include "runtime/code_object.h"
#include "tests/fuzz/fuzz.h"

static char directory[256];
static const char* const keys[2] = {"gg-cache v1\nartifact host-library\nfuzz\n",
                                    "gg-cache v1\nartifact hsaco\nfuzz\n"};

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  const char* tmp = getenv("TEST_TMPDIR");
  if (!tmp || !*tmp) tmp = getenv("TMPDIR");
  snprintf(directory, sizeof directory, "%s/gg-cache-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(directory)) gg_fuzz_fail("cannot make a temporary directory");
  gg_status status = gg_disk_cache_prepare(directory);
  if (status) gg_fuzz_fail("%s", gg_status_message(status));
  // Seeds: an entry with a small payload, and one holding a real code object.
  gg_op_desc d = {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, 256, 256, 2,
                  {0}, GG_TARGET_GFX950, GG_ACCUM_PROMOTED};
  gg_text code;
  gg_text_init(&code);
  status = gg_compile_emit(&d, GG_STAGE_BINARY, &code);
  if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
  const void* payloads[2] = {"\x7f" "ELF not really a library", code.data};
  size_t sizes[2] = {24, code.length};
  for (int i = 0; i < 2; ++i) {
    status = gg_disk_cache_store(directory, keys[i], payloads[i], sizes[i]);
    if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
    char path[PATH_MAX];
    gg_disk_cache_path(directory, keys[i], path, sizeof path);
    gg_text entry;
    gg_text_init(&entry);
    status = gg_file_read(path, &entry);
    if (status) gg_fuzz_fail("seed: %s", gg_status_message(status));
    gg_text seed;  // a selector byte, then the file
    gg_text_init(&seed);
    gg_text_append(&seed, i ? "\x01" : "\x00", 1);
    gg_text_append(&seed, entry.data, entry.length);
    gg_fuzz_add_seed(seed.data, seed.length);
    gg_text_free(&seed);
    gg_text_free(&entry);
  }
  gg_text_free(&code);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const char* key = keys[data[0] & 1];
  char path[PATH_MAX];
  gg_disk_cache_path(directory, key, path, sizeof path);
  gg_status status = gg_file_write(path, data + 1, size - 1);
  if (status) gg_fuzz_fail("%s", gg_status_message(status));
  gg_text payload;
  gg_text_init(&payload);
  gg_disk_lookup lookup;
  char why[PATH_MAX + 64];
  status = gg_disk_cache_load(directory, key, &payload, &lookup, why, sizeof why);
  if (status) gg_fuzz_fail("lookup: %s", gg_status_message(status));
  if (lookup == GG_DISK_HIT) {
    if (payload.length > size) gg_fuzz_fail("a payload larger than its file");
    if (data[0] & 1) {
      gg_code_object_info info;
      gg_status_free(gg_code_object_read(payload.data, payload.length, &info));
    }
  } else if (lookup == GG_DISK_CORRUPT && !why[0]) {
    gg_fuzz_fail("a rejected file without a reason");
  }
  gg_text_free(&payload);
  unlink(path);
  return 0;
}
