"""The MoE example layer (examples/python/moe.py) on gg's ops: against its references,
under torch.compile(fullgraph=True), and (CUDA) replayed from a CUDA graph."""

import os
import sys

import pytest
import torch

from support import DEVICE

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import moe  # noqa: E402


@pytest.fixture(scope="module")
def layer():
    return moe.MoE(hidden=256, intermediate=256, experts=8, top_k=2, device=DEVICE,
                   seed=torch.randint(0, 2**62, (1,)).item())


def tokens(count):
    return torch.randn(count, 256, generator=torch.Generator().manual_seed(count)).to(torch.bfloat16).to(DEVICE)


def test_matches_references(layer):
    x = tokens(64)
    out = layer(x)
    assert moe.relative_error(out, layer.reference(x)) < 0.1
    layer.grouped_gemm = moe.dequantized_grouped_gemm
    try:
        same_fp8 = layer(x)
    finally:
        layer.grouped_gemm = moe.gg_grouped_gemm
    assert moe.relative_error(out, same_fp8) < 0.01


def test_example_runs():
    assert moe.main(["--device", DEVICE.type, "--tokens", "5", "--experts", "4"]) == 0


def test_compile_fullgraph(layer):
    torch._dynamo.reset()
    compiled = torch.compile(layer, fullgraph=True)
    for count in (64, 17):  # a second shape: recompiled or traced dynamic, never a graph break
        x = tokens(count)
        eager, traced = layer(x), compiled(x)
        assert traced.shape == eager.shape and traced.dtype == torch.bfloat16
        # Inductor may fuse the quantisation differently (a code rounded the other way).
        assert moe.relative_error(traced, eager) < 0.01
        assert moe.relative_error(traced, layer.reference(x)) < 0.1


@pytest.mark.skipif(DEVICE.type != "cuda", reason="CUDA graphs need a CUDA device")
def test_cuda_graph_replay(layer):
    x = tokens(64)
    eager = layer(x)
    static_x = x.clone()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        layer(static_x)  # warm: kernels loaded before capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = layer(static_x)
    for count in (64, 64):
        fresh = tokens(count) * 0.5
        static_x.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_out, layer(fresh)), "a replay differs from an eager call"
    static_x.copy_(x)
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(static_out, eager)
