"""Builds the gg wheel: the Python package and gg's shared libraries inside it (gg/lib).

The libraries come from $GG_LIB_DIR, else from this repository's Bazel output
(bazel-bin/sdk, after `bazel build //sdk:all`): libgg_runtime.so always, libgg.so (the
compiler; it needs LLVM/MLIR 22's shared libraries on the machine) when present. The
version is gg's (include/gg/version.h).
"""

import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARIES = ("libgg_runtime.so", "libgg.so")


def version():
    with open(os.path.join(HERE, "..", "include", "gg", "version.h")) as f:
        return re.search(r'#define GG_VERSION_STRING "([^"]+)"', f.read()).group(1)


def library_dir():
    explicit = os.environ.get("GG_LIB_DIR")
    directory = explicit or os.path.join(HERE, "..", "bazel-bin", "sdk")
    if not os.path.isfile(os.path.join(directory, "libgg_runtime.so")):
        raise SystemExit("gg: no libgg_runtime.so in %s: run `bazel build //sdk:all` in the repository "
                         "first, or set GG_LIB_DIR" % directory)
    return directory


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        source = library_dir()
        target = os.path.join(self.build_lib, "gg", "lib")
        os.makedirs(target, exist_ok=True)
        for name in LIBRARIES:
            path = os.path.join(source, name)
            if os.path.isfile(path):
                shutil.copyfile(path, os.path.join(target, name))
                os.chmod(os.path.join(target, name), 0o755)


try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """Any CPython 3 (ctypes), but this platform: the wheel carries native libraries."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands = {"build_py": BuildWithLibraries, "bdist_wheel": PlatformWheel}
except ImportError:
    commands = {"build_py": BuildWithLibraries}

setup(version=version(), cmdclass=commands)
