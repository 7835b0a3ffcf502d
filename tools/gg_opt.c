// gg-opt: an mlir-opt-style driver with the gg dialect and passes.
//
//   gg-opt [file.mlir | -] [-p PIPELINE] [-o OUT] [--split-input-file]
//          [--mlir-print-ir-before-all] [--mlir-print-ir-after-all] [--mlir-timing]
//          [--no-verify] [--list-passes]
//
// Reads gg (or any MLIR) IR, runs a textual pipeline that mixes gg passes, named gg
// pipelines and upstream passes, and prints the result. Errors carry file:line:col.
// Exit status: 0 success, 1 parse or pass failure, 2 bad command line.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context.h"
#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "passes/pass.h"

typedef struct options {
  const char* input;
  const char* output;
  const char* pipeline;
  int split_input;
  int print_before_all;
  int print_after_all;
  int timing;
  int verify;
} options;

static void usage(FILE* out) {
  fprintf(out,
          "usage: gg-opt [file.mlir | -] [-p PIPELINE] [-o OUT] [--split-input-file]\n"
          "              [--mlir-print-ir-before-all] [--mlir-print-ir-after-all]\n"
          "              [--mlir-timing] [--no-verify] [--list-passes]\n");
}

static void list_passes(void) {
  printf("gg passes:\n");
  for (size_t i = 0; i < gg_pass_count(); ++i)
    printf("  %-20s %s (on %s)\n", gg_pass_at(i)->argument, gg_pass_at(i)->summary,
           gg_pass_at(i)->anchor);
  printf("gg pipelines:\n");
  for (size_t i = 0; i < gg_named_pipeline_count(); ++i)
    printf("  %-20s %s\n", gg_named_pipeline_at(i)->argument, gg_named_pipeline_at(i)->summary);
  printf("Any other name is passed to MLIR's pass registry (e.g. canonicalize, cse).\n");
}

static char* read_all(FILE* in, size_t* length) {
  size_t capacity = 1 << 16, used = 0;
  char* data = malloc(capacity);
  while (data) {
    size_t n = fread(data + used, 1, capacity - used - 1, in);
    used += n;
    if (used + 1 < capacity) break;
    char* grown = realloc(data, capacity * 2);
    if (!grown) {
      free(data);
      return NULL;
    }
    data = grown;
    capacity *= 2;
  }
  if (data) data[used] = 0;
  *length = used;
  return data;
}

static void print_chunk_result(MlirOperation module, FILE* out) {
  gg_text text;
  gg_text_init(&text);
  gg_text_operation(&text, module);
  fputs(gg_text_str(&text), out);
  fputc('\n', out);
  gg_text_free(&text);
}

// Parses and transforms one chunk that starts on line `first_line` of the input.
static int process_chunk(MlirContext ctx, const options* opts, const char* name,
                         const char* chunk, size_t chunk_length, int first_line, FILE* out) {
  // Blank lines in front keep line numbers those of the file; a module wrapper goes on
  // the first of them (or in front of the text when the chunk starts the file).
  gg_text source;
  gg_text_init(&source);
  int wrap = !gg_mlir_text_is_module(chunk);
  if (wrap) gg_text_printf(&source, "module {");
  for (int i = 1; i < first_line; ++i) gg_text_printf(&source, "\n");
  gg_text_append(&source, chunk, chunk_length);
  if (wrap) gg_text_printf(&source, "\n}");
  MlirOperation module = mlirOperationCreateParse(ctx, gg_str(gg_text_str(&source)), gg_str(name));
  gg_text_free(&source);
  if (mlirOperationIsNull(module)) return 1;

  int status = 0;
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, gg_str("builtin.module"));
  mlirPassManagerEnableVerifier(pm, opts->verify);
  if (opts->print_before_all || opts->print_after_all) {
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    mlirPassManagerEnableIRPrinting(pm, opts->print_before_all, opts->print_after_all, true,
                                    false, false, flags, gg_str(""));
    mlirOpPrintingFlagsDestroy(flags);
  }
  if (opts->timing) mlirPassManagerEnableTiming(pm);
  if (opts->pipeline) {
    gg_status error = gg_pipeline_add(mlirPassManagerGetAsOpPassManager(pm), "builtin.module",
                                      opts->pipeline);
    if (error) {
      fprintf(stderr, "gg-opt: invalid pipeline: %s\n", gg_status_message(error));
      gg_status_free(error);
      status = 2;
    }
  }
  if (!status) {
    if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, module))) status = 1;
    else if (opts->verify && !mlirOperationVerify(module)) status = 1;
    else print_chunk_result(module, out);
  }
  mlirPassManagerDestroy(pm);
  mlirOperationDestroy(module);
  return status;
}

static int parse_args(int argc, char** argv, options* opts) {
  memset(opts, 0, sizeof *opts);
  opts->verify = 1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if ((!strcmp(a, "-p") || !strcmp(a, "--pass-pipeline") || !strcmp(a, "-o")) && i + 1 < argc) {
      if (!strcmp(a, "-o")) opts->output = argv[++i];
      else opts->pipeline = argv[++i];
    } else if (!strncmp(a, "--pass-pipeline=", 16)) {
      opts->pipeline = a + 16;
    } else if (!strcmp(a, "--split-input-file")) {
      opts->split_input = 1;
    } else if (!strcmp(a, "--mlir-print-ir-before-all")) {
      opts->print_before_all = 1;
    } else if (!strcmp(a, "--mlir-print-ir-after-all")) {
      opts->print_after_all = 1;
    } else if (!strcmp(a, "--mlir-timing")) {
      opts->timing = 1;
    } else if (!strcmp(a, "--no-verify")) {
      opts->verify = 0;
    } else if (!strcmp(a, "--list-passes")) {
      list_passes();
      exit(0);
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (a[0] == '-' && a[1] != 0) {
      fprintf(stderr, "gg-opt: unknown option '%s'\n", a);
      return 2;
    } else if (!opts->input) {
      opts->input = a;
    } else {
      fprintf(stderr, "gg-opt: more than one input ('%s' and '%s')\n", opts->input, a);
      return 2;
    }
  }
  if (!opts->input) opts->input = "-";
  return 0;
}

int main(int argc, char** argv) {
  options opts;
  if (parse_args(argc, argv, &opts)) {
    usage(stderr);
    return 2;
  }
  int from_stdin = !strcmp(opts.input, "-");
  FILE* in = from_stdin ? stdin : fopen(opts.input, "rb");
  if (!in) {
    fprintf(stderr, "gg-opt: cannot open '%s'\n", opts.input);
    return 1;
  }
  size_t length = 0;
  char* text = read_all(in, &length);
  if (!from_stdin) fclose(in);
  if (!text) {
    fprintf(stderr, "gg-opt: cannot read '%s'\n", opts.input);
    return 1;
  }
  FILE* out = opts.output ? fopen(opts.output, "w") : stdout;
  if (!out) {
    fprintf(stderr, "gg-opt: cannot write '%s'\n", opts.output);
    free(text);
    return 1;
  }

  MlirContext ctx = gg_mlir_context_create();
  if (mlirContextIsNull(ctx)) {
    fprintf(stderr, "gg-opt: the gg dialect failed to load\n");
    free(text);
    return 1;
  }
  gg_diagnostics diagnostics;
  gg_diagnostics_attach(&diagnostics, ctx, stderr);

  const char* name = from_stdin ? "<stdin>" : opts.input;
  int status = 0;
  if (!opts.split_input) {
    status = process_chunk(ctx, &opts, name, text, length, 1, out);
  } else {
    // Chunks are separated by lines holding only "// -----".
    const char* chunk = text;
    int line = 1, chunk_line = 1;
    for (const char* p = text;; ++p) {
      int at_separator = (p == text || p[-1] == '\n') && !strncmp(p, "// -----", 8);
      if (at_separator || !*p) {
        int s = process_chunk(ctx, &opts, name, chunk, (size_t)(p - chunk), chunk_line, out);
        if (s > status) status = s;
        if (!*p) break;
        fputs("// -----\n", out);
        while (*p && *p != '\n') ++p;
        if (!*p) break;
        chunk = p + 1;  // the line after the separator
        chunk_line = ++line;
        continue;
      }
      if (*p == '\n') ++line;
    }
  }
  gg_diagnostics_detach(&diagnostics);
  mlirContextDestroy(ctx);
  free(text);
  if (opts.output) fclose(out);
  return status;
}
