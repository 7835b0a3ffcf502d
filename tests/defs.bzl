"""gg's test macro: a GoogleTest binary with gtest_main and gg's warning flags."""

def gg_cc_test(name, srcs, deps = [], size = "small", **kwargs):
    native.cc_test(
        name = name,
        srcs = srcs,
        size = size,
        copts = ["-Wall", "-Wextra", "-Werror"],
        deps = deps + ["@system//:gtest_main", "@system//:gtest"],
        **kwargs
    )
