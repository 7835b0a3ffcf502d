# lit configuration for gg's FileCheck cases. Run through `bazel test //tests:lit_test`,
# which passes the tools Bazel built as parameters.
import os

import lit.formats

config.name = "gg"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = lit_config.params.get("exec_root", os.path.join(config.test_source_root, "Output"))

tools = lit_config.params["gg_tools"]
llvm_bin = "/usr/lib/llvm-22/bin"
config.substitutions.append(("%gg-opt", os.path.join(tools, "gg-opt")))
config.substitutions.append(("%gg ", os.path.join(tools, "gg") + " "))
config.substitutions.append(("%irdl", lit_config.params["gg_irdl"]))
config.substitutions.append(("%mlir-opt", os.path.join(llvm_bin, "mlir-opt")))
config.environment["PATH"] = llvm_bin + os.pathsep + os.environ.get("PATH", "")
