#!/usr/bin/env python3
"""docs/performance.md's tables and plot from the JSON that bench/gpu/bench.py saved.

    python3 bench/gpu/report.py --png docs/performance/deepseek-DATE.png RESULTS.json...

Prints markdown: the summary (median gg/torch ratio per accumulation mode, decode and
large-M figures) and one row per case. Runs here (matplotlib), not on the GPU machine."""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import tflops, weight_tbs  # noqa: E402

DECODE_M = 128  # total_M at or below it: weight-bandwidth bound


def ratio(r, gg, torch):
    a, b = tflops(r, gg), tflops(r, torch)
    return a / b if a and b else None


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def summary(results):
    lines = ["| figure | fast (gg fast / torch use_fast_accum=True) | promoted (gg promoted / torch False) |",
             "|---|---|---|"]
    def med(rows, gg, torch):
        xs = [x for x in (ratio(r, gg, torch) for r in rows) if x]
        return (statistics.median(xs), min(xs), max(xs), len(xs)) if xs else None
    def cell(m):
        return "-" if not m else f"{m[0]:.2f} (min {m[1]:.2f}, max {m[2]:.2f}, {m[3]} cases)"
    groups = [("median ratio, whole grid", results),
              ("median ratio, total_M <= 128", [r for r in results if r["total"] <= DECODE_M]),
              ("median ratio, total_M >= 1024", [r for r in results if r["total"] >= 1024])]
    for name, rows in groups:
        lines.append(f"| {name} | {cell(med(rows, 'gg_fast', 'torch_fast'))} | "
                     f"{cell(med(rows, 'gg_promoted', 'torch_promoted'))} |")
    decode = [r for r in results if r["total"] <= DECODE_M and r["ranks"] == "2d3d"]
    for key, name in (("gg_fast", "gg fast"), ("torch_fast", "torch fast")):
        xs = [x for x in (weight_tbs(r, key) for r in decode) if x]
        if xs:
            lines.append(f"| weight TB/s at total_M <= 128, {name} | median {statistics.median(xs):.2f}, "
                         f"max {max(xs):.2f} | |")
    for r in results:
        if r["ranks"] == "2d3d" and r["n"] == 4096 and r["k"] == 7168 and r["g"] == 8 \
                and r["total"] == 16384 and r["split"] == "even":
            lines.append(f"| DeepSeek-V3 N 4096 K 7168 total_M 16384, TFLOP/s | gg {fmt(tflops(r, 'gg_fast'))}"
                         f" (128x128: {fmt(tflops(r, 'gg_fast128'))}), torch {fmt(tflops(r, 'torch_fast'))} | "
                         f"gg {fmt(tflops(r, 'gg_promoted'))}, torch {fmt(tflops(r, 'torch_promoted'))} |")
    return "\n".join(lines)


def rows(results):
    lines = ["| model | ranks | N | K | G | split | total_M | gg fast | gg fast 128x128 | torch fast | ratio | "
             "gg promoted | torch | ratio | weights TB/s (gg fast, torch fast) |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        bw = f"{fmt(weight_tbs(r, 'gg_fast'), 2)}, {fmt(weight_tbs(r, 'torch_fast'), 2)}"
        if r["ranks"] == "2d2d":
            bw = "-"
        lines.append(
            f"| {r['model']} | {r['ranks']} | {r['n']} | {r['k']} | {r['g']} | {r['split']} | {r['total']} | "
            f"{fmt(tflops(r, 'gg_fast'))} | {fmt(tflops(r, 'gg_fast128'))} | {fmt(tflops(r, 'torch_fast'))} | "
            f"{fmt(ratio(r, 'gg_fast', 'torch_fast'), 2)} | {fmt(tflops(r, 'gg_promoted'))} | "
            f"{fmt(tflops(r, 'torch_promoted'))} | {fmt(ratio(r, 'gg_promoted', 'torch_promoted'), 2)} | {bw} |")
    errors = sorted({(k, r[k]) for r in results for k in r if k.endswith("_error")})
    for key, message in errors:
        lines.append(f"\n{key}: {message}")
    return "\n".join(lines)


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shapes = [(4096, 7168), (7168, 2048)]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, (n, k) in zip(axes, shapes):
        sel = sorted((r for r in results if r["ranks"] == "2d3d" and r["n"] == n and r["k"] == k
                      and r["g"] == 8 and r["split"] == "even"), key=lambda r: r["total"])
        xs = [r["total"] for r in sel]
        for key, label, style in (("gg_fast", "gg fast", "o-"), ("torch_fast", "torch use_fast_accum=True", "s--"),
                                  ("gg_promoted", "gg promoted", "o-"),
                                  ("torch_promoted", "torch use_fast_accum=False", "s--")):
            ax.plot(xs, [tflops(r, key) or float("nan") for r in sel], style, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("total_M (tokens over 8 experts, even split)")
        ax.set_ylabel("TFLOP/s")
        ax.set_title(f"DeepSeek-V3 experts, N {n}, K {k}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results", nargs="+")
    p.add_argument("--png")
    args = p.parse_args()
    results, metas = [], []
    for path in args.results:
        with open(path) as f:
            data = json.load(f)
        metas.append(data["meta"])
        results += data["results"]
    for m in metas:
        print(f"<!-- {json.dumps(m)} -->")
    main_part = [r for r in results if r["part"] == "main"]
    print("### Summary (the main grid: 10 shapes x 6 total_M x 2 splits, G = 8, 2D-3D)\n")
    print(summary(main_part or results))
    print("\n### Every case\n")
    print(rows(results))
    if args.png:
        plot(results, args.png)


if __name__ == "__main__":
    main()
