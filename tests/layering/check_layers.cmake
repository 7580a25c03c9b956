# Fails, naming the file and the line, when a source file under sim/, workloads/, reports/,
# backends/, kernels/ or cli/ includes a header from a room above its own (docs/architecture.md).
#   cmake -DROOT=<source dir> -P check_layers.cmake             check the tree
#   cmake -DROOT=<scratch dir> -DSELF_TEST=ON -P check_layers.cmake
#     writes a tree with known upward includes under ROOT and checks that each one is named
cmake_minimum_required(VERSION 3.25)

# Rooms, most specific first: a file belongs to the first room whose folder holds it.
# workloads/kube/ (the Kubernetes model) is no room of its own but part of workloads: the trace
# formats read its quantities and resources (YamlReader, pod_yaml) and it reads with YamlReader.
set(rooms workloads/hardware workloads sim/limiter sim/parallel sim/planning sim kernels/harness
    kernels backends reports cli)
# The rooms each room may include (its own, and the rooms below it).
set(below_workloads/hardware workloads/hardware)
set(below_workloads workloads workloads/hardware)
set(below_sim/limiter sim/limiter)
set(below_sim/parallel sim/parallel)
set(below_sim sim sim/limiter sim/parallel ${below_workloads})
set(below_sim/planning sim/planning ${below_sim})
set(below_kernels kernels)
set(below_backends backends kernels ${below_sim/planning})
set(below_reports reports ${below_sim/planning})
set(below_kernels/harness kernels/harness ${below_backends})
set(below_cli cli reports ${below_kernels/harness})
# Folders no library may include at all.
set(never tests bench)

function(room_of path out)
  foreach(r IN LISTS rooms)
    if(path MATCHES "^${r}/")
      set(${out} ${r} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# Sets `out` to "file:line: includes \"x\" (room a may include only ...)" for each violation.
function(check_tree root out)
  set(found "")
  file(GLOB_RECURSE files RELATIVE ${root} ${root}/sim/* ${root}/workloads/* ${root}/reports/*
       ${root}/backends/* ${root}/kernels/* ${root}/cli/*)
  list(SORT files)
  foreach(f IN LISTS files)
    if(NOT f MATCHES "\\.(h|hpp|cc|cpp|cu|cuh)$")
      continue()
    endif()
    room_of(${f} own)
    file(STRINGS ${root}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    file(STRINGS ${root}/${f} all)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" inc "${line}")
      string(REGEX REPLACE "/.*$" "" top "${inc}")
      if(top IN_LIST never)
        set(ok FALSE)
      else()
        room_of(${inc} target)
        if(target STREQUAL "")
          continue()  # a system or third-party header written with quotes
        endif()
        set(ok FALSE)
        if(target IN_LIST below_${own})
          set(ok TRUE)
        endif()
      endif()
      if(NOT ok)
        list(FIND all "${line}" n)
        math(EXPR n "${n} + 1")
        string(REPLACE ";" ", " allowed "${below_${own}}")
        list(APPEND found "${f}:${n}: includes \"${inc}\" (${own}/ may include only ${allowed})")
      endif()
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<dir> [-DSELF_TEST=ON] -P check_layers.cmake")
endif()

if(SELF_TEST)
  # One upward include per rule, one allowed include each, and a quoted system header.
  file(REMOVE_RECURSE ${ROOT})
  file(WRITE ${ROOT}/workloads/pod.cc "#include \"workloads/a.h\"\n#include \"sim/mig/x.h\"\n")
  file(WRITE ${ROOT}/sim/engine.cc "#include \"workloads/a.h\"\n#include \"backends/limiter/l.h\"\n")
  file(WRITE ${ROOT}/sim/limiter/l.cc "#include \"sim/limiter/l.h\"\n#include \"sim/x.h\"\n")
  file(WRITE ${ROOT}/sim/planning/p.cc "#include \"sim/x.h\"\n#include \"reports/r.h\"\n")
  file(WRITE ${ROOT}/sim/scenario/s.cc "#include \"sim/parallel/p.h\"\n#include \"sim/planning/p.h\"\n")
  file(WRITE ${ROOT}/reports/r.cc "#include \"sim/x.h\"\n#include \"cli/c.h\"\n")
  file(WRITE ${ROOT}/backends/b.cc "#include \"kernels/k.h\"\n#include \"kernels/harness/h.h\"\n")
  file(WRITE ${ROOT}/kernels/k.cu "#include \"cuda.h\"\n#include \"backends/local/x.h\"\n")
  file(WRITE ${ROOT}/kernels/harness/h.cc "#include \"backends/local/x.h\"\n#include \"cli/c.h\"\n")
  file(WRITE ${ROOT}/cli/c.cc "#include \"kernels/harness/h.h\"\n#include \"tests/t.h\"\n")
  check_tree(${ROOT} found)
  set(expected
      "backends/b.cc:2: includes \"kernels/harness/h.h\""
      "cli/c.cc:2: includes \"tests/t.h\""
      "kernels/harness/h.cc:2: includes \"cli/c.h\""
      "kernels/k.cu:2: includes \"backends/local/x.h\""
      "reports/r.cc:2: includes \"cli/c.h\""
      "sim/engine.cc:2: includes \"backends/limiter/l.h\""
      "sim/limiter/l.cc:2: includes \"sim/x.h\""
      "sim/planning/p.cc:2: includes \"reports/r.h\""
      "sim/scenario/s.cc:2: includes \"sim/planning/p.h\""
      "workloads/pod.cc:2: includes \"sim/mig/x.h\"")
  list(LENGTH found n_found)
  list(LENGTH expected n_expected)
  if(NOT n_found EQUAL n_expected)
    string(REPLACE ";" "\n  " text "${found}")
    message(FATAL_ERROR "self-test: expected ${n_expected} violations, found ${n_found}:\n  ${text}")
  endif()
  foreach(e IN LISTS expected)
    list(FIND found "${e}" at)
    if(at EQUAL -1)
      string(FIND "${found}" "${e} (" at)
    endif()
    if(at EQUAL -1)
      message(FATAL_ERROR "self-test: the check did not report: ${e}")
    endif()
  endforeach()
  message(STATUS "self-test: all ${n_expected} upward includes reported")
  return()
endif()

check_tree(${ROOT} found)
if(found)
  list(LENGTH found n)
  string(REPLACE ";" "\n  " text "${found}")
  message(FATAL_ERROR "${n} include(s) point up (docs/architecture.md):\n  ${text}")
endif()
message(STATUS "layering: every include points down")
