// HWC images as crop and flip take them: rank 3, an empty layout meaning HWC.
#pragma once
#include <string>

#include "core/tensor_list.h"
#include "sluice/error.h"

namespace sluice {

inline void RequireHwc(const TensorShape& s) {
  if (s.ndim() != 3) throw Error("expected an HWC image, got shape " + s.ToString());
}

// The layout of an image batch's output: the input's, or "HWC" when the input has none.
inline std::string ImageLayout(const TensorList& in) { return in.layout().empty() ? "HWC" : in.layout(); }

}  // namespace sluice
