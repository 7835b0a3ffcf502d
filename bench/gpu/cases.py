"""The benchmark grid of bench/gpu (issue 14), shared by the bundle list made here and the
run on the GPU machine, so both see the same problems. Pure Python, no torch."""

import os

# (model, N, K): the expert GEMMs of each model (G = 8 experts unless a case says).
SHAPES = [
    ("DeepSeek-V3", 4096, 7168),
    ("DeepSeek-V3", 7168, 2048),
    ("Llama-3-70B TP8", 1280, 8192),
    ("Llama-3-70B TP8", 8192, 1024),
    ("Llama-3-70B TP8", 7168, 8192),
    ("Llama-3-70B TP8", 8192, 3584),
    ("Llama-3-405B TP8", 2304, 16384),
    ("Llama-3-405B TP8", 16384, 2048),
    ("Llama-3-405B TP8", 13312, 16384),
    ("Llama-3-405B TP8", 16384, 6656),
]
TOTAL_M = [1, 16, 128, 1024, 4096, 16384]
DEEPSEEK = [(n, k) for model, n, k in SHAPES if model == "DeepSeek-V3"]

# torch._scaled_grouped_mm takes any row split in 2D-3D, but in 2D-2D every group's K but
# the last must be a multiple of 16 (its kernel's alignment asserts, on the device).
K_ALIGN = 16


def split(total, groups, how, unit=1):
    """Extents per group in multiples of `unit` (the last takes what is left): 'even'
    spreads them, 'hot' gives one expert half of them and spreads the rest. Groups may be
    empty; the extents add up to total."""
    units = total // unit
    rest = total - units * unit
    if how == "even" or groups == 1:
        sizes = [units // groups + (1 if g < units % groups else 0) for g in range(groups)]
    else:
        hot = (units + 1) // 2
        others = units - hot
        sizes = [hot] + [others // (groups - 1) + (1 if g < others % (groups - 1) else 0)
                         for g in range(groups - 1)]
    sizes = [s * unit for s in sizes]
    sizes[-1] += rest
    return sizes


def cases(part):
    """The problems of a part, each a dict: part, model, ranks (2d3d, 3d3d, 2d2d), n, k,
    g, sizes (per-group extent along the grouped axis: rows, or K for 2d2d), m (3d3d and
    2d2d: rows of each group), flops."""
    out = []
    if part in ("main", "all"):
        for model, n, k in SHAPES:
            for total in TOTAL_M:
                for how in ("even", "hot"):
                    if total == 1 and how == "hot":
                        continue  # the same single row
                    sizes = split(total, 8, how)
                    out.append(dict(part="main", model=model, ranks="2d3d", n=n, k=k, g=8,
                                    split=how, total=total, sizes=sizes, flops=2 * total * n * k))
    if part in ("ranks", "all"):
        for n, k in DEEPSEEK:
            for g in (32, 128):
                for total in (4096, 16384):
                    sizes = split(total, g, "even")
                    out.append(dict(part="ranks", model="DeepSeek-V3", ranks="2d3d", n=n, k=k, g=g,
                                    split="even", total=total, sizes=sizes, flops=2 * total * n * k))
            for total in (1024, 4096, 16384):
                m = total // 8  # 3D-3D: a slab of M rows per expert
                out.append(dict(part="ranks", model="DeepSeek-V3", ranks="3d3d", n=n, k=k, g=8, m=m,
                                split="even", total=total, sizes=[m] * 8, flops=2 * total * n * k))
            for total in (1024, 4096, 16384):
                # 2D-2D, the weight gradient: out[g] = dY_g^T X_g, [N, K] per expert, the
                # tokens (total) split over the experts along the reduction.
                sizes = split(total, 8, "even", K_ALIGN)
                out.append(dict(part="ranks", model="DeepSeek-V3 wgrad", ranks="2d2d", n=k, k=total,
                                g=8, m=n, split="even", total=total, sizes=sizes,
                                flops=2 * n * k * total))
        out.append(dict(part="ranks", model="dense 8192^3", ranks="3d3d", n=8192, k=8192, g=1,
                        m=8192, split="even", total=8192, sizes=[8192], flops=2 * 8192 ** 3))
    return out


# gg's configurations: name -> (accum, tile). 'fast' and 'promoted' are what the entry
# points take with no tile named (gg_tile_config_for), 'fast128' the 128x128 tile in fast
# mode, the comparison behind that choice.
CONFIGS = {
    "fast": ("fast", None),
    "fast128": ("fast", "128x128x128"),
    "promoted": ("promoted", None),
}


def parse_config(text):
    """NAME=ACCUM[:TILE], TILE as MxNxK or MxNxK/S (split-K S): a configuration of the
    command line (bench.py --config, cases.py's own), as a CONFIGS entry."""
    name, _, value = text.partition("=")
    accum, _, tile = value.partition(":")
    if not name or accum not in ("fast", "promoted") or (tile and not is_tile(tile)):
        raise ValueError(f"a configuration is NAME=fast|promoted[:MxNxK[/S]], got {text!r}")
    return name, (accum, tile or None)


STAGED = "configs.list"


def staged_configs(directory):
    """The configurations `stage.sh DIR CONFIG...` bundled into DIR (DIR/configs.list, one
    NAME=ACCUM[:TILE] a line), as --config texts: bench.py --staged-configs times them all,
    so a run cannot name other configurations than the bundle holds."""
    path = os.path.join(directory, STAGED)
    try:
        with open(path) as f:
            lines = [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        lines = []
    if not lines:
        raise ValueError(f"{directory} holds no staged configurations ({STAGED}): stage them "
                         "with bench/gpu/stage.sh DIR NAME=ACCUM[:MxNxK[/S]]...")
    for line in lines:
        parse_config(line)  # a malformed line fails here, before any case runs
    return lines


def is_tile(tile):
    """Whether a configuration's tile text has the form MxNxK or MxNxK/S (S >= 1)."""
    dims, _, split = tile.partition("/")
    parts = dims.split("x")
    return (len(parts) == 3 and all(p.isdigit() for p in parts) and
            (not split or (split.isdigit() and int(split) >= 1)))


def split_tile(tile):
    """(MxNxK, split-K) of a configuration's tile text."""
    dims, _, split = tile.partition("/")
    return dims, int(split) if split else 1


def bundle_line(case, config, configs=None):
    """The `gg bundle --list` line of a case's kernel (the descriptor ignores the rows)."""
    accum, tile = (configs or CONFIGS)[config]
    g = case["g"]
    if case["ranks"] == "2d3d":
        line = f"--op mm --ranks 2d3d --groups 1*{g} --N {case['n']} --K {case['k']}"
    elif case["ranks"] == "3d3d":
        line = f"--op mm --ranks 3d3d --groups 1*{g} --M 1 --N {case['n']} --K {case['k']}"
    else:  # the descriptor holds the total K: the groups' own split
        groups = ",".join(str(s) for s in case["sizes"])
        line = f"--op mm --ranks 2d2d --groups {groups} --M {case['m']} --N {case['n']}"
    line += f" --accum {accum}"
    if tile:
        dims, split = split_tile(tile)
        line += f" --tile {dims}"
        if split > 1:
            line += f" --split-k {split}"
    return line


def tflops(result, key):
    """TFLOP/s of one side of a measured case (key: gg_fast, torch_promoted, ...), or None."""
    ms = result.get(key + "_ms")
    return result["flops"] / ms / 1e9 if ms else None


def weight_bytes(case):
    """The bytes of the experts that have rows (0 for 2D-2D: both operands are activations)."""
    if case["ranks"] == "2d2d":
        return 0
    used = sum(1 for s in case["sizes"] if s > 0)
    return used * case["n"] * case["k"]


def weight_tbs(result, key):
    """TB/s of weights one side of a measured case streams, or None."""
    ms = result.get(key + "_ms")
    return weight_bytes(result) / ms / 1e9 if ms and weight_bytes(result) else None


def takes(case, config, configs=None):
    """Whether a configuration applies to a case: split-K is 2D-3D's (rows packed), with
    shares of at least the ring's 4 stages (gg_op_desc_validate refuses the rest)."""
    _, tile = (configs or CONFIGS)[config]
    split = split_tile(tile)[1] if tile else 1
    return split == 1 or (case["ranks"] == "2d3d" and case["k"] // 128 // split >= 4)


def kernel_lines(part="all", configs=None):
    lines = []
    for case in cases(part):
        for config in configs or CONFIGS:
            if not takes(case, config, configs):
                continue
            line = bundle_line(case, config, configs)
            if line not in lines:
                lines.append(line)
    return lines


if __name__ == "__main__":
    # cases.py [PART [NAME=ACCUM:TILE ...]]: the bundle lines of PART's cases for the
    # default configurations and the ones named (bench.py --config takes the same).
    import sys
    extra = dict(parse_config(a) for a in sys.argv[2:])
    for line in kernel_lines(sys.argv[1] if len(sys.argv) > 1 else "all", {**CONFIGS, **extra}):
        print(line)


def matching(todo, matches):
    """The cases whose fields equal every KEY=VALUE of `matches` (values compared as text,
    so total=1024 and split=even both work; KEY=A,B takes either); an unknown key is an
    error, not an empty run."""
    out = list(todo)
    for m in matches:
        key, sep, value = m.partition("=")
        if not sep or not todo or key not in todo[0]:
            raise ValueError(f"--match {m}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(sorted(todo[0])) if todo else '(no cases)'}")
        out = [c for c in out if str(c[key]) in value.split(",")]
    return out
