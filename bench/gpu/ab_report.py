#!/usr/bin/env python3
"""The tables of an A/B run (bench/gpu/ab.sh), one for each build after A (B, C, ...): for
every case and configuration, the median time over the rounds of build A, that build and
torch in the same mode, its speedup over A and each build's ratio to torch; a case where
either build failed its check is marked FAIL.

    python3 bench/gpu/ab_report.py OUT      (OUT/a-N.json, OUT/b-N.json, OUT/c-N.json ...)"""
import glob
import json
import os
import statistics
import sys

TOLERANCE = 2e-2  # bench.py's


def load(folder, side):
    runs = []
    for path in sorted(glob.glob(os.path.join(folder, f"{side}-*.json"))):
        with open(path) as f:
            runs.append(json.load(f)["results"])
    return runs


def key(r):
    return (r["model"], r["ranks"], r["n"], r["k"], r["g"], r["split"], r["total"])


def medians(runs):
    """{case key: {field: median over runs}} of every *_ms field; *_err and *_error kept as
    the worst seen."""
    out = {}
    for run in runs:
        for r in run:
            cell = out.setdefault(key(r), {"times": {}, "bad": set(), "flops": r["flops"]})
            for field, value in r.items():
                if field.endswith("_ms"):
                    cell["times"].setdefault(field[:-3], []).append(value)
                elif field.startswith("gg_") and (field.endswith("_error") or
                                                  (field.endswith("_err") and value > TOLERANCE)):
                    cell["bad"].add(field.rsplit("_", 1)[0])
    for cell in out.values():
        cell["times"] = {k: statistics.median(v) for k, v in cell["times"].items()}
    return out


def report(a, b, side):
    """The table of build `side` against A; returns how many of its rows failed a check, or
    -1 when there were none to compare."""
    x = side.upper()
    configs = sorted({f for cell in list(a.values()) + list(b.values())
                      for f in cell["times"] if f.startswith("gg_")})
    head = (f"{'model':17} {'N':>5} {'K':>5} {'split':5} {'M':>6} {'config':13} | "
            f"{'A us':>8} {x + ' us':>8} {'torch us':>8} | {x + '/A':>5} {'A/t':>5} {x + '/t':>5}")
    lines = [head, "-" * len(head)]
    speedups, bad = [], 0
    for k in sorted(set(a) & set(b), key=lambda k: (k[0], k[2], k[3], k[6], k[5])):
        for config in configs:
            ta, tb = a[k]["times"].get(config), b[k]["times"].get(config)
            if ta is None or tb is None:
                continue
            mode = "promoted" if "promoted" in config else "fast"
            torch_t = a[k]["times"].get("torch_" + mode)
            failed = config in a[k]["bad"] or config in b[k]["bad"]
            bad += failed
            speedups.append(ta / tb)
            t = f"{torch_t * 1e3:8.1f}" if torch_t else f"{'-':>8}"
            rt = (lambda v: f"{torch_t / v:5.2f}") if torch_t else (lambda v: f"{'-':>5}")
            lines.append(f"{k[0][:17]:17} {k[2]:5} {k[3]:5} {k[5]:5} {k[6]:6} {config[3:]:13} | "
                         f"{ta * 1e3:8.1f} {tb * 1e3:8.1f} {t} | {ta / tb:5.2f} {rt(ta)} {rt(tb)}"
                         f"{' FAIL' if failed else ''}")
    print("\n".join(lines))
    if not speedups:
        print(f"build {x}: no rows in common with A")
        return -1
    print(f"{len(speedups)} rows: {x}/A median {statistics.median(speedups):.3f}, "
          f"min {min(speedups):.3f}, max {max(speedups):.3f}; {bad} failed a check")
    return bad


def main():
    folder = sys.argv[1]
    a = medians(load(folder, "a"))
    status, reported = 0, 0
    for side in "bcdef":
        runs = load(folder, side)
        if not runs:
            break
        if reported:
            print()
        status |= report(a, medians(runs), side) != 0
        reported += 1
    if not reported:
        print("no build B in " + folder)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
