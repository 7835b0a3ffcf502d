"""The wheel: built from python/ with gg's libraries inside, installed into a fresh virtual
environment, imported there (its own library, not the tree's) and run; and the
expert-parallel example over two CPU ranks (gloo)."""

import os
import subprocess
import sys
import venv

import pytest

from support import DEVICE

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
pytestmark = pytest.mark.skipif(DEVICE.type != "cpu", reason="packaging and gloo run on the CPU machine")

SMOKE = r"""
import os, sys, torch, gg
assert gg.library_path.startswith(sys.prefix), gg.library_path
assert gg.compiler_available() == (os.path.basename(gg.library_path) == "libgg.so")
g = torch.Generator().manual_seed(7)
XQ = torch.randn(9, 128, generator=g).to(torch.float8_e4m3fn)
WQ = torch.randn(2, 64, 128, generator=g).to(torch.float8_e4m3fn)
xs, ws = torch.rand(9, generator=g) + 0.5, torch.rand(2, 64, generator=g) + 0.5
sizes = torch.tensor([4, 5])
out = torch.ops.gg.f8f8bf16_rowwise_grouped_stacked(XQ, WQ, xs, ws, sizes)
want = torch.cat([(XQ[:4].double() @ WQ[0].double().T) * xs[:4, None].double() * ws[0].double(),
                  (XQ[4:].double() @ WQ[1].double().T) * xs[4:, None].double() * ws[1].double()])
err = ((out.double() - want).abs() / (want.abs() + 1)).max().item()
assert err < 2**-7, err
print("wheel:", gg.__version__, os.path.basename(gg.library_path), "ok")
"""


def test_wheel_installs_into_a_fresh_venv(tmp_path):
    lib_dir = os.environ.get("GG_LIB_DIR")
    assert lib_dir, "GG_LIB_DIR must name the built libraries (python/run_tests.sh sets it)"
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    os.path.join(ROOT, "python"), "-w", str(wheels)], check=True,
                   env=dict(os.environ, GG_LIB_DIR=lib_dir))
    (wheel,) = wheels.glob("gg-*.whl")
    assert wheel.name.endswith("-py3-none-linux_x86_64.whl"), wheel.name
    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(fresh)
    python = str(fresh / "bin" / "python")
    # Nothing of the source tree on the path: the fresh environment sees only the wheel.
    env = {k: v for k, v in os.environ.items() if k not in ("GG_LIBRARY", "PYTHONPATH")}
    env["GG_CACHE_DIR"] = str(tmp_path / "cache")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   env=env, cwd=str(tmp_path))
    # torch comes from this interpreter's environment (a .pth line), not a second download.
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    import torch
    with open(os.path.join(site, "torch_from_build_env.pth"), "w") as f:
        f.write(os.path.dirname(os.path.dirname(torch.__file__)) + "\n")
    run = subprocess.run([python, "-c", SMOKE], cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "wheel: 0." in run.stdout and "libgg.so ok" in run.stdout, run.stdout


def test_expert_parallel_over_two_ranks(tmp_path):
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    run = subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2",
                          os.path.join(ROOT, "examples", "python", "moe_ep.py"), "--device", "cpu",
                          "--tokens", "48"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "moe_ep: PASS" in run.stdout and run.stdout.count("bit-identical") == 2, run.stdout
