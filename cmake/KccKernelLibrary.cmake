# kcc_add_kernel_library: compile .kc kernels with kcc at build time into a
# library of typed launch stubs with the fatbins embedded.
#
#   kcc_add_kernel_library(<name> [STATIC|SHARED|OBJECT]
#     SOURCES a.kc [b.kc ...]
#     [TARGETS sm_90a [sm_80 ...]]        # default: KCC_ARCHITECTURES
#     [DEFINES NAME=VALUE ...]            # kcc -D, every specialization
#     [OPTIONS flag ...]                  # more kcc flags (-O2, --num-warps=4)
#     [TARGET_MODELS file.toml ...]       # kcc --target-model, tracked as inputs
#     [OUTPUT_DIRECTORY dir])             # default: <binary dir>/<name>.kcc
#
# A source's own flags go in its source property KCC_OPTIONS (a list, after
# OPTIONS): set_source_files_properties(a.kc PROPERTIES KCC_OPTIONS
# --persistent=1), in the directory that calls kcc_add_kernel_library.
#
# Each source becomes one build step (`kcc a.kc -o dir --target=...`) with a
# depfile, so touching a.kc, or a target model it was compiled with, reruns
# kcc for a.kc only. For NVIDIA targets the library holds a.kcc.cpp (stubs +
# embedded fatbin), links kcc::runtime and exports the directory holding
# a.kcc.h: link it and `#include "a.kcc.h"`. For AMD targets (names starting
# with "gfx") the HIP stubs a.hip.kcc.cpp (+ offload bundle) link
# kcc::runtime_hip; they define the same names as the CUDA stubs, so with
# both vendors the HIP ones go into a second library, <name>_hip.
#
# The default target list is the cache variable KCC_ARCHITECTURES (like
# CMAKE_CUDA_ARCHITECTURES; initialised from the environment variable
# KCCARCHS when set); TARGETS overrides it per library. Each library records
# its targets and output directory in the properties KCC_ARCHITECTURES and
# KCC_OUTPUT_DIRECTORY.
include_guard(GLOBAL)

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "kcc_add_kernel_library needs CMake 3.20 or newer "
                      "(DEPFILE support for Makefile generators); this is "
                      "${CMAKE_VERSION}")
endif()
# Depfile paths are transformed for every generator (kcc writes absolute ones).
cmake_policy(SET CMP0116 NEW)

if(NOT DEFINED KCC_ARCHITECTURES)
  if(DEFINED ENV{KCCARCHS} AND NOT "$ENV{KCCARCHS}" STREQUAL "")
    set(_kcc_default_archs "$ENV{KCCARCHS}")
  else()
    set(_kcc_default_archs "sm_80;sm_90a;sm_100a")
  endif()
  set(KCC_ARCHITECTURES "${_kcc_default_archs}" CACHE STRING
      "Default kcc targets of kcc_add_kernel_library (list of sm_80, sm_90a, sm_100a, ...)")
  unset(_kcc_default_archs)
endif()

function(kcc_add_kernel_library name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "STATIC;SHARED;OBJECT"
    "OUTPUT_DIRECTORY" "SOURCES;TARGETS;DEFINES;OPTIONS;TARGET_MODELS")
  set(where "kcc_add_kernel_library(${name})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unexpected arguments '${ARG_UNPARSED_ARGUMENTS}'; "
      "expected SOURCES, TARGETS, DEFINES, OPTIONS, TARGET_MODELS, OUTPUT_DIRECTORY")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "${where}: no SOURCES; give the .kc files to compile")
  endif()
  if(NOT TARGET kcc::kcc OR NOT TARGET kcc::runtime)
    message(FATAL_ERROR "${where}: the targets kcc::kcc and kcc::runtime are "
      "missing; use find_package(kcc CONFIG REQUIRED) first")
  endif()

  set(type "")
  foreach(kind STATIC SHARED OBJECT)
    if(ARG_${kind})
      if(type)
        message(FATAL_ERROR "${where}: give at most one of STATIC, SHARED, OBJECT")
      endif()
      set(type ${kind})
    endif()
  endforeach()

  set(targets ${ARG_TARGETS})
  if(NOT targets)
    set(targets ${KCC_ARCHITECTURES})
  endif()
  string(REPLACE "," ";" targets "${targets}")
  list(REMOVE_DUPLICATES targets)
  if(NOT targets)
    message(FATAL_ERROR "${where}: no targets; give TARGETS or set KCC_ARCHITECTURES")
  endif()
  list(JOIN targets "," target_flag)

  set(dir ${ARG_OUTPUT_DIRECTORY})
  if(NOT dir)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.kcc)
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  set(flags --target=${target_flag})
  foreach(define ${ARG_DEFINES})
    if(NOT define MATCHES "^[A-Za-z_][A-Za-z0-9_]*=.+$")
      message(FATAL_ERROR "${where}: malformed DEFINES entry '${define}'; expected NAME=VALUE")
    endif()
    list(APPEND flags -D${define})
  endforeach()
  set(models)
  foreach(model ${ARG_TARGET_MODELS})
    get_filename_component(model "${model}" ABSOLUTE)
    list(APPEND models ${model})
    list(APPEND flags --target-model=${model})
  endforeach()
  list(APPEND flags ${ARG_OPTIONS})

  set(has_nvidia OFF)
  set(has_amd OFF)
  foreach(t ${targets})
    if(t MATCHES "^gfx")
      set(has_amd ON)
    else()
      set(has_nvidia ON)
    endif()
  endforeach()
  if(has_amd AND NOT TARGET kcc::runtime_hip)
    message(FATAL_ERROR "${where}: AMD targets need kcc::runtime_hip, which "
      "this kcc was built without (HIP headers and libamdhip64 were not found; "
      "Debian: libamdhip64-dev)")
  endif()

  set(stems)
  set(cuda_stubs)
  set(hip_stubs)
  foreach(src ${ARG_SOURCES})
    get_filename_component(src "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WLE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "${where}: two sources are named ${stem}.kc; their "
        "outputs (${stem}.kcc.h, ...) would collide; rename one or use two libraries")
    endif()
    list(APPEND stems ${stem})
    # In the order kcc writes them: Ninja wants the depfile's first target
    # to be the rule's first output.
    set(outputs)
    if(has_nvidia)
      list(APPEND outputs ${dir}/${stem}.fatbin ${dir}/${stem}.kcc.h
                          ${dir}/${stem}.kcc.cpp)
      list(APPEND cuda_stubs ${dir}/${stem}.kcc.cpp ${dir}/${stem}.kcc.h)
    endif()
    if(has_amd)
      list(APPEND outputs ${dir}/${stem}.hipfb ${dir}/${stem}.hip.kcc.h
                          ${dir}/${stem}.hip.kcc.cpp)
      list(APPEND hip_stubs ${dir}/${stem}.hip.kcc.cpp ${dir}/${stem}.hip.kcc.h)
    endif()
    list(APPEND outputs ${dir}/${stem}.manifest.json)
    get_source_file_property(own "${src}" KCC_OPTIONS)
    if(NOT own)
      set(own)
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND kcc::kcc ${src} -o ${dir} ${flags} ${own} --depfile=${dir}/${stem}.d
      DEPENDS ${src} kcc::kcc ${models}
      DEPFILE ${dir}/${stem}.d
      COMMENT "kcc ${stem}.kc (${target_flag})"
      VERBATIM COMMAND_EXPAND_LISTS)
  endforeach()

  set(libraries)
  if(has_nvidia)
    add_library(${name} ${type} ${cuda_stubs})
    target_link_libraries(${name} PUBLIC kcc::runtime)
    list(APPEND libraries ${name})
  endif()
  if(has_amd)
    set(hip_name ${name})
    if(has_nvidia)
      set(hip_name ${name}_hip)
    endif()
    add_library(${hip_name} ${type} ${hip_stubs})
    target_link_libraries(${hip_name} PUBLIC kcc::runtime_hip)
    list(APPEND libraries ${hip_name})
  endif()
  foreach(lib ${libraries})
    target_include_directories(${lib} PUBLIC $<BUILD_INTERFACE:${dir}>)
    set_target_properties(${lib} PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      KCC_ARCHITECTURES "${targets}"
      KCC_OUTPUT_DIRECTORY "${dir}")
  endforeach()
endfunction()
