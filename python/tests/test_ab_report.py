"""bench/gpu/ab_report.py reads an ab.sh run of two or more builds (a-N.json, b-N.json,
c-N.json ...) and prints one table for each build after A: its median time over the rounds
against A's, and FAIL where either build's result was off the reference. Synthetic runs
with times chosen here, so every figure it prints is known."""

import io
import json
import os
import sys
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "gpu"))
import ab_report  # noqa: E402


def case(n, gg_ms, torch_ms, err=0.001):
    return dict(model="Test", ranks="2d3d", n=n, k=1024, g=8, split="even", total=16384,
                flops=1.0, torch_fast_ms=torch_ms, torch_fast_err=0.001, gg_fast_ms=gg_ms,
                gg_fast_err=err)


def write(folder, side, round_, results):
    with open(os.path.join(folder, f"{side}-{round_}.json"), "w") as f:
        json.dump({"meta": {}, "results": results}, f)


def report(folder):
    out = io.StringIO()
    sys.argv = ["ab_report.py", str(folder)]
    with redirect_stdout(out):
        status = ab_report.main()
    return status, out.getvalue()


def test_each_build_against_the_first_over_the_rounds_median(tmp_path):
    # A: 1.0 and 3.0 ms over three rounds (median 2.0); B twice as fast; C 1.25x slower.
    for r, a_ms in enumerate([1.0, 3.0, 2.0], start=1):
        write(tmp_path, "a", r, [case(256, a_ms, 2.0), case(512, 4.0, 4.0)])
        write(tmp_path, "b", r, [case(256, a_ms / 2, 2.0), case(512, 2.0, 4.0)])
        write(tmp_path, "c", r, [case(256, 2.5, 2.0), case(512, 5.0, 4.0)])
    status, text = report(tmp_path)
    assert status == 0, text
    tables = text.strip().split("\n\n")
    assert len(tables) == 2
    assert "B/A" in tables[0] and "C/A" in tables[1]
    assert "2 rows: B/A median 2.000, min 2.000, max 2.000; 0 failed a check" in tables[0]
    assert "2 rows: C/A median 0.800, min 0.800, max 0.800; 0 failed a check" in tables[1]
    row = next(line for line in tables[0].splitlines() if line.startswith("Test") and " 256 " in line)
    times, ratios = row.split("|")[1:]
    assert times.split() == ["2000.0", "1000.0", "2000.0"]  # us: A, B, torch
    assert ratios.split() == ["2.00", "1.00", "2.00"]  # B/A, A/torch, B/torch


def test_a_result_off_the_reference_fails_its_row_and_the_run(tmp_path):
    write(tmp_path, "a", 1, [case(256, 1.0, 1.0)])
    write(tmp_path, "b", 1, [case(256, 1.0, 1.0, err=0.5)])
    status, text = report(tmp_path)
    assert status == 1
    assert text.splitlines()[2].endswith("FAIL")
    assert "1 failed a check" in text


def test_a_run_without_a_second_build_is_an_error(tmp_path):
    write(tmp_path, "a", 1, [case(256, 1.0, 1.0)])
    status, text = report(tmp_path)
    assert status == 1 and "no build B" in text
