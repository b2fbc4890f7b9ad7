# kcc_add_library(<name> <sources...> [DEPENDS <targets...>] [LINK <libs...>])
# A static library of kcc linked against the monolithic libMLIR.so and
# libLLVM.so (fast links; no duplicate static registrations).
#
# Every kcc library, tool, fuzzer and test executable precompiles the
# MLIR/LLVM headers nearly every file includes (KCC_PCH, on by default):
# parsing them is most of the time of compiling a kcc file (about 12 of 17
# CPU seconds for a typical pass, 45 of 57 for the driver), and CI builds
# everything twice on two cores (README, docs/architecture.md). One
# precompiled header serves them all, so they are all compiled with LLVM's
# own flags (llvm_update_compile_flags: no exceptions, as libMLIR itself;
# a precompiled header is refused by a file compiled with other ones).
option(KCC_PCH "Precompile the MLIR headers of kcc's libraries" ON)
set(KCC_PCH_HEADERS
  <string>
  <vector>
  <memory>
  <optional>
  <llvm/ADT/DenseMap.h>
  <llvm/ADT/STLExtras.h>
  <llvm/ADT/SmallVector.h>
  <llvm/ADT/StringRef.h>
  <llvm/Support/FormatVariadic.h>
  <llvm/Support/raw_ostream.h>
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/LLVMIR/LLVMDialect.h>
  <mlir/Dialect/LLVMIR/NVVMDialect.h>
  <mlir/Dialect/LLVMIR/ROCDLDialect.h>
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/BuiltinTypes.h>
  <mlir/IR/Matchers.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Pass/Pass.h>
  <mlir/Pass/PassManager.h>
  <mlir/Transforms/DialectConversion.h>)

# kcc's targets share one precompiled header, KccPch's (KCC_PCH_HEADERS and
# the kcc dialect's header): each parsing the same headers into a PCH of its
# own cost about 30 CPU seconds per target, two dozen targets, two builds in
# CI. KccPch is a static library like the others so that it gets the same
# flags (the sanitizer build's included: cmake/KccSanitizers.cmake).
function(kcc_reuse_precompiled_headers target)
  llvm_update_compile_flags(${target})
  if(NOT KCC_PCH)
    return()
  endif()
  if(NOT TARGET KccPch)
    set(src ${CMAKE_BINARY_DIR}/KccPch.cpp)
    if(NOT EXISTS ${src})
      file(WRITE ${src} "// The owner of kcc's shared precompiled header.\n")
    endif()
    add_library(KccPch STATIC ${src})
    llvm_update_compile_flags(KccPch)
    add_dependencies(KccPch KccIRIncGen)
    target_link_libraries(KccPch PUBLIC MLIR LLVM)
    target_precompile_headers(KccPch PRIVATE ${KCC_PCH_HEADERS}
                              "${CMAKE_SOURCE_DIR}/ir/Dialect.h")
  endif()
  target_precompile_headers(${target} REUSE_FROM KccPch)
  # cmake/KccSanitizers.cmake gives such targets the flags KccPch gets.
  set_target_properties(${target} PROPERTIES KCC_SHARED_PCH TRUE)
endfunction()

function(kcc_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} MLIR LLVM)
  kcc_reuse_precompiled_headers(${name})
endfunction()

# kcc_add_tool(<name> <sources...>): a command-line tool (LLVM's executable
# conventions) on the shared precompiled header.
function(kcc_add_tool name)
  add_llvm_executable(${name} ${ARGN})
  kcc_reuse_precompiled_headers(${name})
endfunction()
