"""Contract errors arrive as gg.ContractError (a ValueError) carrying gg's own message, and
a refused call writes nothing."""

import pytest
import torch

import gg
from support import DEVICE, fp8, poisoned, scales, to_device

G, N, K = 3, 256, 256
OPS = torch.ops.gg


@pytest.fixture
def inputs():
    gen = torch.Generator().manual_seed(torch.randint(0, 2**62, (1,)).item())
    total = 16
    return dict(
        XQ=fp8((total, K), gen), WQ=fp8((G, N, K), gen), xs=scales(total, gen), ws=scales((G, N), gen),
        M=torch.tensor([5, 0, 11], dtype=torch.int64), total=total)


def stacked(XQ, WQ, xs, ws, M):
    return OPS.f8f8bf16_rowwise_grouped_stacked(*to_device(XQ, WQ, xs, ws, M))


@pytest.mark.parametrize("case, message", [
    ("short K", r"shape: WQ is \[3, 256, 128\], expected \[3, 256, 256\]"),
    ("int32 sizes", "dtype: M_sizes must be int64, not int32"),
    ("fp16 XQ", "dtype: XQ must be float8_e4m3fn or float8_e4m3fnuz"),
    ("mixed flavours", "dtype: WQ is float8_e4m3fnuz but XQ is float8_e4m3fn"),
    ("transposed XQ", r"layout: XQ must be contiguous \(row-major without gaps\)"),
    ("float64 scale", "dtype: x_scale must be float32"),
    ("3D XQ", "rank: XQ must be 2D, not 3D"),
])
def test_stacked_contract(inputs, case, message):
    XQ, WQ, xs, ws, M = inputs["XQ"], inputs["WQ"], inputs["xs"], inputs["ws"], inputs["M"]
    args = {
        "short K": (XQ, WQ[:, :, :128].contiguous(), xs, ws, M),
        "int32 sizes": (XQ, WQ, xs, ws, M.int()),
        "fp16 XQ": (XQ.view(torch.uint8).half(), WQ, xs, ws, M),
        "mixed flavours": (XQ, WQ.view(torch.float8_e4m3fnuz), xs, ws, M),
        "transposed XQ": (XQ.view(torch.uint8).T.contiguous().T.view(torch.float8_e4m3fn), WQ, xs, ws, M),
        "float64 scale": (XQ, WQ, xs.double(), ws, M),
        "3D XQ": (XQ[None], WQ, xs, ws, M),
    }[case]
    with pytest.raises(gg.ContractError, match=message) as info:
        stacked(*args)
    assert isinstance(info.value, ValueError) and info.value.code == "invalid argument"


@pytest.mark.parametrize("case, message", [
    ("1D XQ", "rank: XQ is 1D and WQ 3D; the inputs must be one of 2D-2D, 3D-3D, 2D-3D, 3D-2D"),
    ("no offsets", "offsets is NULL; it is required when XQ or WQ is 2D"),
    ("wrong out", r"shape: out is \[16, 257\], expected \[16, 256\]"),
    ("float32 out", "dtype: out must be bfloat16, not float32"),
])
def test_mm_contract_writes_nothing(inputs, case, message):
    XQ, WQ, xs, ws, M, total = (inputs[k] for k in ("XQ", "WQ", "xs", "ws", "M", "total"))
    offsets = torch.cumsum(M, 0).int()
    out = poisoned((total, N))
    args = {
        "1D XQ": (XQ[0], WQ, xs, ws, offsets, out),
        "no offsets": (XQ, WQ, xs, ws, None, out),
        "wrong out": (XQ, WQ, xs, ws, offsets, poisoned((total, N + 1))),
        "float32 out": (XQ, WQ, xs, ws, offsets, torch.zeros(total, N)),
    }[case]
    args = to_device(*args)
    with pytest.raises(gg.ContractError, match=message):
        OPS.f8f8bf16_rowwise_grouped_mm(*args)
    written = args[5].cpu()
    if written.dtype == torch.bfloat16:
        assert bool((written.view(torch.int16) == 0x7FA5).all()), "a refused call wrote its output"
    else:
        assert bool((written == 0).all()), "a refused call wrote its output"


def test_blockwise_needs_multiples_of_128(inputs):
    gen = torch.Generator().manual_seed(1)
    with pytest.raises(gg.ContractError, match="blockwise scaling needs N to be a multiple of 128"):
        OPS.f8f8bf16_groupwise_grouped(*to_device(
            inputs["XQ"], fp8((G, 200, K), gen), torch.ones(32), torch.ones(G, 2, 2), inputs["M"]))


def test_missing_tuning_table_raises():
    with pytest.raises(gg.Error, match="tuning table /nonexistent/gg.table"):
        gg.load_tuning_table("/nonexistent/gg.table")
