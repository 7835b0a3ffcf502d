"""GG_AUTOTUNE through the binding: with it, the first launch of a key sweeps its candidates
(on CPU tensors: the host target, compiled here) and keeps the fastest in tuning.db in the
kernel cache directory; the result is the op's either way; without it nothing is tuned."""

import os
import subprocess
import sys

import pytest

from support import DEVICE

pytestmark = pytest.mark.skipif(DEVICE.type != "cpu", reason="the host target's sweep; the H200's is bench/gpu")

RUN = r"""
import sys, torch, gg
g = torch.Generator().manual_seed(int(sys.argv[1]))
XQ = torch.randn(9, 128, generator=g).to(torch.float8_e4m3fn)
WQ = torch.randn(2, 64, 128, generator=g).to(torch.float8_e4m3fn)
xs, ws = torch.rand(9, generator=g) + 0.5, torch.rand(2, 64, generator=g) + 0.5
sizes = torch.tensor([4, 5])
want = torch.cat([(XQ[:4].double() @ WQ[0].double().T) * xs[:4, None].double() * ws[0].double(),
                  (XQ[4:].double() @ WQ[1].double().T) * xs[4:, None].double() * ws[1].double()])
for _ in range(2):
    out = torch.ops.gg.f8f8bf16_rowwise_grouped_stacked(XQ, WQ, xs, ws, sizes)
    err = ((out.double() - want).abs() / (want.abs() + 1)).max().item()
    assert err < 2**-7, err
print("ok", gg.cache_stats()["compiles"])
"""


def run(tmp_path, autotune):
    env = {k: v for k, v in os.environ.items() if k not in ("GG_AUTOTUNE", "GG_BUNDLES")}
    env["GG_CACHE_DIR"] = str(tmp_path / "cache")
    if autotune:
        env["GG_AUTOTUNE"] = "1"
    result = subprocess.run([sys.executable, "-c", RUN, "5"], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def entries(tmp_path):
    path = tmp_path / "cache" / "tuning.db"
    if not path.exists():
        return None
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def test_autotune_sweeps_once_and_keeps_the_choice(tmp_path):
    _, compiles = run(tmp_path, autotune=True)
    # The three candidates (64, 128, 256 rows x 64 x 128) and the rule's own kernel.
    assert int(compiles) == 4, compiles
    lines = entries(tmp_path)
    assert lines is not None and len(lines) == 1, lines
    assert lines[0].startswith("target=host device=- layout=sizes scaling=rowwise"), lines[0]
    # A second process reads the database: nothing swept, one kernel compiled.
    _, compiles = run(tmp_path, autotune=True)
    assert int(compiles) <= 1, compiles


def test_nothing_is_tuned_without_the_switch(tmp_path):
    run(tmp_path, autotune=False)
    assert entries(tmp_path) is None
