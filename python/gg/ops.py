"""gg's operators as torch custom ops, torch.ops.gg.*, with the upstream (torch.ops.mslk.*)
schemas: a caller swaps the namespace and nothing else.

Every launch goes through gg_grouped_gemm: CPU tensors run on the host target and return
when the output is written; CUDA tensors are enqueued on torch's current stream of their
device, never synchronising and never reading group metadata on the host, so they are
captured by torch.cuda.CUDAGraph. Outputs come from torch's allocator. Each op has a fake
(meta) kernel, so torch.compile(fullgraph=True) traces through it.
"""

import ctypes

import torch
import torch.utils.dlpack

from . import _capi

_FP8_DTYPES = (torch.float8_e4m3fn, torch.float8_e4m3fnuz)

# name -> (schema, layout (None: by the ranks, mm), scaling, B layout)
_OPS = {}


def _register(name, schema, layout, scaling, b_layout):
    _OPS[name] = (schema, layout, scaling, b_layout)


_STACKED = "(Tensor XQ, Tensor WQ, Tensor x_scale, Tensor w_scale, Tensor M_sizes) -> Tensor"
_DYNAMIC = (
    "(Tensor XQ, Tensor WQ, Tensor x_scale, Tensor w_scale, Tensor zero_start_index_M, "
    "bool zeroing_output_tensor=True) -> Tensor"
)
_MM = "(Tensor XQ, Tensor WQ, Tensor x_scale, Tensor w_scale, Tensor? offsets, Tensor(a!) output) -> Tensor"

for _suffix, _b in (("", _capi.B_PLAIN), ("_preshuffle", _capi.B_PRESHUFFLED)):
    _register("f8f8bf16_rowwise_grouped_stacked" + _suffix, _STACKED, _capi.LAYOUT_SIZES, _capi.SCALING_ROWWISE, _b)
    _register("f8f8bf16_rowwise_grouped_dynamic" + _suffix, _DYNAMIC, _capi.LAYOUT_PADDED, _capi.SCALING_ROWWISE, _b)
    _register("f8f8bf16_rowwise_grouped_mm" + _suffix, _MM, None, _capi.SCALING_ROWWISE, _b)
    _register("f8f8bf16_groupwise_grouped" + _suffix, _STACKED, _capi.LAYOUT_SIZES, _capi.SCALING_BLOCKWISE, _b)


# ---------------------------------------------------------------------------------------
# Launching.

# How sm_90a kernels sum FP8 products (include/gg/op.h, gg_accum); the upstream schemas
# have no argument for it. "promoted" (default) or "fast" (like use_fast_accum=True).
_accum = {"value": _capi.ACCUM_PROMOTED}


def set_accumulation(mode):
    """Sets how CUDA (sm_90a) launches accumulate: "promoted" (default) or "fast"."""
    modes = {"promoted": _capi.ACCUM_PROMOTED, "fast": _capi.ACCUM_FAST}
    if mode not in modes:
        raise ValueError("accumulation must be 'promoted' or 'fast', got %r" % (mode,))
    _accum["value"] = modes[mode]


def _dl(tensor, keep):
    """The DLTensor* of a tensor (zero-copy), kept alive by `keep` until the call returns."""
    if tensor is None:
        return None
    capsule = torch.utils.dlpack.to_dlpack(tensor)
    keep.append(capsule)
    return _capi._capsule_pointer(capsule, b"dltensor")


def _launch_options(tensors):
    """gg_launch_options for the tensors' device: torch's current stream on CUDA; None on
    the host, which runs to completion."""
    device = next((t.device for t in tensors if t is not None and t.device.type != "cpu"), None)
    if device is None:
        return None
    if torch.version.hip is not None:
        # A HIP stream is not an HSA queue: gg launches on its context's own queue and
        # returns when done, after the work already on torch's stream (untested here).
        torch.cuda.current_stream(device).synchronize()
        return None
    options = _capi.LaunchOptions()
    options.stream = torch.cuda.current_stream(device).cuda_stream
    return options


def _run(layout, scaling, b_layout, XQ, WQ, x_scale, w_scale, meta, out, zeroing=0):
    keep = []
    operands = [_dl(t, keep) for t in (XQ, WQ, x_scale, w_scale, meta, out)]
    if layout is None:
        chosen = ctypes.c_int()
        _capi.check(_capi.lib.gg_mm_layout(operands[0], operands[1], operands[4], ctypes.byref(chosen)))
        layout = chosen.value
    call = _capi.GroupedGemmCall()
    call.layout, call.scaling, call.b_layout = layout, scaling, b_layout
    for i, p in enumerate(operands):
        call.operands[i] = p
    call.zeroing = 1 if zeroing else 0
    call.accum = _accum["value"]
    options = _launch_options((XQ, WQ, out))
    if options is not None:
        call.launch = ctypes.pointer(options)
    _capi.check(_capi.lib.gg_grouped_gemm(_capi.context(), ctypes.byref(call)))
    del keep


def _stacked_shape(XQ, WQ):
    """[total_M, N], or None where the ranks are wrong (gg then refuses the call, naming
    the rule)."""
    return (XQ.shape[0], WQ.shape[1]) if XQ.dim() == 2 and WQ.dim() == 3 else None


def _dynamic_shape(XQ, WQ):
    """[G, M, N], or None where the ranks are wrong."""
    return (XQ.shape[0], XQ.shape[1], WQ.shape[1]) if XQ.dim() == 3 and WQ.dim() == 3 else None


def _output(shape, XQ):
    # Where the ranks are wrong gg refuses the call before it looks at the output.
    return torch.empty(shape if shape is not None else (0,), dtype=torch.bfloat16, device=XQ.device)


def _fake_output(shape, XQ, WQ):
    if shape is None:
        raise _capi.ContractError(
            "invalid argument", "rank: XQ is %dD and WQ %dD, which this op does not take" % (XQ.dim(), WQ.dim())
        )
    return XQ.new_empty(shape, dtype=torch.bfloat16)


def _make_stacked(layout, scaling, b_layout):
    def impl(XQ, WQ, x_scale, w_scale, M_sizes):
        out = _output(_stacked_shape(XQ, WQ), XQ)
        _run(layout, scaling, b_layout, XQ, WQ, x_scale, w_scale, M_sizes, out)
        return out

    def fake(XQ, WQ, x_scale, w_scale, M_sizes):
        return _fake_output(_stacked_shape(XQ, WQ), XQ, WQ)

    return impl, fake


def _make_dynamic(layout, scaling, b_layout):
    def impl(XQ, WQ, x_scale, w_scale, zero_start_index_M, zeroing_output_tensor=True):
        out = _output(_dynamic_shape(XQ, WQ), XQ)
        _run(layout, scaling, b_layout, XQ, WQ, x_scale, w_scale, zero_start_index_M, out,
             zeroing=zeroing_output_tensor)
        return out

    def fake(XQ, WQ, x_scale, w_scale, zero_start_index_M, zeroing_output_tensor=True):
        return _fake_output(_dynamic_shape(XQ, WQ), XQ, WQ)

    return impl, fake


def _make_mm(layout, scaling, b_layout):
    # Upstream writes `output` in place and returns it.
    def impl(XQ, WQ, x_scale, w_scale, offsets, output):
        _run(layout, scaling, b_layout, XQ, WQ, x_scale, w_scale, offsets, output)
        return output

    def fake(XQ, WQ, x_scale, w_scale, offsets, output):
        return output

    return impl, fake


_MAKERS = {_STACKED: _make_stacked, _DYNAMIC: _make_dynamic, _MM: _make_mm}

_library = torch.library.Library("gg", "DEF")

for _name, (_schema, _layout, _scaling, _b_layout) in _OPS.items():
    _library.define(_name + _schema)
    _impl, _fake = _MAKERS[_schema](_layout, _scaling, _b_layout)
    _library.impl(_name, _impl, "CPU")
    _library.impl(_name, _impl, "CUDA")
    torch.library.register_fake("gg::" + _name, _fake, lib=_library)


# ---------------------------------------------------------------------------------------
# preshuffle_b / unshuffle_b: the MFMA B-preshuffle (include/gg/gg.h): [N, K] or [G, N, K]
# FP8, read as (N0, 16, K0, 4, 16) and written as (N0, K0, 4, 16, 16). On the CPU gg's own
# gg_preshuffle_b does it (and checks it); on a GPU the same permutation in torch, on the
# current stream.

_library.define("preshuffle_b(Tensor WQ) -> Tensor")
_library.define("unshuffle_b(Tensor WQ) -> Tensor")


def _shuffle_check(WQ):
    if WQ.dim() not in (2, 3) or WQ.dtype not in _FP8_DTYPES:
        raise _capi.ContractError(
            "invalid argument",
            "preshuffle: WQ must be an FP8 [N, K] or [G, N, K] tensor, got %s %s" % (WQ.dtype, list(WQ.shape)),
        )
    n, k = WQ.shape[-2], WQ.shape[-1]
    if n % 16 or k % 64:
        raise _capi.ContractError(
            "invalid argument",
            "preshuffle: N must be a multiple of 16 and K of 64, got N=%d K=%d" % (n, k),
        )


def _shuffle_torch(WQ, inverse):
    *lead, n, k = WQ.shape
    plain = (*lead, n // 16, 16, k // 64, 4, 16)
    shuffled = (*lead, n // 16, k // 64, 4, 16, 16)
    r = len(lead)
    if inverse:
        perm = list(range(r)) + [r, r + 3, r + 1, r + 2, r + 4]
        return WQ.reshape(shuffled).permute(perm).contiguous().reshape(WQ.shape)
    perm = list(range(r)) + [r, r + 2, r + 3, r + 1, r + 4]
    return WQ.reshape(plain).permute(perm).contiguous().reshape(WQ.shape)


def _make_shuffle(inverse):
    c_function = _capi.lib.gg_unshuffle_b if inverse else _capi.lib.gg_preshuffle_b

    def impl_cpu(WQ):  # gg checks the tensor and names what is wrong
        src = WQ.contiguous()
        dst = torch.empty_like(src)
        keep = []
        _capi.check(c_function(_dl(src, keep), _dl(dst, keep)))
        return dst

    def impl_gpu(WQ):
        _shuffle_check(WQ)
        return _shuffle_torch(WQ, inverse)

    def fake(WQ):
        _shuffle_check(WQ)
        return torch.empty_like(WQ, memory_format=torch.contiguous_format)

    return impl_cpu, impl_gpu, fake


for _name, _inverse in (("preshuffle_b", False), ("unshuffle_b", True)):
    _cpu, _gpu, _fake = _make_shuffle(_inverse)
    _library.impl(_name, _cpu, "CPU")
    _library.impl(_name, _gpu, "CUDA")
    torch.library.register_fake("gg::" + _name, _fake, lib=_library)

OPS = tuple(_OPS) + ("preshuffle_b", "unshuffle_b")
