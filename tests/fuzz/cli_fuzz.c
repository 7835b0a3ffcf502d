// The gg command line, in process (tools/cli.h). An input is decoded into a command line
// from gg's grammar: its first byte picks the command (run, compile, preshuffle), then each
// few bytes pick a flag and a value: a name of the right kind or a stray one, a number in
// range, at a boundary or far past it, a group list with E*C items. Byte mutations of the
// input thus become changes of flags and values. Files stay in a private temporary
// directory, compiles stop at MLIR (op, tiles or target IR), and `run` executes only small
// problems (on the host, or in sim when smaller still), so an input takes milliseconds.
// Oracles: the sanitizers, an exit code in 0-3, and no `run` that prints FAIL.
#define _GNU_SOURCE  // mkdtemp
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"
#include "tools/cli.h"

enum { MAX_WORDS = 64 };

static char directory[256], weights[300], written[300], stdout_path[300];
static int saved_stdout = -1, saved_stderr = -1;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  const char* tmp = getenv("TEST_TMPDIR");
  if (!tmp || !*tmp) tmp = getenv("TMPDIR");
  snprintf(directory, sizeof directory, "%s/gg-cli-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(directory)) gg_fuzz_fail("cannot make a temporary directory");
  snprintf(weights, sizeof weights, "%s/weights.bin", directory);
  snprintf(written, sizeof written, "%s/out.bin", directory);
  snprintf(stdout_path, sizeof stdout_path, "%s/stdout.txt", directory);
  // Weights for preshuffle: [2, 16, 64] FP8.
  FILE* f = fopen(weights, "wb");
  if (!f) gg_fuzz_fail("cannot write %s", weights);
  for (int i = 0; i < 2 * 16 * 64; ++i) fputc(i * 7 & 0x77, f);
  fclose(f);
  saved_stdout = dup(1);
  saved_stderr = dup(2);
  // Seeds: byte strings the grammar turns into run, compile and preshuffle commands.
  for (uint8_t i = 0; i < 12; ++i) {
    uint8_t seed[40];
    for (int j = 0; j < 40; ++j) seed[j] = (uint8_t)(i * 53 + j * 29 + (j * j) % 7);
    seed[0] = i % 3;
    gg_fuzz_add_seed(seed, sizeof seed);
  }
  return 0;
}

typedef enum kind { ENUM, COUNT, SMALL, GROUPS, TILE, SEED, SWITCH } kind;

typedef struct flag {
  const char* name;
  kind kind;
  const char* values[6];  // ENUM
} flag;

static const flag flags[] = {
    {"--op", ENUM, {"stacked", "dynamic", "mm"}},
    {"--ranks", ENUM, {"2d3d", "3d3d", "3d2d", "2d2d"}},
    {"--groups", GROUPS, {0}},
    {"--M", COUNT, {0}},
    {"--N", COUNT, {0}},
    {"--K", COUNT, {0}},
    {"--G", SMALL, {0}},
    {"--scaling", ENUM, {"rowwise", "blockwise"}},
    {"--b", ENUM, {"plain", "preshuffled"}},
    {"--target", ENUM, {"host", "sim", "gfx942", "gfx950", "hsa"}},
    {"--chip", ENUM, {"gfx942", "gfx950"}},
    {"--fp8", ENUM, {"e4m3fn", "e4m3fnuz"}},
    {"--data", ENUM, {"random", "exact"}},
    {"--seed", SEED, {0}},
    {"--tile", TILE, {0}},
    {"--wpe", SMALL, {0}},
    {"--loop", ENUM, {"rolled", "unrolled"}},
    {"--emit", ENUM, {"op", "tiles", "target"}},
    {"--no-zeroing", SWITCH, {0}},
    {"--alternate-constant", SWITCH, {0}},
    {"--inverse", SWITCH, {0}},
};
enum { FLAGS = sizeof flags / sizeof flags[0] };

static const char* const strays[] = {"", "-", "x", "1e3", "0x10", "--op", "+5", " 7", "7 "};

// A number as text: mostly a small multiple of 16 (what shapes need), sometimes any small
// number, a boundary, or raw bits.
static void number(gg_fuzz_cursor* c, char* out, size_t size, int small) {
  static const char* const boundaries[] = {"0", "1", "-1", "8", "16", "127", "128", "4096",
                                           "2147483647", "2147483648", "4294967296",
                                           "9223372036854775807", "9223372036854775808",
                                           "-9223372036854775808", "18446744073709551616"};
  uint64_t how = gg_fuzz_take(c, 1) % 16;
  if (how == 13) snprintf(out, size, "%s", boundaries[gg_fuzz_take(c, 1) % (sizeof boundaries / sizeof boundaries[0])]);
  else if (how == 14) snprintf(out, size, "%lld", (long long)gg_fuzz_take(c, 8));
  else if (how == 15 || small) snprintf(out, size, "%llu", (unsigned long long)(gg_fuzz_take(c, 1) % (small ? 9 : 300)));
  else snprintf(out, size, "%llu", (unsigned long long)(gg_fuzz_take(c, 1) % 40) * 16);
}

// Writes flag f and its value (decoded from c) at words[*count].
static void decode_flag(gg_fuzz_cursor* c, const flag* f, char words[MAX_WORDS][64], int* count);

// Decodes the input into words; returns their count. run and compile start with the flags
// they need (each left out one time in sixteen), then any flags.
static int decode(gg_fuzz_cursor* c, char words[MAX_WORDS][64], const char** command) {
  static const char* const commands[] = {"run", "compile", "preshuffle"};
  int which = (int)(gg_fuzz_take(c, 1) % 3);
  *command = commands[which];
  int count = 0;
  static const int run_needs[] = {0, 2, 4, 5}, preshuffle_needs[] = {4, 5, 6};
  const int* needs = which == 2 ? preshuffle_needs : run_needs;
  for (int i = 0, n = which == 2 ? 3 : 4; i < n; ++i)
    if (gg_fuzz_take(c, 1) % 16 != 0) decode_flag(c, &flags[needs[i]], words, &count);
  uint64_t more = gg_fuzz_take(c, 1) % 6;
  for (; more > 0 && c->left && count + 2 < MAX_WORDS; --more) {
    uint64_t pick = gg_fuzz_take(c, 1);
    if (pick % 32 == 31) {  // a stray word
      snprintf(words[count++], 64, "%s",
               strays[gg_fuzz_take(c, 1) % (sizeof strays / sizeof strays[0])]);
      continue;
    }
    decode_flag(c, &flags[pick % FLAGS], words, &count);
  }
  return count;
}

static void decode_flag(gg_fuzz_cursor* c, const flag* f, char words[MAX_WORDS][64], int* count) {
    snprintf(words[(*count)++], 64, "%s", f->name);
    char* v = words[*count];
    switch (f->kind) {
      case SWITCH: return;
      case ENUM: {
        int n = 0;
        while (n < 6 && f->values[n]) ++n;
        uint64_t which = gg_fuzz_take(c, 1);
        snprintf(v, 64, "%s", which % 16 == 15 ? strays[which % 9] : f->values[which % (uint64_t)n]);
        break;
      }
      case COUNT: number(c, v, 64, 0); break;
      case SMALL: number(c, v, 64, 1); break;
      case SEED: number(c, v, 64, 0); break;
      case TILE: {
        static const char* const extents[] = {"64", "128", "256", "32", "0", "4294967424"};
        snprintf(v, 64, "%sx%sx%s", extents[gg_fuzz_take(c, 1) % 6], extents[gg_fuzz_take(c, 1) % 6],
                 extents[gg_fuzz_take(c, 1) % 6]);
        break;
      }
      case GROUPS: {
        size_t used = 0;
        for (uint64_t items = gg_fuzz_take(c, 1) % 7; items > 0 && used + 24 < 64; --items) {
          char item[24];
          number(c, item, sizeof item, gg_fuzz_take(c, 1) % 4 == 0);
          used += (size_t)snprintf(v + used, 64 - used, "%s%s", used ? "," : "", item);
          if (gg_fuzz_take(c, 1) % 6 == 0)
            used += (size_t)snprintf(v + used, 64 - used, "*%llu",
                                     (unsigned long long)(gg_fuzz_take(c, 1) % 40));
        }
        break;
      }
    }
    ++*count;
}

// True when the words ask for more than 10^5 groups (E*C items): that only tests how
// much memory the machine has.
static int too_many_groups(char** words, int count) {
  for (int i = 0; i + 1 < count; ++i) {
    if (strcmp(words[i], "--groups") != 0) continue;
    double total = 0;
    for (const char* p = words[i + 1]; *p;) {
      const char* star = strchr(p, '*');
      const char* comma = strchr(p, ',');
      if (star && (!comma || star < comma)) total += strtod(star + 1, NULL);
      else total += 1;
      if (!comma) break;
      p = comma + 1;
    }
    if (total > 1e5) return 1;
  }
  return 0;
}

// Whether `gg run` of the parsed flags is small enough to execute here.
static int small_run(const gg_cli* cli) {
  const gg_flags* c = &cli->f;
  if (strcmp(c->target, "host") != 0 && strcmp(c->target, "sim") != 0) return 1;  // exits 3
  if (c->group_count > 64 || c->api) return 0;
  int64_t m = c->m >= 0 ? c->m : 0;
  for (int64_t g = 0; g < c->group_count; ++g)
    m += c->groups[g] > 0 && c->groups[g] < 4096 ? c->groups[g] : (c->groups[g] ? 4096 : 0);
  double work = (double)(m + 1) * (double)(c->desc.n + 1) * (double)(c->desc.k + 1) *
                (double)(c->group_count + 1);
  return work < (strcmp(c->target, "sim") == 0 ? 2e6 : 2e8);
}

static void redirect(void) {
  fflush(stdout);
  fflush(stderr);
  int out = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (out >= 0) dup2(out, 1);
  if (null >= 0) dup2(null, 2);
  if (out >= 0) close(out);
  if (null >= 0) close(null);
}

static void restore(void) {
  fflush(stdout);
  fflush(stderr);
  dup2(saved_stdout, 1);
  dup2(saved_stderr, 2);
}

static int printed_fail(void) {
  FILE* f = fopen(stdout_path, "r");
  if (!f) return 0;
  char line[1024];
  int fail = 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "FAIL", 4)) fail = 1;
  fclose(f);
  return fail;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gg_fuzz_cursor in = {data, size};
  char text[MAX_WORDS][64];
  const char* command;
  int count = decode(&in, text, &command);
  char* words[MAX_WORDS];
  for (int i = 0; i < count; ++i) words[i] = text[i];
  if (too_many_groups(words, count)) return 0;

  // argv: gg <command> <flags>, preshuffle's files inside the private directory.
  char* argv[MAX_WORDS + 8];
  int argc = 0;
  argv[argc++] = "gg";
  argv[argc++] = (char*)command;
  for (int i = 0; i < count; ++i) argv[argc++] = words[i];
  if (!strcmp(command, "preshuffle")) {
    argv[argc++] = weights;
    argv[argc++] = written;
  }
  int is_compile = !strcmp(command, "compile");
  if (is_compile) {  // stop at MLIR unless the input chose a stage above
    int has_emit = 0;
    for (int i = 2; i < argc; ++i) has_emit |= !strcmp(argv[i], "--emit");
    if (!has_emit) {
      argv[argc++] = "--emit";
      argv[argc++] = "tiles";
    }
  }
  argv[argc] = NULL;

  if (!strcmp(command, "run")) {
    gg_cli c;
    redirect();
    int rejected = gg_cli_parse(argc, argv, &c);
    restore();
    int small = !rejected && small_run(&c);
    gg_cli_free(&c);
    if (!rejected && !small) return 0;
  }
  redirect();
  int code = gg_cli_main(argc, argv);
  restore();
  if (getenv("GG_FUZZ_VERBOSE")) {  // what ran, for tuning the seeds and the dictionary
    for (int i = 0; i < argc; ++i) fprintf(stderr, "%s ", argv[i]);
    fprintf(stderr, "-> %d\n", code);
  }
  if (code < 0 || code > 3) gg_fuzz_fail("gg %s exited %d", command, code);
  if (!strcmp(command, "run") && printed_fail()) {
    fprintf(stderr, "gg fuzz: command:");
    for (int i = 0; i < argc; ++i) fprintf(stderr, " %s", argv[i]);
    fprintf(stderr, "\n");
    gg_fuzz_fail("gg run printed FAIL");
  }
  return 0;
}
