// One host sample handed to an external_source operator (Pipeline::FeedInput): a view of memory
// the caller owns until FeedInput returns (the pipeline copies it).
#pragma once
#include <sluice/dtype.h>
#include <sluice/tensor_shape.h>

namespace sluice {

struct ExternalSample {
  const void* data;
  TensorShape shape;
  DType dtype;
};

}  // namespace sluice
