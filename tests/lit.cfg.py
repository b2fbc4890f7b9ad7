# lit configuration for kcc: compiler input -> output and diagnostics tests.
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "kcc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".kc", ".mlir", ".test"]
config.excludes = ["unit", "Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kcc_obj_root, "tests")

config.substitutions.append(("%kernels", os.path.join(config.kcc_src_root, "kernels")))
# Files outside tests/ by their place in the source tree, so that a test's
# own place in tests/ does not matter: %bench/gemm/gemm.kc, %kcc_src/tools/...
config.substitutions.append(("%bench", os.path.join(config.kcc_src_root, "bench")))
config.substitutions.append(("%kcc_src", config.kcc_src_root))
config.substitutions.append(("%cuda", config.cuda_path))
config.substitutions.append(("%kcc_runtime_include", os.path.join(config.kcc_src_root, "runtime", "include")))
config.substitutions.append(("%kcc_runtime_lib", os.path.join(config.kcc_obj_root, "runtime", "libkcc_runtime.a")))
# The stand-in libcuda.so.1 of the runtime's tests (runtime/tests/FakeCuda.cpp).
config.substitutions.append(("%kcc_fake_cuda", os.path.join(config.kcc_obj_root, "runtime", "libkcc_runtime_fake_cuda.so")))
config.environment["CUDA_PATH"] = config.cuda_path
# lit already runs a test per core: simulators run their CTAs on one host
# thread each (tests/e2e/sim/host-threads.test runs them side by side).
config.environment["KCC_SIM_THREADS"] = "1"

# kcc's tools first, then LLVM's unversioned tools, then the usual PATH
# (shell utilities, python3).
config.environment["PATH"] = os.pathsep.join(
    [config.kcc_tools_dir, config.llvm_tools_dir, os.environ.get("PATH", "/usr/bin:/bin")])
llvm_config.use_default_substitutions()
tools = ["kcc", "kcc-opt", "kcc-difftest", "kcc-sim", "FileCheck", "not", "split-file", "count", "llvm-objdump",
         "mlir-translate", "llc"]
llvm_config.add_tool_substitutions(tools, [config.kcc_tools_dir, config.llvm_tools_dir])
if os.path.exists(os.path.join(config.cuda_path, "bin", "ptxas")):
    config.available_features.add("ptxas")
# The ASan + UBSan build (scripts/ci-sanitizers.sh): the simulator GEMM
# difftests run one case of each kind there (`%if sanitized`), every case in
# the release build. Each case re-runs the same lowering and simulator code
# paths at 3-4x the release cost under ASan.
if config.kcc_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("sanitized")
# HIP host side: kcc_runtime_hip (built where libamdhip64-dev is installed),
# and the fake libamdhip64.so.5 the HIP tests run against.
if config.kcc_runtime_hip.upper() in ("ON", "1", "TRUE", "YES") and config.fake_hip_dir:
    config.available_features.add("hip")
    config.substitutions.append(("%kcc_runtime_hip_lib", os.path.join(config.kcc_obj_root, "runtime", "libkcc_runtime_hip.a")))
    config.substitutions.append(("%fake_hip_dir", config.fake_hip_dir))
