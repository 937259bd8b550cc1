// What slice, pad, paste and random_resized_crop share: DALI's axes/axis_names resolution against
// a layout, and the typed call of the N-D slice-with-padding kernel (kernels/slice/slice_pad.h).
#pragma once
#include <string>
#include <vector>

#include <sluice/dtype.h>

#include "kernels/slice/slice_pad.h"
#include "operators/operator.h"

namespace sluice {

// Dimension indices named by `names` (letters of `layout`); throws naming `arg` when the layout
// lacks a letter (or is empty) or a letter repeats.
std::vector<int> AxesFromNames(const Operator& op, const std::string& arg, const std::string& names,
                               const std::string& layout);

// `axes` made non-negative (DALI: -ndim..ndim-1, negative counts from the back); throws naming
// `arg` when out of range or repeated.
std::vector<int> NormalizeAxes(const Operator& op, const std::string& arg, const std::vector<int>& axes, int ndim);

// Copies the window `s` of `in` (in_type) into `out` (out_type) with kernels::SlicePad, the fill
// values converted to out_type with cast's rules. out_type is in_type, or uint8/float16/float32.
void RunSlicePad(const void* in, DType in_type, void* out, DType out_type, const kernels::SliceSpec& s,
                 const std::vector<double>& fill);

// True if the batch is non-empty and every shape is the same (a contiguous output).
bool AllSameShape(const std::vector<TensorShape>& shapes);

}  // namespace sluice
