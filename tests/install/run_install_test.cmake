# CTest driver (cmake -P): installs the built project into a fresh prefix, then configures, builds
# and runs tests/install/app -- an application outside the tree that finds Sluice with
# find_package(Sluice) and uses only include/sluice/*.h -- and builds examples/operator_library (an
# operator library, against sluice::sluice_operator_library) and, given PYTHON, loads it into the
# build tree's Python module and runs its operator (tests/install/load_operator_library.py).
#   -DSOURCE_DIR=... -DBINARY_DIR=... -DWORK_DIR=... [-DCUDA=ON|OFF] [-DPYTHON=...]
foreach(var SOURCE_DIR BINARY_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_install_test.cmake needs -D${var}=...")
  endif()
endforeach()
cmake_policy(SET CMP0057 NEW)  # if(... IN_LIST ...)
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
# Internal headers: only the operator framework, for operator libraries, and only under
# include/sluice/internal/.
file(GLOB_RECURSE internal_headers RELATIVE ${prefix}/include ${prefix}/include/*.h ${prefix}/include/*.inl)
list(FILTER internal_headers EXCLUDE REGEX "^sluice/[^/]+\\.h$")
foreach(header IN LISTS internal_headers)
  if(NOT header MATCHES "^sluice/internal/(core|kernels/crop|operators)/")
    message(FATAL_ERROR "an internal header outside the operator framework was installed: ${header}")
  endif()
endforeach()
if(NOT "sluice/internal/operators/operator_library.h" IN_LIST internal_headers)
  message(FATAL_ERROR "the operator-library headers were not installed (found: ${internal_headers})")
endif()
file(GLOB_RECURSE private_headers ${prefix}/include/*/executor.h ${prefix}/include/*/graph.h)
if(private_headers)
  message(FATAL_ERROR "pipeline internals were installed: ${private_headers}")
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
# The example operator library, built as a user would, against the installed package.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/operator_library -B ${WORK_DIR}/ops -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/ops -j2)
if(NOT EXISTS ${WORK_DIR}/ops/libsluice_example_ops.so)
  message(FATAL_ERROR "examples/operator_library built no libsluice_example_ops.so")
endif()
if(PYTHON)
  set(ENV{PYTHONPATH} ${SOURCE_DIR}/python)
  run(${PYTHON} ${SOURCE_DIR}/tests/install/load_operator_library.py ${WORK_DIR}/ops/libsluice_example_ops.so)
endif()
message("install.find_package: OK")
