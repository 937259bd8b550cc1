// Reading the box inputs of the detection operators: a float32 [N, 4] tensor per sample (N may be
// 0). The schema declares the dtype; the shape is checked here, once per batch, with one message.
#pragma once
#include <string>
#include <vector>

#include "kernels/detection/boxes.h"
#include "operators/operator.h"

namespace sluice {

// Throws naming `op` and the sample when a sample of input `k` is not [N, `cols`].
void CheckBoxInput(const Operator& op, const Workspace& ws, int k, int cols = 4, const char* what = "boxes");
// Sample i of input k ([N, 4] floats) as boxes.
std::vector<kernels::Box> ReadBoxes(const TensorList& in, int i, bool ltrb);

}  // namespace sluice
