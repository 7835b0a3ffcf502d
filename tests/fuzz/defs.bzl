"""A fuzz target (tests/fuzz/fuzz.h) as a test: a fixed seed and a bounded run."""

def gg_fuzz_test(name, runs, deps, max_len = 4096, seeds = []):
    native.cc_test(
        name = name,
        size = "medium",
        srcs = [name + ".c"],
        copts = ["-Wall", "-Wextra", "-Werror"],
        args = ["--seed", "1", "--runs", str(runs), "--max-len", str(max_len)] +
               ["$(locations %s)" % s for s in seeds],
        data = seeds,
        deps = deps + ["//tests/fuzz:driver"],
    )
