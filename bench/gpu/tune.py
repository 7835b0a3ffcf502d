"""The H200 side of autotuning (docs/tuning.md): the candidate configurations of a bench
case, read from what `gg tune --candidates` printed on the build machine, and the tuning
database's line for the fastest, in the format runtime/tune_db.c reads. Pure Python, no
torch: bench.py --tune times the candidates.

    python3 bench/gpu/tune.py base    # the bundle lines of the cases tuned (stage_tune.sh)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as grid  # noqa: E402

_TILE = re.compile(r" --tile (\d+x\d+x\d+)(?: --split-k (\d+))?(?: --wpe \d+)?$")


def tuned_cases():
    """The cases tuned: the DeepSeek-V3 expert shapes of the main grid (G = 8, 2D-3D),
    one per rows-per-group bucket (the even split)."""
    return [c for c in grid.cases("main") if c["model"] == "DeepSeek-V3" and c["split"] == "even"]


def base_line(case, accum="fast"):
    """The case's kernel line with no tile: what gg tune --candidates extends."""
    return grid.bundle_line(case, accum, {accum: (accum, None)})


def candidates(case, lines, accum="fast"):
    """{name: (accum, MxNxK[/S])} of the candidate lines for the case (printed as its base
    line with --tile and --split-k appended)."""
    base = base_line(case, accum)
    out = {}
    for line in lines:
        if not line.startswith(base + " --tile "):
            continue
        m = _TILE.search(line[len(base):])
        if not m:
            raise ValueError(f"a candidate line gg tune did not print: {line!r}")
        tile = m.group(1) + (f"/{m.group(2)}" if m.group(2) else "")
        out["t" + tile] = (accum, tile)
    return out


def next_pow2(value):
    if value <= 0:
        return 0
    p = 1
    while p < value:
        p *= 2
    return p


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def entry_line(case, device, accum, tile, time_us, layout="offsets"):
    """The database line of a case's tuned configuration (runtime/tune_db.c's format: the
    key, the choice, its time, the checksum of the text before ' crc='); the bench's 2D-3D
    cases are the offsets layout, whose rows per group are total_M / G."""
    if layout not in ("offsets", "sizes"):
        raise ValueError("entry_line writes the packed-rows layouts (offsets, sizes)")
    dims, split = grid.split_tile(tile)
    name = re.sub(r"\s", "_", device) or "-"
    body = (f"target=sm_90a device={name} layout={layout} scaling=rowwise b=plain accum={accum} "
            f"m={next_pow2(case['total'] // case['g'])} n={case['n']} k={case['k']} -> "
            f"tile={dims} wpe=0 split={split} accum={accum} time_us={time_us:.3f}")
    return f"{body} crc={fnv1a64(body):016x}"


if __name__ == "__main__":
    if sys.argv[1:] != ["base"]:
        sys.exit("usage: tune.py base")
    seen = set()
    for case in tuned_cases():
        line = base_line(case)
        if line not in seen:
            seen.add(line)
            print(line)
