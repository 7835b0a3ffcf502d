// MLIR C API helpers shared by the dialect, the passes and the drivers.
#include "ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

MlirStringRef gg_str(const char* s) { return mlirStringRefCreateFromCString(s); }

// ---------------------------------------------------------------------------------------
// Text of MLIR objects.

void gg_text_callback(MlirStringRef piece, void* user_data) {
  gg_text_append(user_data, piece.data, piece.length);
}

void gg_text_type(gg_text* text, MlirType type) { mlirTypePrint(type, gg_text_callback, text); }

void gg_text_attribute(gg_text* text, MlirAttribute attribute) {
  mlirAttributePrint(attribute, gg_text_callback, text);
}

void gg_text_operation(gg_text* text, MlirOperation op) {
  mlirOperationPrint(op, gg_text_callback, text);
}

// ---------------------------------------------------------------------------------------
// Attributes.

static MlirAttribute get_attr(MlirOperation op, const char* name) {
  return mlirOperationGetDiscardableAttributeByName(op, gg_str(name));
}

bool gg_attr_int(MlirOperation op, const char* name, int64_t* value) {
  MlirAttribute a = get_attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return false;
  *value = mlirIntegerAttrGetValueSInt(a);
  return true;
}

bool gg_attr_bool(MlirOperation op, const char* name, bool* value) {
  MlirAttribute a = get_attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsABool(a)) return false;
  *value = mlirBoolAttrGetValue(a);
  return true;
}

bool gg_attr_string(MlirOperation op, const char* name, char* buffer, size_t size) {
  MlirAttribute a = get_attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a)) return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  if (s.length + 1 > size) return false;
  memcpy(buffer, s.data, s.length);
  buffer[s.length] = 0;
  return true;
}

void gg_set_attr_int(MlirOperation op, const char* name, int64_t value) {
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, gg_str(name), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value));
}

void gg_set_attr_bool(MlirOperation op, const char* name, bool value) {
  mlirOperationSetDiscardableAttributeByName(
      op, gg_str(name), mlirBoolAttrGet(mlirOperationGetContext(op), value));
}

void gg_set_attr_string(MlirOperation op, const char* name, const char* value) {
  mlirOperationSetDiscardableAttributeByName(
      op, gg_str(name), mlirStringAttrGet(mlirOperationGetContext(op), gg_str(value)));
}

bool gg_op_is(MlirOperation op, const char* name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return strlen(name) == s.length && memcmp(name, s.data, s.length) == 0;
}

// ---------------------------------------------------------------------------------------
// Lists and maps.

static void* grow(void* data, size_t* capacity, size_t count, size_t element) {
  if (count < *capacity) return data;
  size_t next = *capacity ? *capacity * 2 : 16;
  void* grown = realloc(data, next * element);
  if (!grown) {
    fprintf(stderr, "gg: out of memory\n");
    exit(70);  // no sensible recovery inside a pass; the process cannot continue
  }
  *capacity = next;
  return grown;
}

void gg_op_list_push(gg_op_list* list, MlirOperation op) {
  list->ops = grow(list->ops, &list->capacity, list->count, sizeof *list->ops);
  list->ops[list->count++] = op;
}

void gg_op_list_free(gg_op_list* list) {
  free(list->ops);
  memset(list, 0, sizeof *list);
}

typedef struct collect_state {
  const char* name;
  gg_op_list* list;
} collect_state;

static MlirWalkResult collect_callback(MlirOperation op, void* user_data) {
  collect_state* state = user_data;
  if (!state->name || gg_op_is(op, state->name)) gg_op_list_push(state->list, op);
  return MlirWalkResultAdvance;
}

void gg_collect_ops(MlirOperation root, const char* name, gg_op_list* list) {
  collect_state state = {name, list};
  mlirOperationWalk(root, collect_callback, &state, MlirWalkPreOrder);
}

void gg_value_map_set(gg_value_map* map, MlirValue key, MlirValue value) {
  for (size_t i = 0; i < map->count; ++i)
    if (mlirValueEqual(map->keys[i], key)) {
      map->values[i] = value;
      return;
    }
  size_t capacity = map->capacity;
  map->keys = grow(map->keys, &capacity, map->count, sizeof *map->keys);
  capacity = map->capacity;
  map->values = grow(map->values, &capacity, map->count, sizeof *map->values);
  map->capacity = capacity;
  map->keys[map->count] = key;
  map->values[map->count] = value;
  map->count++;
}

bool gg_value_map_has(const gg_value_map* map, MlirValue key) {
  for (size_t i = 0; i < map->count; ++i)
    if (mlirValueEqual(map->keys[i], key)) return true;
  return false;
}

MlirValue gg_value_map_get(const gg_value_map* map, MlirValue key) {
  for (size_t i = 0; i < map->count; ++i)
    if (mlirValueEqual(map->keys[i], key)) return map->values[i];
  return key;
}

void gg_value_map_free(gg_value_map* map) {
  free(map->keys);
  free(map->values);
  memset(map, 0, sizeof *map);
}

static MlirWalkResult remap_operands(MlirOperation op, void* user_data) {
  gg_value_map* map = user_data;
  intptr_t n = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (gg_value_map_has(map, v)) mlirOperationSetOperand(op, i, gg_value_map_get(map, v));
  }
  return MlirWalkResultAdvance;
}

MlirOperation gg_clone_before(MlirOperation op, MlirOperation before, gg_value_map* map) {
  MlirOperation clone = mlirOperationClone(op);
  mlirOperationWalk(clone, remap_operands, map, MlirWalkPreOrder);
  MlirBlock block = mlirOperationGetBlock(before);
  mlirBlockInsertOwnedOperationBefore(block, before, clone);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    gg_value_map_set(map, mlirOperationGetResult(op, i), mlirOperationGetResult(clone, i));
  return clone;
}

intptr_t gg_value_use_count(MlirValue value) {
  intptr_t count = 0;
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    ++count;
  return count;
}

// ---------------------------------------------------------------------------------------
// Templates.

static MlirWalkResult set_location(MlirOperation op, void* user_data) {
  mlirOperationSetLocation(op, *(MlirLocation*)user_data);
  return MlirWalkResultAdvance;
}

bool gg_inline_template(MlirOperation before, const char* func_text, const MlirValue* args,
                        intptr_t arg_count, MlirValue* results, intptr_t result_count) {
  MlirContext ctx = mlirOperationGetContext(before);
  MlirOperation func = mlirOperationCreateParse(ctx, gg_str(func_text), gg_str("gg-template"));
  if (mlirOperationIsNull(func)) {
    gg_emit_error(before, "internal error: a gg lowering template does not parse:\n%s",
                  func_text);
    return false;
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockGetNumArguments(body) != arg_count) {
    gg_emit_error(before, "internal error: template takes %d arguments, given %d",
                  (int)mlirBlockGetNumArguments(body), (int)arg_count);
    mlirOperationDestroy(func);
    return false;
  }
  MlirOperation ret = mlirBlockGetTerminator(body);
  if (mlirOperationGetNumOperands(ret) != result_count) {
    gg_emit_error(before, "internal error: template returns %d values, expected %d",
                  (int)mlirOperationGetNumOperands(ret), (int)result_count);
    mlirOperationDestroy(func);
    return false;
  }
  for (intptr_t i = 0; i < arg_count; ++i)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, i), args[i]);
  for (intptr_t i = 0; i < result_count; ++i) results[i] = mlirOperationGetOperand(ret, i);
  MlirLocation loc = mlirOperationGetLocation(before);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, ret);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, before);
    mlirOperationWalk(op, set_location, &loc, MlirWalkPreOrder);
    op = next;
  }
  mlirOperationDestroy(func);
  return true;
}

bool gg_mlir_text_is_module(const char* text) {
  const char* p = text;
  for (;;) {
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') ++p;
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') ++p;
      continue;
    }
    break;
  }
  return strncmp(p, "module", 6) == 0;
}

void gg_emit_error(MlirOperation op, const char* format, ...) {
  char message[4096];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  mlirEmitError(mlirOperationGetLocation(op), message);
}

MlirOperation gg_entry_first_op(MlirOperation func) {
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  return mlirBlockGetFirstOperation(entry);
}
