// Small helpers over the MLIR C API that every pass uses: growable text, attribute
// access, op collection, value maps, and text templates inlined in place of an op.
#ifndef GG_IR_IR_H_
#define GG_IR_IR_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "runtime/text.h"

#ifdef __cplusplus
extern "C" {
#endif

MlirStringRef gg_str(const char* s);

// ---------------------------------------------------------------------------------------
// Text (runtime/text.h) of MLIR objects.
void gg_text_type(gg_text* text, MlirType type);
void gg_text_attribute(gg_text* text, MlirAttribute attribute);
void gg_text_operation(gg_text* text, MlirOperation op);
// MlirStringCallback that appends to a gg_text passed as user data.
void gg_text_callback(MlirStringRef piece, void* user_data);

// ---------------------------------------------------------------------------------------
// Attributes (gg ops are IRDL ops: their attributes are discardable, never inherent).
bool gg_attr_int(MlirOperation op, const char* name, int64_t* value);
bool gg_attr_bool(MlirOperation op, const char* name, bool* value);
// Copies a string attribute into buffer; false when absent or not a string.
bool gg_attr_string(MlirOperation op, const char* name, char* buffer, size_t size);
void gg_set_attr_int(MlirOperation op, const char* name, int64_t value);
void gg_set_attr_bool(MlirOperation op, const char* name, bool value);
void gg_set_attr_string(MlirOperation op, const char* name, const char* value);

bool gg_op_is(MlirOperation op, const char* name);

// ---------------------------------------------------------------------------------------
// Lists of operations and values.
typedef struct gg_op_list {
  MlirOperation* ops;
  size_t count;
  size_t capacity;
} gg_op_list;

void gg_op_list_push(gg_op_list* list, MlirOperation op);
void gg_op_list_free(gg_op_list* list);
// Appends every op named `name` (NULL: every op) under root, in pre-order, root included.
void gg_collect_ops(MlirOperation root, const char* name, gg_op_list* list);

// A map from values to values (linear; the maps here hold tens of entries).
typedef struct gg_value_map {
  MlirValue* keys;
  MlirValue* values;
  size_t count;
  size_t capacity;
} gg_value_map;

void gg_value_map_set(gg_value_map* map, MlirValue key, MlirValue value);
// The mapped value, or key itself when unmapped.
MlirValue gg_value_map_get(const gg_value_map* map, MlirValue key);
bool gg_value_map_has(const gg_value_map* map, MlirValue key);
void gg_value_map_free(gg_value_map* map);

// Clones `op` before `before`, rewriting operands (also of ops nested in its regions)
// through map, and maps the clone's results from the original's.
MlirOperation gg_clone_before(MlirOperation op, MlirOperation before, gg_value_map* map);

// Number of uses of a value.
intptr_t gg_value_use_count(MlirValue value);

// ---------------------------------------------------------------------------------------
// Text templates. `func_text` is one `func.func` whose arguments stand for args[0..n)
// and whose `return` operands become results[0..m). Its body is moved in front of
// `before`, every moved op taking `before`'s location. Returns false (with a diagnostic
// through the context's handler) when the text does not parse, a bug in the caller.
bool gg_inline_template(MlirOperation before, const char* func_text, const MlirValue* args,
                        intptr_t arg_count, MlirValue* results, intptr_t result_count);

// True when the first token of MLIR text that is not a comment is `module` (text without
// it holds top-level ops that a parser wraps in a module).
bool gg_mlir_text_is_module(const char* text);

// Emits an error at the op's location (through the context's diagnostic handlers).
void gg_emit_error(MlirOperation op, const char* format, ...) __attribute__((format(printf, 2, 3)));

// The first operation of the entry block of a func-like op's body.
MlirOperation gg_entry_first_op(MlirOperation func);

#ifdef __cplusplus
}
#endif

#endif  // GG_IR_IR_H_
