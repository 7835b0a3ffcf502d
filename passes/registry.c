// The one list of gg passes and named pipelines, and the textual pipeline parser that
// gg-opt, the library and the tests all use.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/pass.h"

static const gg_pass_info* const passes[] = {
    &gg_verify_pass,    &gg_select_config_pass, &gg_tile_pass,    &gg_resolve_groups_pass,
    &gg_k_loop_pass,    &gg_mask_pass,          &gg_to_host_pass, &gg_to_amdgpu_pass,
    &gg_to_nvvm_pass,   &gg_nvvm_abi_pass,
};

const gg_pass_info* gg_pass_lookup(const char* argument) {
  for (size_t i = 0; i < gg_pass_count(); ++i)
    if (strcmp(passes[i]->argument, argument) == 0) return passes[i];
  return NULL;
}

size_t gg_pass_count(void) { return sizeof passes / sizeof passes[0]; }
const gg_pass_info* gg_pass_at(size_t index) { return passes[index]; }

// ---------------------------------------------------------------------------------------
// Named pipelines.

// Upstream lowering of the host form (vector loops over memrefs) to the LLVM dialect.
#define GG_HOST_TO_LLVM                                                                     \
  "canonicalize,cse,convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,"     \
  "lower-affine,convert-vector-to-llvm,finalize-memref-to-llvm,convert-math-to-llvm,"     \
  "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"  \
  "reconcile-unrealized-casts"

// The gg passes from the op level to tiles with resolved groups and masks.
#define GG_TILE_LEVEL "gg-verify,gg-select-config,gg-tile,gg-resolve-groups,gg-k-loop,gg-mask"

static gg_status no_options(const char* options, const char* name) {
  if (options && *options)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s takes no options, given '%s'", name,
                          options);
  return GG_OK;
}

static gg_status expand_gg_to_llvm(const char* options, char* buffer, size_t size) {
  snprintf(buffer, size, "%s,gg-to-host,%s", GG_TILE_LEVEL, GG_HOST_TO_LLVM);
  return no_options(options, "gg-to-llvm");
}

static gg_status expand_gg_tile_level(const char* options, char* buffer, size_t size) {
  snprintf(buffer, size, "%s", GG_TILE_LEVEL);
  return no_options(options, "gg-tile-level");
}

static gg_status expand_host_to_llvm(const char* options, char* buffer, size_t size) {
  snprintf(buffer, size, "%s", GG_HOST_TO_LLVM);
  return no_options(options, "gg-host-to-llvm");
}

// Reads chip=, format= and toolkit= options; chip must name an AMD target.
static gg_status amd_options(const char* text, const char* name, char* chip, char* format,
                             char* toolkit) {
  strcpy(chip, "");
  strcpy(format, "bin");
  strcpy(toolkit, "");
  gg_option option;
  gg_status status = GG_OK;
  while (gg_option_next(&text, &option, &status)) {
    if (!strcmp(option.key, "chip")) snprintf(chip, 1024, "%s", option.value);
    else if (!strcmp(option.key, "format") && format) snprintf(format, 1024, "%s", option.value);
    else if (!strcmp(option.key, "toolkit") && toolkit) snprintf(toolkit, 1024, "%s", option.value);
    else
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s: unknown option '%s'", name, option.key);
  }
  if (status) return status;
  if (strcmp(chip, "gfx942") != 0 && strcmp(chip, "gfx950") != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s needs chip=gfx942 or chip=gfx950", name);
  return GG_OK;
}

// Upstream lowering of gg-to-amdgpu's kernels to ROCDL. Index arithmetic is 64-bit on the
// device, so operands past 4 GiB are addressable: buffer views are rebased per tile and
// their offsets are 32-bit. Integer range narrowing first brings what provably fits in 32
// bits (lane and tile offsets) back to 32 bits: without it the blockwise kernels of the
// split layouts spill on gfx942 (12 and 76 bytes); it costs about 85 ms of compile time.
static gg_status expand_rocdl_lowering(const char* options, char* buffer, size_t size) {
  char chip[1024], format[1024], toolkit[1024];
  GG_RETURN_IF_ERROR(amd_options(options, "gg-rocdl-lowering", chip, format, toolkit));
  snprintf(buffer, size,
           "gpu.module(arith-int-range-narrowing{int-bitwidths-supported=32},"
           "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
           "convert-gpu-to-rocdl{chipset=%s index-bitwidth=64},reconcile-unrealized-casts)",
           chip);
  return GG_OK;
}

// Every gg pass, then the upstream lowering to ROCDL.
static gg_status expand_gg_to_rocdl(const char* options, char* buffer, size_t size) {
  char chip[1024], format[1024], toolkit[1024];
  GG_RETURN_IF_ERROR(amd_options(options, "gg-to-rocdl", chip, format, toolkit));
  snprintf(buffer, size, "%s,gg-to-amdgpu{chip=%s},gg-rocdl-lowering{chip=%s}", GG_TILE_LEVEL,
           chip, chip);
  return GG_OK;
}

// ROCDL to an HSA code object (format=bin) or assembly (format=isa); code object v5.
static gg_status expand_amdgpu_binary(const char* options, char* buffer, size_t size) {
  char chip[1024], format[1024], toolkit[1024];
  GG_RETURN_IF_ERROR(amd_options(options, "gg-amdgpu-binary", chip, format, toolkit));
  if (!*toolkit)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "gg-amdgpu-binary needs toolkit=<dir with llvm/bin/ld.lld>");
  snprintf(buffer, size,
           "rocdl-attach-target{chip=%s abi=500},gpu-module-to-binary{format=%s toolkit=%s}", chip,
           format, toolkit);
  return GG_OK;
}

// Upstream lowering of gg-to-nvvm's kernels to the NVVM and LLVM dialects, then gg's
// tensor-map ABI. Index arithmetic is 64-bit.
#define GG_NVVM_LOWERING                                                                      \
  "canonicalize,cse,convert-nvgpu-to-nvvm,"                                                 \
  "gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-vector-to-llvm," \
  "convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gg-nvvm-abi"

static gg_status expand_nvvm_lowering(const char* options, char* buffer, size_t size) {
  snprintf(buffer, size, "%s", GG_NVVM_LOWERING);
  return no_options(options, "gg-nvvm-lowering");
}

static gg_status expand_gg_to_nvvm_llvm(const char* options, char* buffer, size_t size) {
  snprintf(buffer, size, "%s,gg-to-nvvm,gg-nvvm-lowering", GG_TILE_LEVEL);
  return no_options(options, "gg-to-nvvm-llvm");
}

// NVVM kernels to PTX with LLVM's NVPTX backend (no CUDA toolkit): sm_90a, PTX 8.0, O3.
static gg_status expand_nvvm_binary(const char* options, char* buffer, size_t size) {
  snprintf(buffer, size,
           "nvvm-attach-target{chip=sm_90a features=+ptx80 O=3},gpu-module-to-binary{format=isa}");
  return no_options(options, "gg-nvvm-binary");
}

static const gg_named_pipeline pipelines[] = {
    {"gg-to-llvm", "gg IR to the LLVM dialect for the host CPU (every gg pass, then upstream)",
     expand_gg_to_llvm},
    {"gg-tile-level", "gg IR to tiles: verify, select config, tile, resolve groups, K loop, mask",
     expand_gg_tile_level},
    {"gg-host-to-llvm", "upstream lowering of gg-to-host output to the LLVM dialect",
     expand_host_to_llvm},
    {"gg-to-rocdl", "gg IR to ROCDL kernels for chip=gfx942|gfx950 (every gg pass, then upstream)",
     expand_gg_to_rocdl},
    {"gg-rocdl-lowering", "upstream lowering of gg-to-amdgpu kernels to ROCDL (chip=)",
     expand_rocdl_lowering},
    {"gg-amdgpu-binary", "ROCDL kernels to a code object: chip=, format=bin|isa, toolkit=<dir>",
     expand_amdgpu_binary},
    {"gg-to-nvvm-llvm", "gg IR to sm_90a kernels in the NVVM and LLVM dialects (every gg pass)",
     expand_gg_to_nvvm_llvm},
    {"gg-nvvm-lowering", "upstream lowering of gg-to-nvvm kernels to NVVM, then gg-nvvm-abi",
     expand_nvvm_lowering},
    {"gg-nvvm-binary", "NVVM kernels to PTX for sm_90a (LLVM's NVPTX backend)",
     expand_nvvm_binary},
};

const gg_named_pipeline* gg_named_pipeline_lookup(const char* argument) {
  for (size_t i = 0; i < gg_named_pipeline_count(); ++i)
    if (strcmp(pipelines[i].argument, argument) == 0) return &pipelines[i];
  return NULL;
}

size_t gg_named_pipeline_count(void) { return sizeof pipelines / sizeof pipelines[0]; }
const gg_named_pipeline* gg_named_pipeline_at(size_t index) { return &pipelines[index]; }

// ---------------------------------------------------------------------------------------
// The parser.

typedef struct span {
  const char* begin;
  const char* end;
} span;

static span trim(span s) {
  while (s.begin < s.end && (*s.begin == ' ' || *s.begin == '\n' || *s.begin == '\t')) ++s.begin;
  while (s.end > s.begin && (s.end[-1] == ' ' || s.end[-1] == '\n' || s.end[-1] == '\t')) --s.end;
  return s;
}

static char* span_dup(span s) {
  size_t n = (size_t)(s.end - s.begin);
  char* copy = malloc(n + 1);
  if (copy) {
    memcpy(copy, s.begin, n);
    copy[n] = 0;
  }
  return copy;
}

// The end of the top-level element starting at p: the next comma outside brackets/quotes.
static const char* element_end(const char* p, const char* end, gg_status* status) {
  int depth = 0;
  char quote = 0;
  for (; p < end; ++p) {
    char c = *p;
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '{') {
      ++depth;
    } else if (c == ')' || c == '}') {
      if (--depth < 0) break;
    } else if (c == ',' && depth == 0) {
      return p;
    }
  }
  if (depth != 0 || quote)
    *status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unbalanced brackets in pipeline");
  return end;
}

typedef struct error_text {
  char text[1024];
  size_t length;
} error_text;

static void collect_error(MlirStringRef piece, void* user_data) {
  error_text* e = user_data;
  size_t room = sizeof e->text - 1 - e->length;
  size_t n = piece.length < room ? piece.length : room;
  memcpy(e->text + e->length, piece.data, n);
  e->length += n;
  e->text[e->length] = 0;
}

// Where a walk over a pipeline stops: after the first element named stop_after (NULL:
// never), at any nesting depth.
typedef struct pipeline_walk {
  const char* stop_after;
  bool reached;
} pipeline_walk;

static gg_status add_range(MlirOpPassManager pm, const char* anchor, span text, int depth,
                           pipeline_walk* walk);

static gg_status add_gg_pass(MlirOpPassManager pm, const char* anchor, const gg_pass_info* info,
                             const char* options) {
  MlirOpPassManager target = pm;
  if (strcmp(info->anchor, anchor) != 0) {
    if (strcmp(anchor, "builtin.module") != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s runs on %s, not on %s",
                            info->argument, info->anchor, anchor);
    target = mlirOpPassManagerGetNestedUnder(pm, gg_str(info->anchor));
  }
  MlirPass pass;
  GG_RETURN_IF_ERROR(gg_pass_create(info, options, &pass));
  mlirOpPassManagerAddOwnedPass(target, pass);
  return GG_OK;
}

static gg_status add_element_named(MlirOpPassManager pm, const char* anchor, span element,
                                   const char* name, const char* p, int depth,
                                   pipeline_walk* walk);

static gg_status add_element(MlirOpPassManager pm, const char* anchor, span element, int depth,
                             pipeline_walk* walk) {
  const char* p = element.begin;
  while (p < element.end && *p != '{' && *p != '(') ++p;
  span name_span = trim((span){element.begin, p});
  char name[128];
  size_t name_length = (size_t)(name_span.end - name_span.begin);
  if (name_length == 0 || name_length >= sizeof name)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "empty or overlong pass name in pipeline");
  memcpy(name, name_span.begin, name_length);
  name[name_length] = 0;
  GG_RETURN_IF_ERROR(add_element_named(pm, anchor, element, name, p, depth, walk));
  if (walk->stop_after && strcmp(name, walk->stop_after) == 0) walk->reached = true;
  return GG_OK;
}

// Adds one element whose name has been read; p points past the name.
static gg_status add_element_named(MlirOpPassManager pm, const char* anchor, span element,
                                   const char* name, const char* p, int depth,
                                   pipeline_walk* walk) {
  if (p < element.end && *p == '(') {  // op-name(pipeline): a nested pass manager
    if (element.end[-1] != ')')
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "expected ')' closing '%s('", name);
    MlirOpPassManager nested = mlirOpPassManagerGetNestedUnder(pm, gg_str(name));
    return add_range(nested, name, (span){p + 1, element.end - 1}, depth + 1, walk);
  }

  char options[2048] = "";
  if (p < element.end) {  // {options}
    if (element.end[-1] != '}')
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "expected '}' closing options of '%s'",
                            name);
    size_t n = (size_t)(element.end - 1 - (p + 1));
    if (n >= sizeof options)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "options of '%s' too long", name);
    memcpy(options, p + 1, n);
    options[n] = 0;
  }

  const gg_pass_info* info = gg_pass_lookup(name);
  if (info) return add_gg_pass(pm, anchor, info, options);

  const gg_named_pipeline* named = gg_named_pipeline_lookup(name);
  if (named) {
    char expansion[8192];
    GG_RETURN_IF_ERROR(named->expand(options, expansion, sizeof expansion));
    return add_range(pm, anchor, (span){expansion, expansion + strlen(expansion)}, depth + 1,
                     walk);
  }

  // Anything else is MLIR's own.
  char* upstream = span_dup(element);
  if (!upstream) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  error_text error = {{0}, 0};
  MlirLogicalResult result = mlirOpPassManagerAddPipeline(pm, gg_str(upstream), collect_error, &error);
  gg_status status = GG_OK;
  if (mlirLogicalResultIsFailure(result))
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s",
                            error.length ? error.text : "invalid pipeline element");
  free(upstream);
  return status;
}

static gg_status add_range(MlirOpPassManager pm, const char* anchor, span text, int depth,
                           pipeline_walk* walk) {
  if (depth > 16)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "pipeline nests too deeply");
  text = trim(text);
  static const char module_prefix[] = "builtin.module(";
  size_t prefix = sizeof module_prefix - 1;
  if (strcmp(anchor, "builtin.module") == 0 && (size_t)(text.end - text.begin) > prefix &&
      memcmp(text.begin, module_prefix, prefix) == 0 && text.end[-1] == ')') {
    span inner = {text.begin + prefix, text.end - 1};
    gg_status status = GG_OK;
    if (element_end(inner.begin, inner.end, &status) <= inner.end && !status &&
        element_end(text.begin, text.end, &status) == text.end && !status)
      return add_range(pm, anchor, inner, depth + 1, walk);
    gg_status_free(status);
  }
  const char* p = text.begin;
  while (p < text.end && !walk->reached) {
    gg_status status = GG_OK;
    const char* end = element_end(p, text.end, &status);
    if (status) return status;
    span element = trim((span){p, end});
    if (element.begin == element.end)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "empty element in pipeline");
    GG_RETURN_IF_ERROR(add_element(pm, anchor, element, depth, walk));
    p = end < text.end ? end + 1 : end;
  }
  return GG_OK;
}

gg_status gg_pipeline_add(MlirOpPassManager pm, const char* anchor, const char* text) {
  return gg_pipeline_add_until(pm, anchor, text, NULL);
}

gg_status gg_pipeline_add_until(MlirOpPassManager pm, const char* anchor, const char* text,
                                const char* stop_after) {
  pipeline_walk walk = {stop_after, false};
  GG_RETURN_IF_ERROR(add_range(pm, anchor, (span){text, text + strlen(text)}, 0, &walk));
  if (stop_after && !walk.reached)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "no pass or pipeline '%s' in '%s'",
                          stop_after, text);
  return GG_OK;
}
