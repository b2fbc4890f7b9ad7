# kcc_add_library(<name> <sources...> [DEPENDS <targets...>] [LINK <libs...>])
# A static library of kcc linked against the monolithic libMLIR.so and
# libLLVM.so (fast links; no duplicate static registrations).
#
# Libraries of three or more sources precompile the MLIR/LLVM headers nearly
# every file includes (KCC_PCH, on by default): parsing them is most of the
# time of compiling a kcc file (about 12 of 17 CPU seconds for a typical pass),
# and CI builds everything twice on two cores (README, docs/architecture.md).
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
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/BuiltinTypes.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Pass/Pass.h>
  <mlir/Transforms/DialectConversion.h>)

# Precompiles KCC_PCH_HEADERS (and the kcc dialect's header when `target`
# builds after its generated files) for `target`.
function(kcc_precompile_headers target)
  if(NOT KCC_PCH)
    return()
  endif()
  set(headers ${KCC_PCH_HEADERS})
  if(ARGN)
    list(APPEND headers ${ARGN})
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()

function(kcc_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} MLIR LLVM)
  list(LENGTH ARG_UNPARSED_ARGUMENTS sources)
  if(sources GREATER_EQUAL 3)
    if("KccIRIncGen" IN_LIST ARG_DEPENDS)
      kcc_precompile_headers(${name} "${CMAKE_SOURCE_DIR}/ir/Dialect.h")
    else()
      kcc_precompile_headers(${name})
    endif()
  endif()
endfunction()
