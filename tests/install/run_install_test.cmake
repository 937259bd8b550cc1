# CTest driver (cmake -P): installs the built project into a fresh prefix, then configures, builds
# and runs tests/install/app -- an application outside the tree that finds Sluice with
# find_package(Sluice) and uses only include/sluice/*.h.
#   -DSOURCE_DIR=... -DBINARY_DIR=... -DWORK_DIR=... [-DCUDA=ON|OFF]
foreach(var SOURCE_DIR BINARY_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_install_test.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${err}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
if(NOT EXISTS ${prefix}/include/sluice/pipeline.h)
  message(FATAL_ERROR "the install has no include/sluice/pipeline.h")
endif()
file(GLOB_RECURSE private_headers ${prefix}/include/*/operator.h ${prefix}/include/*/executor.h)
if(private_headers)
  message(FATAL_ERROR "internal headers were installed: ${private_headers}")
endif()
# The test-only operators (fn.testing.*) never ship.
file(GLOB_RECURSE libs ${prefix}/lib*/*.a ${prefix}/lib*/*.so)
if(NOT libs)
  message(FATAL_ERROR "the install has no libraries")
endif()
foreach(lib IN LISTS libs)
  file(STRINGS ${lib} hits REGEX "testing\\.(counter|add_constant|sleep|fail)")
  if(hits)
    message(FATAL_ERROR "${lib} carries the test-only operators: ${hits}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/app -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build -j2)
run(${WORK_DIR}/build/sluice_install_app ${SOURCE_DIR}/tests/data/images)
message("install.find_package: OK")
