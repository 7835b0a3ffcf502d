"""Every torch.ops.gg op on fresh random inputs, against the C reference and a float64
PyTorch reference, on GG_TEST_DEVICE (cpu: the host target; cuda: sm_90a)."""

import pytest
import torch

import gg
from gg import _capi
from support import (
    DEVICE,
    FP8,
    assert_close_f64,
    assert_matches_c,
    c_reference,
    fp8,
    poisoned,
    scales,
    to_device,
)

G, N, K = 3, 256, 256
# sm_90a reads B through TMA as a plain [N, K] matrix: the preshuffled ops are AMD's (and
# the host's, which runs every layout); on CUDA they are refused, saying why.
SM90_REFUSES_PRESHUFFLE = DEVICE.type == "cuda"
SM90_PRESHUFFLE_MESSAGE = "preshuffled B is the operand order of AMD matrix cores"
SIZES = [5, 0, 11]  # uneven, with an empty group
OPS = torch.ops.gg


@pytest.fixture
def gen(request):
    seed = torch.randint(0, 2**62, (1,)).item()
    request.node.user_properties.append(("seed", seed))
    print("seed", seed)
    return torch.Generator().manual_seed(seed)


def call(op, args, preshuffle, **kwargs):
    """op on args moved to DEVICE; None where sm_90a refuses preshuffled B (saying why)."""
    if preshuffle and SM90_REFUSES_PRESHUFFLE:
        with pytest.raises(gg.Error, match=SM90_PRESHUFFLE_MESSAGE):
            op(*to_device(*args), **kwargs)
        return None
    return op(*to_device(*args), **kwargs)


def ranges(counts):
    begin = 0
    for c in counts:
        yield begin, begin + c
        begin += c


def unshuffled(WQ):
    return OPS.unshuffle_b(WQ.cpu()) if WQ is not None else None


def f64(a, b, sa, sb):
    """(a b^T) sa sb in float64, with a's rows scaled by sa and b's by sb."""
    return (a.double() @ b.double().T) * sa.double()[:, None] * sb.double()[None, :]


def blockwise_f64(a, b, sa_blocks, sb_blocks):
    """sum over 128-wide K blocks of (a_kb b_kb^T) sa[:, kb] sb[kb, c/128] in float64;
    sa_blocks [rows, KB], sb_blocks [KB, N/128]."""
    acc = torch.zeros(a.shape[0], b.shape[0], dtype=torch.float64)
    for kb in range(a.shape[1] // 128):
        part = a[:, kb * 128:(kb + 1) * 128].double() @ b[:, kb * 128:(kb + 1) * 128].double().T
        acc += part * sa_blocks[:, kb].double()[:, None] * sb_blocks[kb].double().repeat_interleave(128)[None, :]
    return acc


def check(got, layout, scaling, b_layout, m, operands, want_f64, written, zeroing=0, start=None):
    """got against the C reference (every element: written ones within its bound, the
    others as they started) and, where the op writes, against float64."""
    want, bound = c_reference(layout, scaling, b_layout, N if layout not in (_capi.LAYOUT_N_OFFSETS,) else operands[1].shape[0],
                              K if layout != _capi.LAYOUT_K_OFFSETS else operands[0].shape[1], G, m, operands,
                              got.shape, zeroing=zeroing, start=start)
    assert_matches_c(got, want, bound)
    assert_close_f64(got.cpu()[written], want_f64[written], bound[written])


# ---------------------------------------------------------------------------------------
# stacked (and groupwise, the same layout with blockwise scales)


@pytest.mark.parametrize("preshuffle", [False, True])
def test_stacked(gen, preshuffle):
    total = sum(SIZES)
    XQ, WQ, xs, ws = fp8((total, K), gen), fp8((G, N, K), gen), scales(total, gen), scales((G, N), gen)
    M_sizes = torch.tensor(SIZES, dtype=torch.int64)
    WQ_arg = OPS.preshuffle_b(WQ) if preshuffle else WQ
    op = OPS.f8f8bf16_rowwise_grouped_stacked_preshuffle if preshuffle else OPS.f8f8bf16_rowwise_grouped_stacked
    out = call(op, (XQ, WQ_arg, xs, ws, M_sizes), preshuffle)
    if out is None:
        return
    assert out.shape == (total, N) and out.dtype == torch.bfloat16 and out.device.type == DEVICE.type
    want = torch.zeros(total, N, dtype=torch.float64)
    for g, (b, e) in enumerate(ranges(SIZES)):
        want[b:e] = f64(XQ[b:e], WQ[g], xs[b:e], ws[g])
    b_layout = _capi.B_PRESHUFFLED if preshuffle else _capi.B_PLAIN
    check(out, _capi.LAYOUT_SIZES, _capi.SCALING_ROWWISE, b_layout, total, (XQ, WQ_arg, xs, ws, M_sizes),
          want, torch.ones(total, N, dtype=torch.bool))


@pytest.mark.parametrize("preshuffle", [False, True])
def test_groupwise(gen, preshuffle):
    total, KB, NB = sum(SIZES), K // 128, N // 128
    XQ, WQ = fp8((total, K), gen), fp8((G, N, K), gen)
    xs, ws = scales(total * KB, gen), scales((G, KB, NB), gen)
    M_sizes = torch.tensor(SIZES, dtype=torch.int64)
    WQ_arg = OPS.preshuffle_b(WQ) if preshuffle else WQ
    op = OPS.f8f8bf16_groupwise_grouped_preshuffle if preshuffle else OPS.f8f8bf16_groupwise_grouped
    out = call(op, (XQ, WQ_arg, xs, ws, M_sizes), preshuffle)
    if out is None:
        return
    assert out.shape == (total, N) and out.dtype == torch.bfloat16
    want = torch.zeros(total, N, dtype=torch.float64)
    for g, (b, e) in enumerate(ranges(SIZES)):
        # Group g's x_scale block starts at b*KB and is [KB, M_g] (quantize_fp8_group).
        sa = xs[b * KB:e * KB].view(KB, e - b).T
        want[b:e] = blockwise_f64(XQ[b:e], WQ[g], sa, ws[g])
    b_layout = _capi.B_PRESHUFFLED if preshuffle else _capi.B_PLAIN
    check(out, _capi.LAYOUT_SIZES, _capi.SCALING_BLOCKWISE, b_layout, total, (XQ, WQ_arg, xs, ws, M_sizes),
          want, torch.ones(total, N, dtype=torch.bool))


# ---------------------------------------------------------------------------------------
# dynamic


@pytest.mark.parametrize("preshuffle", [False, True])
@pytest.mark.parametrize("zeroing", [True, False])
def test_dynamic(gen, preshuffle, zeroing):
    M = 8
    valid = [8, 0, 3]
    XQ, WQ, xs, ws = fp8((G, M, K), gen), fp8((G, N, K), gen), scales((G, M), gen), scales((G, N), gen)
    zsi = torch.tensor(valid, dtype=torch.int64)
    WQ_arg = OPS.preshuffle_b(WQ) if preshuffle else WQ
    op = OPS.f8f8bf16_rowwise_grouped_dynamic_preshuffle if preshuffle else OPS.f8f8bf16_rowwise_grouped_dynamic
    out = call(op, (XQ, WQ_arg, xs, ws, zsi), preshuffle, zeroing_output_tensor=zeroing)
    if out is None:
        return
    assert out.shape == (G, M, N) and out.dtype == torch.bfloat16
    want = torch.zeros(G, M, N, dtype=torch.float64)
    written = torch.zeros(G, M, N, dtype=torch.bool)
    for g, v in enumerate(valid):
        want[g, :v] = f64(XQ[g, :v], WQ[g], xs[g, :v], ws[g])
        written[g] = True if zeroing else False
        written[g, :v] = True
    b_layout = _capi.B_PRESHUFFLED if preshuffle else _capi.B_PLAIN
    # Without zeroing the padding rows hold whatever torch's allocator gave: the C
    # reference starts from gg's own output there, so only the valid rows are judged.
    start = None if zeroing else out.cpu().clone()
    if start is not None:
        start[written] = poisoned(start.shape)[written]
    check(out, _capi.LAYOUT_PADDED, _capi.SCALING_ROWWISE, b_layout, M, (XQ, WQ_arg, xs, ws, zsi), want, written,
          zeroing=int(zeroing), start=start)


# ---------------------------------------------------------------------------------------
# mm: all four rank combinations, output passed in (poisoned) and returned


def mm_case(ranks, gen):
    """(XQ, WQ, x_scale, w_scale, offsets, out shape, layout, m, float64 result)."""
    if ranks == "2d3d":
        total = sum(SIZES)
        XQ, WQ, xs, ws = fp8((total, K), gen), fp8((G, N, K), gen), scales(total, gen), scales((G, N), gen)
        offsets = torch.cumsum(torch.tensor(SIZES), 0).to(torch.int32)
        want = torch.zeros(total, N, dtype=torch.float64)
        for g, (b, e) in enumerate(ranges(SIZES)):
            want[b:e] = f64(XQ[b:e], WQ[g], xs[b:e], ws[g])
        return XQ, WQ, xs, ws, offsets, (total, N), _capi.LAYOUT_OFFSETS, total, want
    if ranks == "3d3d":
        M = 7
        XQ, WQ, xs, ws = fp8((G, M, K), gen), fp8((G, N, K), gen), scales((G, M), gen), scales((G, N), gen)
        want = torch.stack([f64(XQ[g], WQ[g], xs[g], ws[g]) for g in range(G)])
        return XQ, WQ, xs, ws, None, (G, M, N), _capi.LAYOUT_BATCHED, M, want
    if ranks == "3d2d":
        M, widths = 6, [128, 0, 256]  # groups split N (multiples of 8)
        total_n = sum(widths)
        XQ, WQ, xs, ws = fp8((G, M, K), gen), fp8((total_n, K), gen), scales((G, M), gen), scales(total_n, gen)
        offsets = torch.cumsum(torch.tensor(widths), 0).to(torch.int32)
        want = torch.zeros(M, total_n, dtype=torch.float64)
        for g, (b, e) in enumerate(ranges(widths)):
            want[:, b:e] = f64(XQ[g], WQ[b:e], xs[g], ws[b:e])
        return XQ, WQ, xs, ws, offsets, (M, total_n), _capi.LAYOUT_N_OFFSETS, M, want
    assert ranks == "2d2d"
    M, depths = 5, [128, 0, 384]  # groups split K
    total_k = sum(depths)
    XQ, WQ, xs, ws = fp8((M, total_k), gen), fp8((N, total_k), gen), scales(G * M, gen), scales(G * N, gen)
    offsets = torch.cumsum(torch.tensor(depths), 0).to(torch.int32)
    want = torch.zeros(G, M, N, dtype=torch.float64)
    for g, (b, e) in enumerate(ranges(depths)):
        want[g] = f64(XQ[:, b:e], WQ[:, b:e], xs[g * M:(g + 1) * M], ws[g * N:(g + 1) * N])
    return XQ, WQ, xs, ws, offsets, (G, M, N), _capi.LAYOUT_K_OFFSETS, M, want


@pytest.mark.parametrize("ranks", ["2d3d", "3d3d", "3d2d", "2d2d"])
def test_mm(gen, ranks):
    XQ, WQ, xs, ws, offsets, shape, layout, m, want = mm_case(ranks, gen)
    out = poisoned(shape).to(DEVICE)
    got = OPS.f8f8bf16_rowwise_grouped_mm(*to_device(XQ, WQ, xs, ws, offsets), out)
    assert got.data_ptr() == out.data_ptr() and got.shape == shape
    check(out, layout, _capi.SCALING_ROWWISE, _capi.B_PLAIN, m, (XQ, WQ, xs, ws, offsets), want,
          torch.ones(shape, dtype=torch.bool))


@pytest.mark.parametrize("ranks", ["2d3d", "3d3d"])
def test_mm_preshuffle(gen, ranks):
    XQ, WQ, xs, ws, offsets, shape, layout, m, want = mm_case(ranks, gen)
    WQ_arg = OPS.preshuffle_b(WQ)
    out = poisoned(shape).to(DEVICE)
    got = call(OPS.f8f8bf16_rowwise_grouped_mm_preshuffle, (XQ, WQ_arg, xs, ws, offsets, out), True)
    if got is None:
        return
    assert got.data_ptr() == out.data_ptr()
    check(out, layout, _capi.SCALING_ROWWISE, _capi.B_PRESHUFFLED, m, (XQ, WQ_arg, xs, ws, offsets), want,
          torch.ones(shape, dtype=torch.bool))


@pytest.mark.parametrize("ranks", ["3d2d", "2d2d"])
def test_mm_preshuffle_refuses_split_n_and_k(gen, ranks):
    XQ, WQ, xs, ws, offsets, shape, layout, m, want = mm_case(ranks, gen)
    out = poisoned(shape).to(DEVICE)
    message = "preshuffled B" if SM90_REFUSES_PRESHUFFLE else "preshuffled B needs each group to own a whole"
    with pytest.raises(gg.Error, match=message):
        OPS.f8f8bf16_rowwise_grouped_mm_preshuffle(*to_device(XQ, OPS.preshuffle_b(WQ), xs, ws, offsets), out)
    assert bool((out.cpu().view(torch.int16) == 0x7FA5).all()), "a refused call wrote its output"


# ---------------------------------------------------------------------------------------
# preshuffle_b / unshuffle_b


@pytest.mark.parametrize("shape", [(32, 128), (2, 48, 192)])
def test_preshuffle_b(gen, shape):
    W = fp8(shape, gen)
    shuffled = OPS.preshuffle_b(W)
    assert shuffled.shape == W.shape and shuffled.dtype == W.dtype
    assert not torch.equal(shuffled.view(torch.uint8), W.view(torch.uint8))
    assert torch.equal(OPS.unshuffle_b(shuffled).view(torch.uint8), W.view(torch.uint8))
    # What GPUs run (a torch permutation) is gg's C shuffle, byte for byte.
    from gg.ops import _shuffle_torch
    assert torch.equal(_shuffle_torch(W, False).view(torch.uint8), shuffled.view(torch.uint8))
    assert torch.equal(_shuffle_torch(shuffled, True).view(torch.uint8), W.view(torch.uint8))
    if DEVICE.type != "cpu":
        on_device = OPS.preshuffle_b(W.to(DEVICE))
        assert torch.equal(on_device.cpu().view(torch.uint8), shuffled.view(torch.uint8))


def test_preshuffle_b_refuses_bad_shapes(gen):
    with pytest.raises(gg.ContractError, match="K must be a multiple of 64"):
        OPS.preshuffle_b(fp8((32, 96), gen))
    with pytest.raises(gg.ContractError, match="N must be a multiple of 16"):
        OPS.preshuffle_b(fp8((24, 128), gen))
