# Sanitizer and fuzzer builds of kcc (scripts/ci-sanitizers.sh, fuzz/README.md).
#
#   -DKCC_SANITIZE=ON  AddressSanitizer + UndefinedBehaviorSanitizer on kcc's
#                      own code (compiler libraries, tools, tests), aborting
#                      on the first report, with assertions enabled.
#   -DKCC_FUZZERS=ON   additionally instruments the compiler libraries for
#                      libFuzzer (-fsanitize=fuzzer-no-link) and builds the
#                      fuzz targets in fuzz/ (implies KCC_SANITIZE). One
#                      build directory serves both the sanitizer test run and
#                      the fuzzers.
#
# The flags are applied per target once the whole project is defined (a
# deferred call), so that exceptions need no edits elsewhere:
#  * The libraries of runtime/ stay uninstrumented: kcc_runtime and
#    kcc_runtime_hip are installed and linked into programs built outside
#    this build with other compilers and flags (the host-program lit tests,
#    the CMake consumer test), which cannot link sanitizer-instrumented
#    objects, and those programs load the fake drivers. The runtime's test
#    executables are instrumented.
#  * The prebuilt libLLVM.so / libMLIR.so are not instrumented: ASan still
#    sees their heap (malloc is intercepted), not their stack or globals.
option(KCC_SANITIZE "Build kcc with ASan and UBSan" OFF)
option(KCC_FUZZERS "Build the libFuzzer targets in fuzz/ (implies KCC_SANITIZE)" OFF)

set(KCC_FUZZ_COVERAGE inputs CACHE STRING
    "Sources with libFuzzer's coverage callbacks: inputs (the input readers) or all")
set_property(CACHE KCC_FUZZ_COVERAGE PROPERTY STRINGS inputs all)
if(KCC_FUZZ_COVERAGE STREQUAL "inputs")
  set(KCC_FUZZ_COVERAGE_FLAG
      -fsanitize-coverage-allowlist=${CMAKE_SOURCE_DIR}/cmake/fuzz-coverage-inputs.txt)
elseif(KCC_FUZZ_COVERAGE STREQUAL "all")
  set(KCC_FUZZ_COVERAGE_FLAG
      -fsanitize-coverage-ignorelist=${CMAKE_SOURCE_DIR}/cmake/fuzz-coverage-all.txt)
else()
  message(FATAL_ERROR "KCC_FUZZ_COVERAGE must be 'inputs' or 'all', not "
                      "'${KCC_FUZZ_COVERAGE}'")
endif()

if(KCC_FUZZERS AND NOT KCC_SANITIZE)
  set(KCC_SANITIZE ON CACHE BOOL "Build kcc with ASan and UBSan" FORCE)
endif()
if(NOT KCC_SANITIZE)
  return()
endif()

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "KCC_SANITIZE/KCC_FUZZERS need clang (configure with "
                      "-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)")
endif()
if(KCC_FUZZERS)
  message(STATUS "kcc: building with ASan + UBSan and the libFuzzer targets")
else()
  message(STATUS "kcc: building with ASan + UBSan")
endif()

set(KCC_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all)
set(KCC_SANITIZER_COMPILE_FLAGS
    ${KCC_SANITIZER_FLAGS} -fno-omit-frame-pointer
    # Symbolized reports without the cost of full debug info.
    -gline-tables-only
    # Our assertions (and the inline ones in LLVM/MLIR headers) catch more
    # than the sanitizers alone. Mixing this with the NDEBUG-built libraries
    # is safe: their ABI depends on llvm/Config/abi-breaking.h, not NDEBUG.
    -UNDEBUG)

# A shared library does not link the sanitizer runtime; its __asan_*
# references are resolved by the executable that loads it.
string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
       "${CMAKE_SHARED_LINKER_FLAGS}")

# Default runtime options (why: in the file) for every executable. The object
# is compiled here, at configure time, and put on executables' link lines
# only: a library linking it would have to be exported with the installed
# package. Its name carries the source's hash, so that a change relinks.
set(KCC_SANITIZER_DEFAULTS_SRC ${CMAKE_CURRENT_LIST_DIR}/KccSanitizerDefaults.cpp)
file(MD5 ${KCC_SANITIZER_DEFAULTS_SRC} hash)
string(SUBSTRING ${hash} 0 12 hash)
set(KCC_SANITIZER_DEFAULTS_OBJ ${CMAKE_BINARY_DIR}/KccSanitizerDefaults-${hash}.o)
execute_process(
  COMMAND ${CMAKE_CXX_COMPILER} -c ${KCC_SANITIZER_DEFAULTS_SRC}
          -o ${KCC_SANITIZER_DEFAULTS_OBJ}
          "-DKCC_LSAN_SUPPRESSIONS=\"${CMAKE_SOURCE_DIR}/fuzz/lsan.supp\""
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot compile ${KCC_SANITIZER_DEFAULTS_SRC}")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${KCC_SANITIZER_DEFAULTS_SRC})

# Applies the flags to every target defined in `dir` and below.
function(kcc_sanitize_targets dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    get_target_property(source_dir ${target} SOURCE_DIR)
    if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$"
       OR (NOT type STREQUAL "EXECUTABLE" AND
           source_dir STREQUAL "${CMAKE_SOURCE_DIR}/runtime"))
      continue()
    endif()
    target_compile_options(${target} PRIVATE ${KCC_SANITIZER_COMPILE_FLAGS})
    if(type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE ${KCC_SANITIZER_FLAGS}
                                            ${KCC_SANITIZER_DEFAULTS_OBJ})
    endif()
    # -fsanitize=fuzzer-no-link on the compiler libraries, and alike every
    # target on their shared precompiled header (a PCH is refused by a file
    # compiled with other -fsanitize flags): the tools, the unit tests, the
    # fuzzers (whose link adds libFuzzer's main); KCC_FUZZ_COVERAGE's list
    # picks the sources that get the callbacks. Executables get them from
    # the sanitizer runtime.
    get_target_property(shared_pch ${target} KCC_SHARED_PCH)
    if(KCC_FUZZERS AND (shared_pch OR (type STREQUAL "STATIC_LIBRARY" AND
                                       target MATCHES "^Kcc")))
      target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link
                             ${KCC_FUZZ_COVERAGE_FLAG})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    kcc_sanitize_targets(${subdir})
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR}
               CALL kcc_sanitize_targets ${CMAKE_SOURCE_DIR})
