# Configures and builds tests/gpu against the stubs in GEN (used by CTest).
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja -DKCC_GEN_DIR=${GEN}
          -DCUDAToolkit_ROOT=${CUDA_ROOT} -DCMAKE_BUILD_TYPE=Release
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the GPU programs failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the GPU programs failed")
endif()
