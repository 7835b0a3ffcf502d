#!/usr/bin/env python3
"""gg against torch._scaled_grouped_mm on one NVIDIA GPU, in one process, on the same
inputs (issue 14; docs/performance.md gives the method and the results).

    python3 bench/gpu/bench.py DIR [--part main|ranks|all] [--out FILE] [--quick]
                               [--only fast|promoted] [--match KEY=VALUE]... [--limit N]
                               [--config NAME=ACCUM[:MxNxK[/S]]]... [--staged-configs]
    python3 bench/gpu/bench.py DIR --tune CANDIDATES --tune-out TABLE [--match ...] [--quick]

DIR holds what bench/gpu/stage.sh staged (libgg_runtime.so, bench.ggb). For every case of
bench/gpu/cases.py: random FP8 inputs (never zeros), one gg launch and one torch call
checked against a float32 reference of two groups (gg's output poisoned with NaN first,
and every row of every group must be written), then each side timed: a CUDA graph of
launches over rotated copies of the inputs (so the weights come from HBM, not L2),
replayed after a 0.5 s clock ramp, median per launch. The raw numbers go to FILE as JSON
(rewritten after every case); a table is printed last."""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as grid  # noqa: E402
import ggrt  # noqa: E402
import tune as tuner  # noqa: E402

DEV = "cuda"
F8 = torch.float8_e4m3fn
ROTATE_BYTES = 256 << 20  # at least this much input per graph: 5x the H200's 50 MiB L2
MAX_COPIES = 8
TOLERANCE = 2e-2          # relative Frobenius error against float32 (bf16 output: ~3e-3)


def rnd_f8(*shape):
    return torch.randn(*shape, device=DEV).to(F8)


def ramp(seconds=0.5):
    """Brings the clocks up before a side is timed."""
    x = torch.randn(4096, 4096, device=DEV, dtype=torch.bfloat16)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(8):
            x @ x
        torch.cuda.synchronize()


def time_launches(launches, quick):
    """Median milliseconds per launch of a CUDA graph holding `launches` (callables that
    enqueue on torch's current stream), after a warm-up outside the graph and a ramp."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for f in launches:
            f()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for f in launches:
            f()
    ramp(0.1 if quick else 0.5)
    graph.replay()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    graph.replay()
    torch.cuda.synchronize()
    estimate = time.perf_counter() - t0
    reps = int(min(100, max(5, (0.03 if quick else 0.12) / max(estimate, 1e-6))))
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / len(launches))
    del graph
    return statistics.median(times)


def make_inputs(case):
    """One copy of a case's inputs: gg's operands and torch's arguments over the same memory."""
    g, n, k, sizes = case["g"], case["n"], case["k"], case["sizes"]
    ranks = case["ranks"]
    offs = torch.tensor(sizes, dtype=torch.int64).cumsum(0).to(torch.int32).to(DEV)
    if ranks == "2d3d":
        total = sum(sizes)
        a, bt = rnd_f8(total, k), rnd_f8(g, n, k)
        sa = torch.rand(total, device=DEV) + 0.5
        sb = torch.rand(g, n, device=DEV) + 0.5
        out = torch.empty(total, n, device=DEV, dtype=torch.bfloat16)
        gg_ops = (a, bt, sa, sb, offs, out)
        torch_args = (a, bt.transpose(-2, -1), sa, sb, offs)
    elif ranks == "3d3d":
        m = case["m"]
        a, bt = rnd_f8(g, m, k), rnd_f8(g, n, k)
        sa = torch.rand(g, m, device=DEV) + 0.5
        sb = torch.rand(g, n, device=DEV) + 0.5
        out = torch.empty(g, m, n, device=DEV, dtype=torch.bfloat16)
        gg_ops = (a, bt, sa, sb, None, out)
        torch_args = (a, bt.transpose(-2, -1), sa, sb, None)
    else:  # 2d2d: groups split K
        m, total_k = case["m"], sum(sizes)
        a, bt = rnd_f8(m, total_k), rnd_f8(n, total_k)
        sa = torch.rand(g * m, device=DEV) + 0.5
        sb = torch.rand(g * n, device=DEV) + 0.5
        out = torch.empty(g, m, n, device=DEV, dtype=torch.bfloat16)
        gg_ops = (a, bt, sa, sb, offs, out)
        torch_args = (a, bt.t(), sa, sb, offs)
    return gg_ops, torch_args


def reference(case, gg_ops, group):
    """float32 (A.B^T) sa sb of one group, and the slice of the output it fills."""
    a, bt, sa, sb, _, out = gg_ops
    sizes = case["sizes"]
    start = sum(sizes[:group])
    end = start + sizes[group]
    if case["ranks"] == "2d3d":
        ref = (a[start:end].float() @ bt[group].float().t()) * sa[start:end, None] * sb[group][None, :]
        return ref, (slice(start, end),)
    if case["ranks"] == "3d3d":
        ref = (a[group].float() @ bt[group].float().t()) * sa[group][:, None] * sb[group][None, :]
        return ref, (group,)
    m, n = case["m"], case["n"]
    ref = (a[:, start:end].float() @ bt[:, start:end].float().t())
    ref = ref * sa[group * m:(group + 1) * m, None] * sb[group * n:(group + 1) * n][None, :]
    return ref, (group,)


def check(case, gg_ops, produced):
    """The worst relative error over the first and last non-empty groups."""
    groups = [i for i, s in enumerate(case["sizes"]) if s > 0]
    worst = 0.0
    for group in sorted({groups[0], groups[-1]}):
        ref, where = reference(case, gg_ops, group)
        got = produced[where].float()
        if not torch.isfinite(got).all():
            return math.inf
        norm = ref.norm().item()
        worst = max(worst, (got - ref).norm().item() / (norm if norm else 1.0))
    return worst


def input_bytes(case):
    """The bytes of A and B (FP8) in one copy of a case's inputs."""
    g, n, k, sizes = case["g"], case["n"], case["k"], case["sizes"]
    if case["ranks"] == "2d3d":
        return sum(sizes) * k + g * n * k
    if case["ranks"] == "3d3d":
        return g * case["m"] * k + g * n * k
    return (case["m"] + n) * sum(sizes)


def run_case(rt, case, quick, only=None, configs=None):
    copies = max(1, min(MAX_COPIES, math.ceil(ROTATE_BYTES / input_bytes(case))))
    if quick:
        copies = 1
    inputs = [make_inputs(case) for _ in range(copies)]
    result = {k: case[k] for k in ("part", "model", "ranks", "n", "k", "g", "m", "split", "total", "sizes", "flops") if k in case}
    result["copies"] = copies
    gg_ops = inputs[0][0]
    # torch: both accumulation modes, checked once, then timed.
    for fast in (True, False):
        key = "torch_fast" if fast else "torch_promoted"
        if only and key != "torch_" + only:
            continue
        try:
            calls = [lambda t=t, fast=fast: torch._scaled_grouped_mm(
                *t[:4], offs=t[4], out_dtype=torch.bfloat16, use_fast_accum=fast) for _, t in inputs]
            produced = calls[0]()
            torch.cuda.synchronize()
            result[key + "_err"] = check(case, gg_ops, produced)
            del produced
            result[key + "_ms"] = time_launches(calls, quick)
        except Exception as e:  # torch refuses some shapes: say which and why
            result[key + "_error"] = repr(e)[:300]
    # gg: every configuration, its output poisoned, checked, then timed.
    for config, (accum, tile) in (configs or grid.CONFIGS).items():
        if (only and accum != only) or not grid.takes(case, config, configs):
            continue
        try:
            runs = [rt.prepare(case["ranks"], accum, tile, *ops) for ops, _ in inputs]
            out = gg_ops[5]
            out.fill_(float("nan"))
            runs[0](torch.cuda.current_stream().cuda_stream)
            torch.cuda.synchronize()
            # Every element is some group's: none may keep the poison.
            written = bool(torch.isfinite(out).all())
            result[f"gg_{config}_err"] = check(case, gg_ops, out) if written else math.inf
            result[f"gg_{config}_ms"] = time_launches(
                [lambda r=r: r(torch.cuda.current_stream().cuda_stream) for r in runs], quick)
        except Exception as e:
            result[f"gg_{config}_error"] = repr(e)[:300]
    del inputs
    return result


def table(results):
    head = (f"{'model':17} {'ranks':5} {'N':>5} {'K':>5} {'G':>3} {'split':5} {'M':>6} | "
            f"{'gg fast':>8} {'128x128':>8} {'torch f':>8} {'ratio':>5} | "
            f"{'gg prom':>8} {'torch p':>8} {'ratio':>5} | {'W TB/s':>6} ok")
    lines = [head, "-" * len(head)]
    for r in results:
        def f(key):
            v = grid.tflops(r, key)
            return f"{v:8.1f}" if v else f"{'-':>8}"
        def ratio(a, b):
            x, y = grid.tflops(r, a), grid.tflops(r, b)
            return f"{x / y:5.2f}" if x and y else f"{'-':>5}"
        bw = grid.weight_tbs(r, "gg_fast")
        errs = [v for k, v in r.items() if k.startswith("gg_") and k.endswith("_err")]
        ok = "ok" if errs and all(e <= TOLERANCE for e in errs) else "FAIL"
        if any(k.startswith("gg_") and k.endswith("_error") for k in r):
            ok = "ERR"
        lines.append(f"{r['model'][:17]:17} {r['ranks']:5} {r['n']:5} {r['k']:5} {r['g']:3} "
                     f"{r['split']:5} {r['total']:6} | {f('gg_fast')} {f('gg_fast128')} "
                     f"{f('torch_fast')} {ratio('gg_fast', 'torch_fast')} | {f('gg_promoted')} "
                     f"{f('torch_promoted')} {ratio('gg_promoted', 'torch_promoted')} | "
                     f"{(f'{bw:6.2f}' if bw else '     -')} {ok}")
    return "\n".join(lines)


def config_table(results, configs):
    """TFLOP/s of each named configuration and its ratio to torch in the same mode."""
    head = f"{'model':17} {'N':>5} {'K':>5} {'split':5} {'M':>6} | " + " | ".join(
        f"{name[:12]:>12} {'x torch':>7} {'TB/s':>5}" for name in configs)
    lines = [head, "-" * len(head)]
    for r in results:
        cells = []
        for name, (accum, _) in configs.items():
            v, ref = grid.tflops(r, "gg_" + name), grid.tflops(r, "torch_" + accum)
            bw = grid.weight_tbs(r, "gg_" + name)
            cells.append(f"{v:12.1f} {v / ref:7.2f} {bw or 0:5.2f}" if v and ref else f"{'-':>12} {'-':>7} {'-':>5}")
        lines.append(f"{r['model'][:17]:17} {r['n']:5} {r['k']:5} {r['split']:5} {r['total']:6} | " + " | ".join(cells))
    return "\n".join(lines)


def tune_main(args):
    """Every candidate of each tuned case timed beside the entry points' own choice
    ('fast'); the fastest within the check's tolerance is written as a table entry."""
    if not args.tune_out:
        print("--tune needs --tune-out TABLE", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    lines = open(args.tune).read().splitlines()
    # The entry points' own rule is the baseline a candidate must beat: no shipped table.
    rt = ggrt.Runtime(os.path.join(args.dir, "libgg_runtime.so"), [os.path.join(args.dir, "bench.ggb")],
                      shipped_tables=False)
    device = torch.cuda.get_device_name(0)
    print(json.dumps({"date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), "device": device,
                      "torch": torch.__version__, "method": "bench.py's, per candidate"}), flush=True)
    entries, rows, results = [], [], []
    for case in grid.matching(tuner.tuned_cases(), args.match):
        configs = {"fast": ("fast", None), **tuner.candidates(case, lines)}
        r = run_case(rt, case, args.quick, "fast", configs)
        results.append(r)
        timed = [(r[f"gg_{n}_ms"], n) for n in configs if n != "fast" and f"gg_{n}_ms" in r
                 and r.get(f"gg_{n}_err", math.inf) <= TOLERANCE]
        if not timed:
            print("no candidate passed for", tuner.base_line(case), file=sys.stderr)
            return 1
        ms, name = min(timed)
        default = r.get("gg_fast_ms")
        if args.tune_confirm and default:
            # Two timings of one kernel differ by up to 7% at tens of microseconds
            # (2026-12-02): the entry points' choice and the two fastest candidates are timed
            # again, in turn, and each keeps the median of its rounds.
            top = {n: configs[n] for n in ["fast"] + [n for _, n in sorted(timed)[:2]]}
            rounds = {n: [] for n in top}
            for _ in range(args.tune_confirm):
                again = run_case(rt, case, args.quick, "fast", top)
                for n in top:
                    if again.get(f"gg_{n}_err", math.inf) <= TOLERANCE and f"gg_{n}_ms" in again:
                        rounds[n].append(again[f"gg_{n}_ms"])
            r["confirm_ms"] = rounds
            medians = {n: statistics.median(v) for n, v in rounds.items() if v}
            default = medians.get("fast", default)
            others = [(v, n) for n, v in medians.items() if n != "fast"]
            if others:
                ms, name = min(others)
        # An entry must beat the entry points' own choice by the margin to replace it.
        if default and ms < default * (1 - args.tune_margin):
            entries.append(tuner.entry_line(case, device, "fast", configs[name][1], ms * 1000))
        rows.append(f"{case['n']:5} {case['k']:5} {case['total']:6} | {default * 1000 if default else 0:9.1f} "
                    f"| {configs[name][1]:>16} {ms * 1000:9.1f} | {default / ms if default else 0:5.2f}"
                    f" | {len(timed)}/{len(configs) - 1}")
        print(rows[-1], flush=True)
    rt.close()
    with open(args.tune_out, "w") as f:
        f.write("# gg tuning database v1 (docs/tuning.md)\n")
        f.write("".join(e + "\n" for e in entries))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"results": results}, f, indent=1)
    print(f"{len(entries)} entries (a candidate {args.tune_margin:.0%} faster than the default)")
    print("    N     K total_M | default us | fastest tile        us |  gain | passed")
    print("\n".join(rows))
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--part", default="main", choices=["main", "ranks", "all"])
    p.add_argument("--out", default=None)
    p.add_argument("--quick", action="store_true", help="one copy, short timings (a smoke run)")
    p.add_argument("--limit", type=int, default=0, help="only the first N cases")
    p.add_argument("--only", choices=["fast", "promoted"], help="one accumulation mode, both sides")
    p.add_argument("--match", action="append", default=[], metavar="KEY=VALUE",
                   help="only the cases with this field (total=1024, split=even, n=4096, ...; "
                        "total=1,16 takes either); repeatable")
    p.add_argument("--config", action="append", default=[], metavar="NAME=ACCUM[:MxNxK[/S]]",
                   help="time these gg configurations (S: split-K) instead of fast, fast128 and "
                        "promoted; the bundle must hold them (stage.sh DIR CONFIG...); repeatable")
    p.add_argument("--staged-configs", action="store_true",
                   help="time the configurations named to stage.sh DIR CONFIG... (DIR/configs.list) "
                        "instead of the defaults, with any --config of other names")
    p.add_argument("--tune", metavar="CANDIDATES",
                   help="autotune (docs/tuning.md): time every candidate of gg tune --candidates "
                        "for the DeepSeek cases (stage_tune.sh), fast mode, and write the fastest "
                        "that passes its check to --tune-out as a tuning table")
    p.add_argument("--tune-out", metavar="TABLE")
    p.add_argument("--autotune", action="store_true",
                   help="the runtime autotunes (GG_AUTOTUNE): each key is swept on its first "
                        "launch, the check's, before any graph capture; its choices are printed")
    p.add_argument("--no-shipped-tables", action="store_true",
                   help="leave out the tuning tables compiled into the runtime (tuning/*.table): "
                        "the entry points' built-in rule alone")
    p.add_argument("--tune-margin", type=float, default=0.1,
                   help="how much faster than the entry points' choice a candidate must be to "
                        "get an entry (default 0.1: above the timing noise seen)")
    p.add_argument("--tune-confirm", type=int, default=3, metavar="ROUNDS",
                   help="time the default and the two fastest candidates again this many rounds, "
                        "in turn, and decide on the medians (0: decide on the first pass)")
    args = p.parse_args()
    if args.tune and args.staged_configs:
        p.error("--tune times its candidates list, not the staged configurations")
    if args.tune:
        return tune_main(args)
    if args.staged_configs:
        try:
            staged = grid.staged_configs(args.dir)
        except ValueError as e:
            p.error(str(e))
        named = {c.partition("=")[0] for c in args.config}
        twice = sorted(named & {c.partition("=")[0] for c in staged})
        if twice:
            p.error(f"--config names {', '.join(twice)}, which DIR/configs.list names too")
        args.config += staged
    configs = dict(grid.parse_config(c) for c in args.config) or None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    rt = ggrt.Runtime(os.path.join(args.dir, "libgg_runtime.so"), [os.path.join(args.dir, "bench.ggb")],
                      shipped_tables=not args.no_shipped_tables, autotune=args.autotune)
    meta = {"shipped_tuning_tables": not args.no_shipped_tables, "autotune": args.autotune,
            "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), "device": torch.cuda.get_device_name(0),
            "torch": torch.__version__, "cuda": torch.version.cuda, "part": args.part,
            "method": "CUDA graph of rotated-input launches, 0.5 s ramp per side, median per launch"}
    try:
        import subprocess
        meta["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit",
             "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    print(json.dumps(meta), flush=True)
    todo = grid.matching(grid.cases(args.part), args.match)
    if args.limit:
        todo = todo[:args.limit]
    results = []
    started = time.perf_counter()
    for i, case in enumerate(todo):
        r = run_case(rt, case, args.quick, args.only, configs)
        results.append(r)
        brief = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items() if k != "sizes"}
        print(f"[{i + 1}/{len(todo)} {time.perf_counter() - started:.0f}s]", json.dumps(brief), flush=True)
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"meta": meta, "results": results}, f, indent=1)
        failed = [k for k in r if k.startswith("gg_") and k.endswith("_error")]
        if i == 0 and failed:  # the binding or the bundle is broken: every case would fail
            print("gg failed on the first case:", r[failed[0]], file=sys.stderr)
            return 2
    rt.close()
    print(table(results) if not configs else config_table(results, configs))
    bad = [r for r in results if any(k.startswith("gg_") and (k.endswith("_error") or
                                                              (k.endswith("_err") and r[k] > TOLERANCE))
                                     for k in r)]
    print(f"{len(results)} cases, {len(bad)} with a gg error or a result off the reference")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
