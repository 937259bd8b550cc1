# The layer rule, enforced by the compiler.
#
#   core -> kernels -> operators -> readers
#                      operators -> pipeline -> api
#
# Every layer compiles against its own include root, a staging folder in the build tree
# (layer_include/<layer>/) that holds links to its own src/ folder, to the folders of the layers
# below it and to the public headers (include/sluice) it may use, and nothing else. An include of
# a higher layer (or of a sibling: readers and pipeline do not see each other) is then "No such
# file or directory" at compile time. Bazel stages headers the same way (_virtual_includes).
#
# The roots are PRIVATE to each layer's target, so they do not leak upward through linking; the
# public API target `sluice` exports only include/ (what an installed application sees). In-tree
# consumers that need internals name a root themselves with sluice_use_layer_root():
#   tests/<layer>            their layer's root (a kernels test cannot reach operators either)
#   benchmarks, fuzz         the api root (they sit above every layer)
#   test ops                 the operators root (they are operators)
#   python/src, tools        no root: the public API only (include/sluice)
# The layers.* CTest tests check the rule itself; an upward include fails the build.

set(SLUICE_LAYERS core kernels operators readers pipeline api)
set(SLUICE_LAYER_SEES_core core)
set(SLUICE_LAYER_SEES_kernels core kernels)
set(SLUICE_LAYER_SEES_operators core kernels operators)
set(SLUICE_LAYER_SEES_readers core kernels operators readers)
set(SLUICE_LAYER_SEES_pipeline core kernels operators pipeline)
set(SLUICE_LAYER_SEES_api core kernels operators readers pipeline api)

# Public headers belong to a layer as well: the layer that implements them, and those above it,
# see them. sluice/pipeline.h declares the pipeline and api layers' interface (PipelineOptions,
# Batch, statistics, class Pipeline); sluice/host_function.h the operators layer's python_function;
# dataset_index.h, storage.h, cuda.h and operator_library.h are the api layer's. Every other header in include/sluice
# is core's vocabulary (DType, TensorShape, Value, Error, ...) that any layer may use.
set(SLUICE_PUBLIC_HEADER_LAYER_pipeline.h pipeline)
set(SLUICE_PUBLIC_HEADER_LAYER_host_function.h operators)
set(SLUICE_PUBLIC_HEADER_LAYER_dataset_index.h api)
set(SLUICE_PUBLIC_HEADER_LAYER_storage.h api)
set(SLUICE_PUBLIC_HEADER_LAYER_cuda.h api)
set(SLUICE_PUBLIC_HEADER_LAYER_operator_library.h api)

# A root is folder links plus file links, remade at every configure (a new public header is
# picked up by the CONFIGURE_DEPENDS glob, which reconfigures).
file(GLOB SLUICE_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/sluice/*.h)
set(SLUICE_LAYER_ROOTS ${PROJECT_BINARY_DIR}/layer_include)
file(REMOVE_RECURSE ${SLUICE_LAYER_ROOTS})
foreach(layer IN LISTS SLUICE_LAYERS)
  set(root ${SLUICE_LAYER_ROOTS}/${layer})
  file(MAKE_DIRECTORY ${root}/sluice)
  foreach(seen IN LISTS SLUICE_LAYER_SEES_${layer})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${seen} ${root}/${seen} SYMBOLIC)
  endforeach()
  foreach(header IN LISTS SLUICE_PUBLIC_HEADERS)
    get_filename_component(name ${header} NAME)
    set(owner core)
    if(DEFINED SLUICE_PUBLIC_HEADER_LAYER_${name})
      set(owner ${SLUICE_PUBLIC_HEADER_LAYER_${name}})
    endif()
    if(owner IN_LIST SLUICE_LAYER_SEES_${layer})
      file(CREATE_LINK ${header} ${root}/sluice/${name} SYMBOLIC)
    endif()
  endforeach()
  set(SLUICE_LAYER_ROOT_${layer} ${root})
endforeach()

# A target that compiles against `layer`'s root (see above for who uses which).
function(sluice_use_layer_root target layer)
  if(NOT layer IN_LIST SLUICE_LAYERS)
    message(FATAL_ERROR "sluice_use_layer_root: unknown layer '${layer}'")
  endif()
  target_include_directories(${target} PRIVATE ${SLUICE_LAYER_ROOTS}/${layer})
endfunction()

# One static library per layer, from every source under src/<layer>/.
function(sluice_layer target layer)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${layer}/*.cc)
  if(SLUICE_WITH_CUDA)
    file(GLOB_RECURSE cu_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${layer}/*.cu)
    list(APPEND srcs ${cu_srcs})
  endif()
  add_library(${target} STATIC ${srcs})
  add_library(sluice::${target} ALIAS ${target})
  sluice_use_layer_root(${target} ${layer})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
  if(SLUICE_WITH_CUDA)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}" CUDA_SEPARABLE_COMPILATION OFF)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall>)
  endif()
endfunction()

# CTest: the rule itself. For every layer and one header owned by each layer (the public
# sluice/pipeline.h counts as the pipeline layer's, sluice/dtype.h as core's), preprocessing an
# include of that header against the layer's root must succeed exactly when the rule allows it,
# and otherwise fail because the header is out of reach (not for another reason).
function(sluice_add_layer_tests)
  set(probes "core=core/buffer.h" "core=sluice/dtype.h" "kernels=kernels/tensor/cast.h"
             "operators=operators/operator.h" "readers=readers/common/reader_operator.h" "pipeline=pipeline/graph.h"
             "pipeline=sluice/pipeline.h" "operators=sluice/host_function.h" "api=sluice/storage.h")
  set(probe_dir ${PROJECT_BINARY_DIR}/layer_probes)
  file(MAKE_DIRECTORY ${probe_dir})
  foreach(layer IN LISTS SLUICE_LAYERS)
    foreach(entry IN LISTS probes)
      string(REPLACE "=" ";" pair ${entry})
      list(GET pair 0 owner)
      list(GET pair 1 header)
      string(MAKE_C_IDENTIFIER ${header} id)
      set(probe ${probe_dir}/${layer}_includes_${id}.cc)
      file(WRITE ${probe} "#include \"${header}\"\n")
      set(test layers.${layer}_includes_${header})
      add_test(NAME ${test} COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -E -o /dev/null -I${SLUICE_LAYER_ROOTS}/${layer} ${probe})
      set_tests_properties(${test} PROPERTIES LABELS layers)
      if(NOT owner IN_LIST SLUICE_LAYER_SEES_${layer})
        # GCC: "x.h: No such file or directory"; clang: "'x.h' file not found".
        set_tests_properties(${test} PROPERTIES
          PASS_REGULAR_EXPRESSION "${header}: No such file or directory;'${header}' file not found")
      endif()
    endforeach()
  endforeach()
endfunction()
