"""bench/gpu/tune.py writes the H200's tuning table in Python (the GPU machine has no
compiler): its lines must be the ones runtime/tune_db.c writes and reads. The line here is
the one docs/tuning.md shows, which tests/tune_test.cc checks the C side writes."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "gpu"))
import tune  # noqa: E402

DOCUMENTED = ("target=sm_90a device=NVIDIA_H200 layout=sizes scaling=rowwise b=plain accum=fast "
              "m=128 n=7168 k=2048 -> tile=128x128x128 wpe=0 split=2 accum=fast time_us=40.250 "
              "crc=ab579ca359a39aca")


def test_entry_line_is_the_runtimes():
    case = dict(ranks="2d3d", n=7168, k=2048, g=8, total=1024)
    assert tune.entry_line(case, "NVIDIA H200", "fast", "128x128x128/2", 40.25, layout="sizes") == DOCUMENTED
    offsets = tune.entry_line(case, "NVIDIA H200", "fast", "128x256x128", 3.0)
    assert " layout=offsets " in offsets and " split=1 " in offsets and " m=128 " in offsets


def test_candidates_are_read_for_their_case():
    case = dict(ranks="2d3d", n=4096, k=7168, g=8, total=16)
    base = tune.base_line(case)
    lines = [base + " --tile 128x128x128", base + " --tile 128x256x128 --split-k 3",
             base.replace("4096", "7168") + " --tile 128x64x128"]
    assert tune.candidates(case, lines) == {"t128x128x128": ("fast", "128x128x128"),
                                            "t128x256x128/3": ("fast", "128x256x128/3")}
    assert tune.next_pow2(16 // 8) == 2 and tune.next_pow2(0) == 0
