"""bench/gpu/cases.py's staged configurations: `stage.sh DIR CONFIG...` keeps the
configurations it bundled in DIR/configs.list, and bench.py --staged-configs times exactly
those. The list is read back as --config texts; a missing or empty list, or a malformed
line, is an error before any case runs."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "gpu"))
import cases  # noqa: E402


def write(folder, text):
    with open(os.path.join(folder, cases.STAGED), "w") as f:
        f.write(text)


def test_the_staged_configurations_read_back_in_order(tmp_path):
    write(tmp_path, "w256s2=fast:128x256x128/2\n\nrule=fast\n  w192s1=fast:128x192x128/1  \n")
    got = cases.staged_configs(str(tmp_path))
    assert got == ["w256s2=fast:128x256x128/2", "rule=fast", "w192s1=fast:128x192x128/1"]
    parsed = dict(cases.parse_config(c) for c in got)
    assert parsed["w256s2"] == ("fast", "128x256x128/2")
    assert parsed["rule"] == ("fast", None)
    assert cases.split_tile(parsed["w256s2"][1]) == ("128x256x128", 2)


def test_no_list_or_an_empty_one_is_an_error_that_says_how_to_stage(tmp_path):
    with pytest.raises(ValueError, match="stage.sh DIR"):
        cases.staged_configs(str(tmp_path))
    write(tmp_path, "\n \n")
    with pytest.raises(ValueError, match="no staged configurations"):
        cases.staged_configs(str(tmp_path))


def test_a_malformed_line_is_refused(tmp_path):
    write(tmp_path, "w256s2=fast:128x256x128/2\nw=slow:128x128x128\n")
    with pytest.raises(ValueError, match="w=slow"):
        cases.staged_configs(str(tmp_path))


def test_the_bundle_list_holds_the_staged_configurations_kernels(tmp_path):
    # What stage.sh bundles for a configuration (cases.py all CONFIG...) is what
    # --staged-configs then asks for: the split kernel's line is in the list.
    script = os.path.join(HERE, "..", "..", "bench", "gpu", "cases.py")
    out = subprocess.run([sys.executable, script, "all", "w256s2=fast:128x256x128/2"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    plain = [l for l in out if "--N 4096 --K 7168" in l and "2d3d" in l and "128x256x128" in l]
    assert any("--split-k 2" in l for l in plain), plain


def test_a_malformed_tile_is_refused_before_the_run(tmp_path):
    for bad in ("w=fast:128x256x128/x", "w=fast:128x256", "w=fast:128xAx128/2", "w=fast:128x256x128/0"):
        write(tmp_path, bad + "\n")
        with pytest.raises(ValueError):
            cases.staged_configs(str(tmp_path))
