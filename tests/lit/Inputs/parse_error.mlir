// Not a valid operation on line 3.
func.func @f() {
  %x = arith.constant : index
  return
}
