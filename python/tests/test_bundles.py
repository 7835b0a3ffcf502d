"""Kernels from bundles, shared with the C API: with libgg_runtime.so alone (no compiler) an
op finds its kernel only in a bundle, loaded by gg.load_bundle or named in $GG_BUNDLES."""

import os
import subprocess
import sys

import pytest

from support import DEVICE

pytestmark = pytest.mark.skipif(DEVICE.type != "cpu", reason="host bundles are made on this machine")

RUN = r"""
import os, sys, torch, gg
assert not gg.compiler_available(), gg.library_path
g = torch.Generator().manual_seed(int(sys.argv[2]))
XQ = torch.randn(9, 128, generator=g).to(torch.float8_e4m3fn)
WQ = torch.randn(2, 64, 128, generator=g).to(torch.float8_e4m3fn)
xs, ws = torch.rand(9, generator=g) + 0.5, torch.rand(2, 64, generator=g) + 0.5
sizes = torch.tensor([4, 5])
op = torch.ops.gg.f8f8bf16_rowwise_grouped_stacked
if sys.argv[1] == "load":
    try:
        op(XQ, WQ, xs, ws, sizes)
        raise SystemExit("ran without a bundle or a compiler")
    except gg.Error as e:
        assert e.code == "not found", e.code
        print("before:", e)
    gg.load_bundle(os.environ["BUNDLE"])
assert gg.bundle_kernel_count() == 1
out = op(XQ, WQ, xs, ws, sizes)
want = torch.cat([(XQ[:4].double() @ WQ[0].double().T) * xs[:4, None].double() * ws[0].double(),
                  (XQ[4:].double() @ WQ[1].double().T) * xs[4:, None].double() * ws[1].double()])
err = ((out.double() - want).abs() / (want.abs() + 1)).max().item()
assert err < 2**-7, err
stats = gg.cache_stats()
assert stats["bundle_hits"] >= 1 and stats["compiles"] == 0, stats
print("bundle ok", stats)
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    path = tmp_path_factory.mktemp("bundle") / "host.ggb"
    tool = os.environ.get("GG_TOOL")
    assert tool, "GG_TOOL must name the gg binary (python/run_tests.sh sets it)"
    subprocess.run([tool, "bundle", "--target", "host", "-o", str(path), "--op", "stacked", "--groups", "4,5",
                    "--N", "64", "--K", "128"], check=True, capture_output=True)
    return path


def run(mode, env_extra, tmp_path):
    runtime = os.path.join(os.environ["GG_LIB_DIR"], "libgg_runtime.so")
    env = {k: v for k, v in os.environ.items() if k != "GG_BUNDLES"}
    env.update(GG_LIBRARY=runtime, GG_CACHE_DIR=str(tmp_path / "cache"), **env_extra)
    return subprocess.run([sys.executable, "-c", RUN, mode, "11"], env=env, capture_output=True, text=True)


def test_load_bundle(bundle, tmp_path):
    result = run("load", {"BUNDLE": str(bundle)}, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "before:" in result.stdout, result.stdout  # the miss, before the bundle was loaded
    assert "bundle ok" in result.stdout


def test_bundles_from_the_environment(bundle, tmp_path):
    result = run("env", {"GG_BUNDLES": str(bundle)}, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "bundle ok" in result.stdout
