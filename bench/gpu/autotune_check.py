"""GG_AUTOTUNE on the H200's own driver (docs/tuning.md): a launch inside a CUDA graph
capture is never benchmarked (the graph holds the launch alone, and replays right), a
launch outside one sweeps its key once, and a later capture takes the tuned entry with no
sweep. Every output is checked against float32. Run where bench.py runs:

    python3 DIR/autotune_check.py DIR

Prints the runtime's autotune log lines and one PASS/FAIL line per step; exits 1 on any
FAIL."""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import cases as grid  # noqa: E402
import ggrt  # noqa: E402


def main():
    directory = sys.argv[1]
    rt = ggrt.Runtime(os.path.join(directory, "libgg_runtime.so"), [os.path.join(directory, "bench.ggb")],
                      shipped_tables=False, autotune=True)
    lines = []
    case = dict(part="main", model="DeepSeek-V3", ranks="2d3d", n=7168, k=2048, g=8, split="even",
                total=16, sizes=grid.split(16, 8, "even"))
    gg_ops, _ = bench.make_inputs(case)
    run = rt.prepare("2d3d", "fast", None, *gg_ops)
    out = gg_ops[5]
    failures = 0

    def swept():
        return sum("candidates got" in line for line in rt.autotune_log)

    def verdict(step, ok, detail=""):
        nonlocal failures
        failures += not ok
        lines.append(f"{'PASS' if ok else 'FAIL'} {step} {detail}")
        print(lines[-1], flush=True)

    def captured():
        out.fill_(float("nan"))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            run(torch.cuda.current_stream().cuda_stream)
        graph.replay()
        torch.cuda.synchronize()
        err = bench.check(case, gg_ops, out)
        del graph
        return err

    err = captured()
    said = sum("capturing a graph" in line for line in rt.autotune_log)
    verdict("captured launch, no entry: not swept, said once, right",
            swept() == 0 and said == 1 and err <= bench.TOLERANCE, f"err={err:.2e} sweeps={swept()}")
    out.fill_(float("nan"))
    run(torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    err = bench.check(case, gg_ops, out)
    verdict("launch outside a capture: swept once, right", swept() == 1 and err <= bench.TOLERANCE,
            f"err={err:.2e} sweeps={swept()}")
    err = captured()
    verdict("captured again: the tuned entry, no sweep, right", swept() == 1 and err <= bench.TOLERANCE,
            f"err={err:.2e} sweeps={swept()}")
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
