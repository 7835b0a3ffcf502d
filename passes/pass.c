// Wrapping a gg_pass_info into an MLIR external pass.
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "passes/pass.h"

// Each pass instance owns a copy of its options; clones (one per worker thread when the
// context is multithreaded) copy them, and nothing else is shared.
typedef struct pass_state {
  const gg_pass_info* info;
  unsigned char options[];
} pass_state;

static pass_state* state_new(const gg_pass_info* info, const void* options) {
  pass_state* state = malloc(sizeof *state + info->options_size);
  if (!state) return NULL;
  state->info = info;
  if (info->options_size) memcpy(state->options, options, info->options_size);
  return state;
}

static void noop_construct(void* user_data) { (void)user_data; }
static void state_destruct(void* user_data) { free(user_data); }

static void* state_clone(void* user_data) {
  pass_state* state = user_data;
  pass_state* copy = state_new(state->info, state->options);
  if (!copy) abort();  // MLIR gives a failed clone no way back; out of memory is fatal here
  return copy;
}

static void state_run(MlirOperation op, MlirExternalPass pass, void* user_data) {
  pass_state* state = user_data;
  if (!state->info->run(op, state->options)) mlirExternalPassSignalFailure(pass);
}

gg_status gg_pass_create(const gg_pass_info* info, const char* option_text, MlirPass* pass) {
  unsigned char options[2048] = {0};
  if (info->options_size > sizeof options)
    return gg_status_make(GG_STATUS_INTERNAL, "%s: options too large", info->argument);
  if (option_text && *option_text) {
    if (!info->parse_options)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s takes no options, given '%s'",
                            info->argument, option_text);
  }
  if (info->parse_options)
    GG_RETURN_IF_ERROR(gg_status_annotate(info->parse_options(option_text ? option_text : "", options),
                                          "%s", info->argument));
  pass_state* state = state_new(info, options);
  if (!state) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  MlirDialectHandle dialects[GG_DIALECT_DEPENDENCIES];
  intptr_t dialect_count = gg_dialect_dependencies(dialects);
  MlirExternalPassCallbacks callbacks = {noop_construct, state_destruct, NULL, state_clone,
                                         state_run};
  // The pass's type id is the address of its (static, unique) description.
  *pass = mlirCreateExternalPass(mlirTypeIDCreate(info), gg_str(info->argument),
                                 gg_str(info->argument), gg_str(info->summary),
                                 gg_str(info->anchor), dialect_count, dialects, callbacks,
                                 state);
  return GG_OK;
}

bool gg_option_next(const char** cursor, gg_option* option, gg_status* status) {
  const char* p = *cursor;
  while (*p == ' ' || *p == ',') ++p;
  if (!*p) return false;
  const char* end = p;
  while (*end && *end != ',' && *end != ' ') ++end;
  const char* eq = memchr(p, '=', (size_t)(end - p));
  size_t key_length = eq ? (size_t)(eq - p) : (size_t)(end - p);
  size_t value_length = eq ? (size_t)(end - eq - 1) : 0;
  if (!eq || key_length == 0 || key_length >= sizeof option->key ||
      value_length >= sizeof option->value) {
    *status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "malformed option '%.*s' (want key=value)",
                             (int)(end - p), p);
    return false;
  }
  memcpy(option->key, p, key_length);
  option->key[key_length] = 0;
  memcpy(option->value, eq + 1, value_length);
  option->value[value_length] = 0;
  *cursor = end;
  return true;
}
