"""What the binding's tests share: fresh random inputs for every op, the C reference
(tests/reference, through libgg_pyref.so) and an independent float64 PyTorch reference.

Inputs are drawn from a new seed every run (printed on failure by the tests); outputs the
ops write into (mm, dynamic without zeroing) are poisoned first with the bf16 pattern
the C tests use, so an element left unwritten or written where it must not be is seen.
"""

import ctypes
import os

import torch

import gg
from gg import _capi

DEVICE = torch.device(os.environ.get("GG_TEST_DEVICE", "cpu"))
FP8 = torch.float8_e4m3fn
POISON_BF16 = 0x7FA5  # GG_POISON_BF16

_ref = ctypes.CDLL(os.environ["GG_PYREF_LIBRARY"])
_ref.gg_pyref_run.restype = ctypes.c_int64
_ref.gg_pyref_run.argtypes = [ctypes.c_int] * 6 + [ctypes.c_int64] * 4 + [
    ctypes.c_int,
    ctypes.c_void_p * 6,
    ctypes.c_void_p,
    ctypes.c_void_p,
]
_ref.gg_pyref_compare.restype = ctypes.c_double
_ref.gg_pyref_compare.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64, ctypes.c_int, ctypes.c_int64 * 4]

TARGET_HOST, TARGET_SM90A = 0, 3


def fp8(shape, gen):
    """Every finite e4m3fn code, uniformly (0x7F and 0xFF are NaN)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    codes = torch.randint(0, 256, shape, dtype=torch.uint8, generator=gen)
    codes[(codes & 0x7F) == 0x7F] = 0x3C  # 1.5
    return codes.view(FP8)


def scales(shape, gen):
    """Positive scales in [2^-4, 2^2), as the C tests draw them."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    unit = torch.rand(shape, generator=gen, dtype=torch.float64)
    exp = torch.randint(-4, 2, shape, generator=gen).double()
    return ((1.0 + unit) * torch.pow(2.0, exp)).float()


def poisoned(shape):
    return torch.full(shape, POISON_BF16, dtype=torch.int16).view(torch.bfloat16)


def to_device(*tensors):
    return [None if t is None else t.to(DEVICE) for t in tensors]


def c_reference(layout, scaling, b_layout, n, k, g, m, operands, out_shape, zeroing=0, start=None):
    """The C reference's output (bf16, on the CPU) and accumulation bound (for the target
    DEVICE runs on: host, or sm_90a promoted), over CPU copies of operands (XQ, WQ,
    x_scale, w_scale, meta); `start` is the output it starts from (default poison)."""
    host = [None if t is None else t.detach().cpu().contiguous() for t in operands]
    out = (start.detach().cpu().clone() if start is not None else poisoned(out_shape)).contiguous()
    bound = torch.zeros(out.numel(), dtype=torch.float64)
    buffers = (ctypes.c_void_p * 6)(*[None if t is None else t.data_ptr() for t in host] + [out.data_ptr()])
    target = TARGET_SM90A if DEVICE.type == "cuda" else TARGET_HOST
    count = _ref.gg_pyref_run(layout, scaling, b_layout, 0, target, 0, n, k, g, m, zeroing, buffers,
                              out.data_ptr(), bound.data_ptr())
    assert count == out.numel(), "the C reference's output has %d elements, not %d" % (count, out.numel())
    return out, bound.view(out.shape)


def compare_c(got, want, bound, exact=False):
    """gg_compare_outputs over bf16 outputs; returns (mismatches, unwritten, clobbered,
    first_bad, max_abs_err)."""
    got = got.detach().cpu().contiguous()
    counts = (ctypes.c_int64 * 4)()
    err = _ref.gg_pyref_compare(got.data_ptr(), want.data_ptr(), bound.data_ptr(), got.numel(), int(exact), counts)
    return tuple(counts) + (err,)


def assert_matches_c(got, want, bound):
    mismatches, unwritten, clobbered, first_bad, err = compare_c(got, want, bound)
    assert (mismatches, unwritten, clobbered) == (0, 0, 0), (
        "against the C reference: %d mismatches, %d unwritten, %d clobbered (first at %d), max_abs_err %g"
        % (mismatches, unwritten, clobbered, first_bad, err)
    )


def assert_close_f64(got, want, bound):
    """gg's bf16 output against a float64 result: one bf16 rounding (2^-8 relative) plus
    the accumulation bound of the target (from the C reference's model)."""
    got = got.detach().cpu().double()
    tol = want.abs() * 2.0**-8 + bound + 2.0**-133
    bad = (got - want).abs() > tol
    assert not bool(bad.any()), "against float64: %d of %d off, worst %g" % (
        int(bad.sum()), bad.numel(), float(((got - want).abs() - tol).max()))


__all__ = ["gg", "_capi"]
