# kcc_add_library(<name> <sources...> [DEPENDS <targets...>] [LINK <libs...>])
# A static library of kcc linked against the monolithic libMLIR.so and
# libLLVM.so (fast links; no duplicate static registrations).
function(kcc_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} MLIR LLVM)
endfunction()
