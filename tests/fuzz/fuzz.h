// gg's fuzz targets and the driver that runs them (tests/fuzz/driver.c).
//
// A target is LLVMFuzzerTestOneInput, so the same file builds as a libFuzzer target where
// clang is at hand (docs/reliability.md). The driver gg ships runs a target without
// coverage feedback, deterministically from a seed: it mutates the target's seed inputs
// (bit flips, interesting integers, byte insertions and deletions, copies, splices, the
// target's dictionary tokens) and runs each mutant. Sanitizers (bazel --config=san) and
// the targets' own checks are the oracles; a failed check aborts with a message.
//
//   bazel-bin/tests/fuzz/cli_fuzz [--seed S] [--runs N] [--max-len L] [--replay FILE]
//                                 [SEED_FILE...]
//
// Before each run the input is written to $GG_FUZZ_INPUT (or, under `bazel test`,
// $TEST_UNDECLARED_OUTPUTS_DIR/input.bin), so a crash leaves what caused it; --replay runs
// one file.
#ifndef GG_TESTS_FUZZ_FUZZ_H_
#define GG_TESTS_FUZZ_FUZZ_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Implemented by each target.
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional (weak in the driver): called once with the command line before any run.
int LLVMFuzzerInitialize(int* argc, char*** argv);

// For targets: seed inputs and dictionary tokens the driver's mutator uses.
void gg_fuzz_add_seed(const void* data, size_t size);
void gg_fuzz_add_token(const char* token);
// The target reads text: mutate it as text (numbers, tokens, whole lines), not as bytes.
void gg_fuzz_text_inputs(void);
// A target's input, read front to back: gg_fuzz_take returns the next `bytes` bytes (1 to
// 8) as a little-endian integer, zeros once the input runs out.
typedef struct gg_fuzz_cursor {
  const uint8_t* p;
  size_t left;
} gg_fuzz_cursor;
uint64_t gg_fuzz_take(gg_fuzz_cursor* c, int bytes);
// A failed check: prints the message and aborts.
void gg_fuzz_fail(const char* format, ...) __attribute__((format(printf, 1, 2), noreturn));

#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_FUZZ_FUZZ_H_
