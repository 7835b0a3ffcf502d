// Interval evaluation over arith, scf.for and gg.grid.
#include "passes/bounds.h"

#include "ir/ir.h"
#include "mlir-c/BuiltinAttributes.h"

static const gg_range unknown = {false, false, 0, 0};

static gg_range exact(int64_t v) {
  gg_range r = {true, true, v, v};
  return r;
}

static gg_range range_of(MlirValue value, int depth);

static bool add_ok(int64_t a, int64_t b, int64_t* r) { return !__builtin_add_overflow(a, b, r); }
static bool sub_ok(int64_t a, int64_t b, int64_t* r) { return !__builtin_sub_overflow(a, b, r); }
static bool mul_ok(int64_t a, int64_t b, int64_t* r) { return !__builtin_mul_overflow(a, b, r); }

static gg_range add_ranges(gg_range a, gg_range b) {
  gg_range r = unknown;
  r.has_lo = a.has_lo && b.has_lo && add_ok(a.lo, b.lo, &r.lo);
  r.has_hi = a.has_hi && b.has_hi && add_ok(a.hi, b.hi, &r.hi);
  return r;
}

static gg_range sub_ranges(gg_range a, gg_range b) {
  gg_range r = unknown;
  r.has_lo = a.has_lo && b.has_hi && sub_ok(a.lo, b.hi, &r.lo);
  r.has_hi = a.has_hi && b.has_lo && sub_ok(a.hi, b.lo, &r.hi);
  return r;
}

static gg_range mul_ranges(gg_range a, gg_range b) {
  if (!(a.has_lo && a.has_hi && b.has_lo && b.has_hi)) {
    // One side a non-negative constant keeps the other's known sides.
    gg_range c = a, x = b;
    if (!(c.has_lo && c.has_hi && c.lo == c.hi)) {
      c = b;
      x = a;
    }
    if (c.has_lo && c.has_hi && c.lo == c.hi && c.lo >= 0) {
      gg_range r = unknown;
      r.has_lo = x.has_lo && mul_ok(x.lo, c.lo, &r.lo);
      r.has_hi = x.has_hi && mul_ok(x.hi, c.lo, &r.hi);
      return r;
    }
    return unknown;
  }
  int64_t p[4];
  if (!mul_ok(a.lo, b.lo, &p[0]) || !mul_ok(a.lo, b.hi, &p[1]) || !mul_ok(a.hi, b.lo, &p[2]) ||
      !mul_ok(a.hi, b.hi, &p[3]))
    return unknown;
  gg_range r = {true, true, p[0], p[0]};
  for (int i = 1; i < 4; ++i) {
    if (p[i] < r.lo) r.lo = p[i];
    if (p[i] > r.hi) r.hi = p[i];
  }
  return r;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// Division by a positive constant is monotonic.
static gg_range div_ranges(gg_range a, gg_range b, int mode /* 0 trunc, 1 floor, 2 ceil */) {
  if (!(b.has_lo && b.has_hi && b.lo == b.hi && b.lo > 0)) return unknown;
  int64_t d = b.lo;
  gg_range r = unknown;
  if (a.has_lo) {
    r.has_lo = true;
    r.lo = mode == 2 ? ceil_div(a.lo, d) : mode == 1 ? floor_div(a.lo, d) : a.lo / d;
  }
  if (a.has_hi) {
    r.has_hi = true;
    r.hi = mode == 2 ? ceil_div(a.hi, d) : mode == 1 ? floor_div(a.hi, d) : a.hi / d;
  }
  return r;
}

static gg_range min_ranges(gg_range a, gg_range b) {
  gg_range r = unknown;
  r.has_lo = a.has_lo && b.has_lo;
  r.lo = a.lo < b.lo ? a.lo : b.lo;
  if (a.has_hi && b.has_hi) {
    r.has_hi = true;
    r.hi = a.hi < b.hi ? a.hi : b.hi;
  } else if (a.has_hi || b.has_hi) {
    r.has_hi = true;
    r.hi = a.has_hi ? a.hi : b.hi;
  }
  return r;
}

static gg_range max_ranges(gg_range a, gg_range b) {
  gg_range r = unknown;
  r.has_hi = a.has_hi && b.has_hi;
  r.hi = a.hi > b.hi ? a.hi : b.hi;
  if (a.has_lo && b.has_lo) {
    r.has_lo = true;
    r.lo = a.lo > b.lo ? a.lo : b.lo;
  } else if (a.has_lo || b.has_lo) {
    r.has_lo = true;
    r.lo = a.has_lo ? a.lo : b.lo;
  }
  return r;
}

static gg_range union_ranges(gg_range a, gg_range b) {
  gg_range r = unknown;
  r.has_lo = a.has_lo && b.has_lo;
  r.lo = a.lo < b.lo ? a.lo : b.lo;
  r.has_hi = a.has_hi && b.has_hi;
  r.hi = a.hi > b.hi ? a.hi : b.hi;
  return r;
}

static gg_range block_argument_range(MlirValue value, int depth) {
  MlirBlock block = mlirBlockArgumentGetOwner(value);
  MlirOperation parent = mlirBlockGetParentOperation(block);
  if (mlirOperationIsNull(parent)) return unknown;
  intptr_t index = mlirBlockArgumentGetArgNumber(value);
  if (gg_op_is(parent, "scf.for") && index == 0) {
    gg_range lb = range_of(mlirOperationGetOperand(parent, 0), depth + 1);
    gg_range ub = range_of(mlirOperationGetOperand(parent, 1), depth + 1);
    gg_range step = range_of(mlirOperationGetOperand(parent, 2), depth + 1);
    gg_range r = unknown;
    r.has_lo = lb.has_lo;
    r.lo = lb.lo;
    if (lb.has_lo && lb.has_hi && lb.lo == lb.hi && ub.has_hi && step.has_lo && step.has_hi &&
        step.lo == step.hi && step.lo > 0) {
      // The last value the induction variable takes: lb + floor((ub - 1 - lb) / step) step.
      r.has_hi = true;
      r.hi = ub.hi > lb.lo ? lb.lo + ((ub.hi - 1 - lb.lo) / step.lo) * step.lo : lb.lo;
    } else if (ub.has_hi) {
      r.has_hi = true;
      r.hi = ub.hi - 1;
    }
    return r;
  }
  if (gg_op_is(parent, "gg.grid") && index < 3) {
    gg_range extent = range_of(mlirOperationGetOperand(parent, index), depth + 1);
    gg_range r = {true, extent.has_hi, 0, extent.hi - 1};
    return r;
  }
  return unknown;
}

static gg_range range_of(MlirValue value, int depth) {
  if (depth > 48) return unknown;
  if (mlirValueIsABlockArgument(value)) return block_argument_range(value, depth);
  MlirOperation op = mlirOpResultGetOwner(value);
  if (gg_op_is(op, "arith.constant")) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, gg_str("value"));
    if (!mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a))
      return exact(mlirIntegerAttrGetValueSInt(a));
    return unknown;
  }
  if (gg_op_is(op, "memref.dim")) {
    gg_range r = {true, false, 0, 0};
    return r;
  }
  intptr_t n = mlirOperationGetNumOperands(op);
  if (gg_op_is(op, "arith.index_cast") || gg_op_is(op, "arith.index_castui"))
    return range_of(mlirOperationGetOperand(op, 0), depth + 1);
  if (gg_op_is(op, "arith.select") && n == 3)
    return union_ranges(range_of(mlirOperationGetOperand(op, 1), depth + 1),
                        range_of(mlirOperationGetOperand(op, 2), depth + 1));
  if (n != 2) return unknown;
  gg_range a = range_of(mlirOperationGetOperand(op, 0), depth + 1);
  gg_range b = range_of(mlirOperationGetOperand(op, 1), depth + 1);
  if (gg_op_is(op, "arith.addi")) return add_ranges(a, b);
  if (gg_op_is(op, "arith.subi")) return sub_ranges(a, b);
  if (gg_op_is(op, "arith.muli")) return mul_ranges(a, b);
  if (gg_op_is(op, "arith.minsi")) return min_ranges(a, b);
  if (gg_op_is(op, "arith.maxsi")) return max_ranges(a, b);
  if (gg_op_is(op, "arith.divsi")) return div_ranges(a, b, 0);
  if (gg_op_is(op, "arith.floordivsi")) return div_ranges(a, b, 1);
  if (gg_op_is(op, "arith.ceildivsi")) return div_ranges(a, b, 2);
  return unknown;
}

gg_range gg_value_range(MlirValue value) { return range_of(value, 0); }

bool gg_value_constant(MlirValue value, int64_t* constant) {
  gg_range r = gg_value_range(value);
  if (r.has_lo && r.has_hi && r.lo == r.hi) {
    *constant = r.lo;
    return true;
  }
  return false;
}
