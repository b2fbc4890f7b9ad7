# Configures and builds tests/e2e/gpu (used by CTest) from the same generated set
# as scripts/gpu-roundtrip.sh: the bundled kernels' stubs (GEN) plus
# Inputs/blackwell_only.kc compiled for sm_100a only and Inputs/big_smem.kc.
set(gen ${BIN}/gen)
file(REMOVE_RECURSE ${gen})
file(GLOB stubs ${GEN}/*.kcc.h ${GEN}/*.kcc.cpp)
# The CUDA stubs only: the HIP ones (*.hip.kcc.*) define the same names.
list(FILTER stubs EXCLUDE REGEX "\\.hip\\.kcc\\.")
file(COPY ${stubs} DESTINATION ${gen})
execute_process(
  COMMAND ${KCC} ${SRC}/Inputs/blackwell_only.kc -o ${gen} --target=sm_100a
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kcc failed on blackwell_only.kc")
endif()
execute_process(
  COMMAND ${KCC} ${SRC}/Inputs/big_smem.kc -o ${gen}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kcc failed on big_smem.kc")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja -DKCC_GEN_DIR=${gen}
          -DCUDAToolkit_ROOT=${CUDA_ROOT} -DCMAKE_BUILD_TYPE=Release
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the GPU programs failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the GPU programs failed")
endif()
