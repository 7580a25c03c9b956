# Fails, naming the file and the line, when a source file includes a header from a room it may
# not include (docs/architecture.md): every folder under sim/ and backends/ is a room of its own.
#   cmake -DROOT=<source dir> -P check_layers.cmake             check the tree
#   cmake -DROOT=<scratch dir> -DSELF_TEST=ON -P check_layers.cmake
#     plants, in a scratch tree, one forbidden include in every room, a file in an undeclared
#     folder and a cyclic declaration, and checks that each one is named
cmake_minimum_required(VERSION 3.25)

# The allowed arrows: each room and the rooms it may include directly. A room may also include
# itself and, transitively, whatever the rooms it names may include. The arrows must form no
# cycle (checked below), so no two rooms can ever include each other. A new folder under sim/ or
# backends/ must be declared here (and in docs/architecture.md) before anything in it builds.
set(layers
    "limiter:"
    "workloads/hardware:"
    "workloads:workloads/hardware"
    "workloads/kube:workloads"
    "workloads/inputs:workloads/kube"
    "sim:workloads/inputs"
    "sim/parallel:"
    "sim/topology:workloads"
    "sim/metrics:sim"
    "sim/placement:sim/metrics sim/topology"
    "sim/sharing:sim/placement"
    "sim/interference:sim/sharing"
    "sim/modes/*:sim/sharing limiter"
    "sim/modes:sim/modes/* sim/interference"
    "sim/calibration:sim/modes sim/interference"
    "sim/serving:sim/sharing"
    "sim/engine:sim/interference sim/serving"
    "sim/scenario:sim/engine sim/modes sim/parallel"
    "planning:sim/scenario"
    "kernels:"
    "backends:"
    "backends/interposer:limiter workloads"
    "backends/local:backends/interposer kernels sim/scenario"
    "backends/k8s:sim/scenario"
    "backends/device_plugin:backends/k8s backends/local"
    "reports:planning"
    "kernel_harness:backends/local"
    "cli:kernel_harness reports backends/device_plugin sim/calibration")
# Top-level folders whose sub-folders must each be a declared room (a file directly inside one
# belongs to the room of that name). A room "X/*" stands for every sub-folder of X, each a room
# of its own with the same arrows: the sharing modes, so that a new mode is one folder and one
# line in the registry (sim/modes/mode_registry.cc), and no mode may include another. Elsewhere
# a file belongs to the most specific declared room that holds it.
set(split_rooms workloads sim backends)
# Folders no library may include at all.
set(never tests bench)

# Reads "room:a b c" entries into the variables rooms (most specific first) and direct_<room>.
macro(read_layers entries)
  set(rooms "")
  foreach(entry IN LISTS ${entries})
    string(REPLACE "*" "_any_" entry "${entry}")
    string(REGEX REPLACE ":.*$" "" room "${entry}")
    string(REGEX REPLACE "^[^:]*:" "" deps "${entry}")
    string(REPLACE " " ";" deps "${deps}")
    list(REMOVE_ITEM deps "")
    list(APPEND rooms ${room})
    set(direct_${room} ${deps})
  endforeach()
  # Longest first, so that sim/parallel is matched before sim.
  list(SORT rooms COMPARE STRING ORDER DESCENDING)
endmacro()

# Sets below_<room> (the closure) for every room, and `cycle` to a message naming the rooms of a
# cycle among the declared arrows (empty when there is none).
function(close_layers out_cycle)
  set(cycle "")
  foreach(r IN LISTS rooms)
    set(reach ${direct_${r}})
    set(frontier ${direct_${r}})
    while(frontier)
      list(POP_FRONT frontier next)
      if(NOT next IN_LIST rooms)
        set(cycle "room ${r} names ${next}, which is not declared")
        break()
      endif()
      foreach(d IN LISTS direct_${next})
        if(NOT d IN_LIST reach)
          list(APPEND reach ${d})
          list(APPEND frontier ${d})
        endif()
      endforeach()
    endwhile()
    if(r IN_LIST reach AND cycle STREQUAL "")
      set(cycle "the declared arrows make a cycle through ${r}")
    endif()
    if(r MATCHES "/_any_$")
      set(below_${r} ${reach} PARENT_SCOPE)  # each folder of a "X/*" room is a room of its own
    else()
      set(below_${r} ${r} ${reach} PARENT_SCOPE)
    endif()
  endforeach()
  set(${out_cycle} "${cycle}" PARENT_SCOPE)
endfunction()

# Sets `out` to the room of a path ("" when it is in none) and `key` to the declaration that
# gives its arrows (the room itself, or "X/_any_" for a folder of a "X/*" room); `undeclared`
# to the folder when the path is in a split room's sub-folder that is not declared.
function(room_of path out key undeclared)
  set(${undeclared} "" PARENT_SCOPE)
  foreach(r IN LISTS rooms)
    if(r MATCHES "^(.*)/_any_$")
      set(parent ${CMAKE_MATCH_1})
      if(path MATCHES "^${parent}/([^/]+)/")
        set(${out} "${parent}/${CMAKE_MATCH_1}" PARENT_SCOPE)
        set(${key} ${r} PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  foreach(top IN LISTS split_rooms)
    if(path MATCHES "^${top}/([^/]+)/")
      set(sub "${top}/${CMAKE_MATCH_1}")
      if(NOT sub IN_LIST rooms)
        set(${undeclared} ${sub} PARENT_SCOPE)
        set(${out} "" PARENT_SCOPE)
        set(${key} "" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  foreach(r IN LISTS rooms)
    if(path MATCHES "^${r}/")
      set(${out} ${r} PARENT_SCOPE)
      set(${key} ${r} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
  set(${key} "" PARENT_SCOPE)
endfunction()

# Sets `out` to one "file:line: ..." entry per violation.
function(check_tree root out)
  set(found "")
  set(globs "")
  foreach(r IN LISTS rooms)
    string(REGEX REPLACE "/.*$" "" top "${r}")
    list(APPEND globs ${root}/${top}/*)
  endforeach()
  list(REMOVE_DUPLICATES globs)
  file(GLOB_RECURSE files RELATIVE ${root} ${globs})
  list(SORT files)
  set(reported_folders "")
  foreach(f IN LISTS files)
    if(NOT f MATCHES "\\.(h|hpp|cc|cpp|cu|cuh)$")
      continue()
    endif()
    room_of(${f} own own_key undeclared)
    if(NOT undeclared STREQUAL "")
      if(NOT undeclared IN_LIST reported_folders)
        list(APPEND reported_folders ${undeclared})
        list(APPEND found "${f}:1: is in ${undeclared}/, which is not a room in check_layers.cmake")
      endif()
      continue()
    endif()
    if(own STREQUAL "")
      continue()
    endif()
    file(STRINGS ${root}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    file(STRINGS ${root}/${f} all)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" inc "${line}")
      string(REGEX REPLACE "/.*$" "" top "${inc}")
      if(top IN_LIST never)
        set(ok FALSE)
      else()
        room_of(${inc} target target_key target_undeclared)
        if(target STREQUAL "" AND target_undeclared STREQUAL "")
          continue()  # a system or third-party header written with quotes
        endif()
        set(ok FALSE)
        if(target STREQUAL own OR (NOT target STREQUAL "" AND target_key IN_LIST below_${own_key}))
          set(ok TRUE)
        endif()
      endif()
      if(NOT ok)
        list(FIND all "${line}" n)
        math(EXPR n "${n} + 1")
        set(allowed ${own} ${below_${own_key}})
        list(REMOVE_DUPLICATES allowed)
        string(REPLACE ";" ", " allowed "${allowed}")
        string(REPLACE "_any_" "*" allowed "${allowed}")
        list(APPEND found "${f}:${n}: includes \"${inc}\" (${own}/ may include only ${allowed})")
      endif()
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<dir> [-DSELF_TEST=ON] -P check_layers.cmake")
endif()

read_layers(layers)
close_layers(cycle)
if(NOT cycle STREQUAL "")
  message(FATAL_ERROR "check_layers.cmake: ${cycle}")
endif()

if(SELF_TEST)
  # 1. The cycle check: a declaration with a cycle is refused.
  set(saved_layers ${layers})
  set(cyclic "a:b" "b:c" "c:a")
  read_layers(cyclic)
  close_layers(cycle)
  if(NOT cycle MATCHES "cycle through")
    message(FATAL_ERROR "self-test: the cyclic arrows a -> b -> c -> a were not refused")
  endif()
  read_layers(saved_layers)
  close_layers(cycle)
  # 2. In every room: one allowed include (its own room), one include of a room it may not
  # include (the first such room in the list; cli, which may include every room, gets tests/),
  # and a quoted system header; a "X/*" room is planted as the folder X/planted_a. 3. One
  # folder of a "X/*" room including another (X/planted_a from X/planted_b). 4. A file in an
  # undeclared sub-folder of each split room.
  file(REMOVE_RECURSE ${ROOT})
  set(expected "")
  foreach(r IN LISTS rooms)
    string(REPLACE "_any_" "planted_a" dir "${r}")
    set(bad "")
    foreach(other IN LISTS rooms)
      if(NOT other IN_LIST below_${r} AND NOT other STREQUAL r)
        string(REPLACE "_any_" "planted_c" bad "${other}/up.h")
        break()
      endif()
    endforeach()
    if(bad STREQUAL "")
      set(bad "tests/t.h")
    endif()
    file(WRITE ${ROOT}/${dir}/planted.cc
         "#include \"${dir}/own.h\"\n#include \"yaml-cpp/yaml.h\"\n#include \"${bad}\"\n")
    list(APPEND expected "${dir}/planted.cc:3: includes \"${bad}\"")
    if(r MATCHES "^(.*)/_any_$")
      set(sibling "${CMAKE_MATCH_1}/planted_b")
      file(WRITE ${ROOT}/${sibling}/sibling.cc "#include \"${dir}/own.h\"\n")
      list(APPEND expected "${sibling}/sibling.cc:1: includes \"${dir}/own.h\"")
    endif()
  endforeach()
  foreach(top IN LISTS split_rooms)
    file(WRITE ${ROOT}/${top}/undeclared_room_xyz/x.cc "#include \"${top}/undeclared_room_xyz/x.h\"\n")
    list(APPEND expected "${top}/undeclared_room_xyz/x.cc:1: is in ${top}/undeclared_room_xyz/")
  endforeach()
  check_tree(${ROOT} found)
  list(LENGTH found n_found)
  list(LENGTH expected n_expected)
  if(NOT n_found EQUAL n_expected)
    string(REPLACE ";" "\n  " text "${found}")
    message(FATAL_ERROR "self-test: expected ${n_expected} violations, found ${n_found}:\n  ${text}")
  endif()
  foreach(e IN LISTS expected)
    string(FIND "${found}" "${e}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "self-test: the check did not report: ${e}")
    endif()
  endforeach()
  message(STATUS "self-test: the cyclic declaration, ${n_expected} planted violations all reported")
  return()
endif()

check_tree(${ROOT} found)
if(found)
  list(LENGTH found n)
  string(REPLACE ";" "\n  " text "${found}")
  message(FATAL_ERROR "${n} include(s) break the layers (docs/architecture.md):\n  ${text}")
endif()
list(LENGTH rooms n_rooms)
message(STATUS "layering: every include follows the arrows between ${n_rooms} rooms")
