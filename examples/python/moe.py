"""A mixture-of-experts FFN layer on gg's ops, checked against a bf16 PyTorch reference.

    python examples/python/moe.py [--device cpu|cuda] [--tokens T] [--hidden H]
        [--intermediate I] [--experts E] [--top-k K] [--bench]

The layer: a router picks each token's top-k experts; the (token, expert) pairs are sorted
by expert (token permutation); activations are quantised to FP8 with one scale per row;
the gate and up projections of every expert run as one grouped GEMM
(torch.ops.gg.f8f8bf16_rowwise_grouped_stacked over the experts' [2I, H] weights), then
SiLU(gate) * up, quantised again, and the down projection as a second grouped GEMM; each
token's k results are summed with its routing weights (weighted un-permutation). Nothing
reads device data on the host, so the layer is captured by CUDA graphs and traced by
torch.compile(fullgraph=True).

--bench (CUDA) times the layer with gg's grouped GEMMs and with torch._scaled_grouped_mm
(use_fast_accum=True, gg in fast accumulation), CUDA-graph replay, same inputs.
"""

import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

import gg  # noqa: F401  (registers torch.ops.gg)

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0


def quantize_rowwise(x):
    """FP8 codes and one float32 scale per row: x ~ codes * scale."""
    amax = x.abs().amax(dim=-1).float().clamp(min=1e-12)
    scale = amax / FP8_MAX
    codes = (x.float() / scale.unsqueeze(-1)).clamp(-FP8_MAX, FP8_MAX).to(FP8)
    return codes, scale


def route(x, router_weight, top_k):
    """Each token's top-k experts and their weights (softmax over the chosen logits)."""
    logits = x.float() @ router_weight.float().T
    weights, experts = torch.topk(logits, top_k, dim=-1)
    return torch.softmax(weights, dim=-1), experts


class MoE(torch.nn.Module):
    """Experts' weights in bf16 (the reference) and FP8 with rowwise scales (gg's)."""

    def __init__(self, hidden, intermediate, experts, top_k, device, seed=0):
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        self.hidden, self.intermediate, self.experts, self.top_k = hidden, intermediate, experts, top_k
        self.router = (torch.randn(experts, hidden, generator=gen) / hidden**0.5).to(torch.bfloat16).to(device)
        w13 = torch.randn(experts, 2 * intermediate, hidden, generator=gen) / hidden**0.5
        w2 = torch.randn(experts, hidden, intermediate, generator=gen) / intermediate**0.5
        self.w13, self.w2 = w13.to(torch.bfloat16).to(device), w2.to(torch.bfloat16).to(device)
        self.w13_q, self.w13_s = quantize_rowwise(self.w13)  # [E, 2I, H], [E, 2I]
        self.w2_q, self.w2_s = quantize_rowwise(self.w2)  # [E, H, I], [E, H]
        self.grouped_gemm = gg_grouped_gemm

    def expert_ffn(self, xs, m_sizes, w13_q, w13_s, w2_q, w2_s):
        """The experts' FFN over rows sorted by expert, m_sizes rows each (int64)."""
        xq, x_scale = quantize_rowwise(xs)
        gate_up = self.grouped_gemm(xq, w13_q, x_scale, w13_s, m_sizes)  # [rows, 2I]
        gate, up = gate_up.split(self.intermediate, dim=-1)
        h = F.silu(gate.float()) * up.float()
        hq, h_scale = quantize_rowwise(h)
        return self.grouped_gemm(hq, w2_q, h_scale, w2_s, m_sizes)  # [rows, H]

    def forward(self, x):
        weights, experts = route(x, self.router, self.top_k)
        flat = experts.reshape(-1)
        order = torch.argsort(flat, stable=True)  # (token, slot) pairs sorted by expert
        token_of_row = order // self.top_k
        m_sizes = expert_counts(flat, self.experts)
        y = self.expert_ffn(x[token_of_row], m_sizes, self.w13_q, self.w13_s, self.w2_q, self.w2_s)
        return unpermute(y, order, weights, x.shape[0], self.top_k)

    def reference(self, x):
        """The same layer in bf16 PyTorch, expert by expert, unquantised."""
        weights, experts = route(x, self.router, self.top_k)
        out = torch.zeros(x.shape[0], self.hidden, dtype=torch.float32, device=x.device)
        for e in range(self.experts):
            token, slot = (experts == e).nonzero(as_tuple=True)
            if token.numel() == 0:
                continue
            gate, up = (x[token] @ self.w13[e].T).split(self.intermediate, dim=-1)
            h = (F.silu(gate.float()) * up.float()).to(torch.bfloat16)
            out.index_add_(0, token, (h @ self.w2[e].T).float() * weights[token, slot, None])
        return out.to(torch.bfloat16)


def expert_counts(flat, experts):
    """Rows per expert, on the device (no host read; one_hot and bincount may synchronise)."""
    return torch.zeros(experts, dtype=torch.int64, device=flat.device).index_add_(0, flat, torch.ones_like(flat))


def unpermute(y, order, weights, tokens, top_k):
    """Each token's k expert outputs, back in (token, slot) order, summed with the routing
    weights in slot order (deterministic: no atomic adds)."""
    rows = torch.empty_like(y)
    rows[order] = y
    summed = (rows.view(tokens, top_k, -1).float() * weights.unsqueeze(-1)).sum(dim=1)
    return summed.to(torch.bfloat16)


def gg_grouped_gemm(xq, wq, x_scale, w_scale, m_sizes):
    return torch.ops.gg.f8f8bf16_rowwise_grouped_stacked(xq, wq, x_scale, w_scale, m_sizes)


def torch_grouped_gemm(xq, wq, x_scale, w_scale, m_sizes):
    """torch._scaled_grouped_mm on the same operands (B column-major, int32 prefix ends)."""
    offsets = torch.cumsum(m_sizes, 0).to(torch.int32)
    return torch._scaled_grouped_mm(xq, wq.transpose(-2, -1), x_scale, w_scale, offs=offsets,
                                    out_dtype=torch.bfloat16, use_fast_accum=True)


def dequantized_grouped_gemm(xq, wq, x_scale, w_scale, m_sizes):
    """The grouped GEMM in float64 PyTorch on the same FP8 operands, expert by expert: what
    gg must match up to its float32 accumulation and bf16 rounding."""
    out, begin = [], 0
    for e, rows in enumerate(m_sizes.tolist()):
        a = xq[begin:begin + rows].double() * x_scale[begin:begin + rows, None].double()
        out.append(a @ (wq[e].double() * w_scale[e, :, None].double()).T)
        begin += rows
    return torch.cat(out).to(torch.bfloat16)


def relative_error(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def graph_time_ms(fn, replays=50):
    """Median time of one call, replayed from a CUDA graph of 10 calls."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(10):
            fn()
    times = []
    end_ramp = time.time() + 0.5  # clock ramp
    while time.time() < end_ramp:
        graph.replay()
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 10)
    return sorted(times)[len(times) // 2]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--intermediate", type=int, default=256)
    p.add_argument("--experts", type=int, default=8)
    p.add_argument("--top-k", type=int, default=2)
    p.add_argument("--bench", action="store_true")
    args = p.parse_args(argv)
    device = torch.device(args.device)
    layer = MoE(args.hidden, args.intermediate, args.experts, args.top_k, device)
    x = torch.randn(args.tokens, args.hidden, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16).to(device)
    out, ref = layer(x), layer.reference(x)
    layer.grouped_gemm = dequantized_grouped_gemm
    same_fp8 = layer(x)
    layer.grouped_gemm = gg_grouped_gemm
    err, err_fp8 = relative_error(out, ref), relative_error(out, same_fp8)
    print("moe: %d tokens, hidden %d, intermediate %d, %d experts, top-%d on %s: relative error %.4f vs the "
          "bf16 layer, %.4f vs the same FP8 operands in float64"
          % (args.tokens, args.hidden, args.intermediate, args.experts, args.top_k, device, err, err_fp8))
    # Against bf16 the error is FP8's: two quantised GEMMs (3 fraction bits each side) give
    # about 6%; on the same FP8 operands only float32 accumulation and bf16 roundings differ.
    ok = err < 0.1 and err_fp8 < 0.01
    if args.bench and device.type == "cuda":
        gg.set_accumulation("fast")
        t_gg = graph_time_ms(lambda: layer(x))
        layer.grouped_gemm = torch_grouped_gemm
        torch_out = layer(x)
        t_torch = graph_time_ms(lambda: layer(x))
        layer.grouped_gemm = gg_grouped_gemm
        print("moe bench (%s, CUDA graph, fast accumulation): gg %.1f us, torch._scaled_grouped_mm %.1f us, "
              "ratio %.2f; outputs differ by %.4f"
              % (torch.cuda.get_device_name(device), t_gg * 1e3, t_torch * 1e3, t_torch / t_gg,
                 relative_error(out, torch_out)))
    print("moe: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
