# Fails when a file of a daemon layer includes a daemon folder its layer may
# not use: dependencies inside daemon/ point down only (docs/architecture.md).
# Run at build time by sumcache_layer() in daemon/CMakeLists.txt, so an upward
# include fails the build of its layer.
#   -DLAYER=name -DFOLDERS=a;b -DALLOWED=c;d -DROOT=<daemon dir> -DSTAMP=<file>
cmake_minimum_required(VERSION 3.25)
foreach(var LAYER FOLDERS ROOT STAMP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "layer_check.cmake: ${var} is not set")
  endif()
endforeach()
set(violations "")
foreach(folder IN LISTS FOLDERS)
  file(GLOB files "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cc")
  foreach(file IN LISTS files)
    file(STRINGS "${file}" includes REGEX "^#include \"daemon/[a-z_]+/")
    foreach(line IN LISTS includes)
      string(REGEX MATCH "daemon/([a-z_]+)/" _ "${line}")
      set(target_folder "${CMAKE_MATCH_1}")
      if(target_folder IN_LIST FOLDERS OR target_folder IN_LIST ALLOWED)
        continue()
      endif()
      file(RELATIVE_PATH rel "${ROOT}" "${file}")
      string(APPEND violations "\n  daemon/${rel}: ${line}")
    endforeach()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "layer ${LAYER} (${FOLDERS}) may include only ${ALLOWED}; "
                      "these includes point up or across:${violations}")
endif()
file(WRITE "${STAMP}" "")
