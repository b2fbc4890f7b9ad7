# Configures and builds tests/e2e/gpu (used by CTest) from the same generated set
# as scripts/gpu-roundtrip.sh: the bundled kernels' stubs (GEN) plus
# Inputs/blackwell_only.kc compiled for sm_100a only, Inputs/big_smem.kc and
# Inputs/while_loops.kc.
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
foreach(input big_smem while_loops)
  execute_process(
    COMMAND ${KCC} ${SRC}/Inputs/${input}.kc -o ${gen}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kcc failed on ${input}.kc")
  endif()
endforeach()
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
