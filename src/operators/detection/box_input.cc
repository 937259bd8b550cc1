#include "operators/detection/box_input.h"

namespace sluice {

void CheckBoxInput(const Operator& op, const Workspace& ws, int k, int cols, const char* what) {
  const TensorList& in = ws.Input(k);
  for (int i = 0; i < in.num_samples(); ++i) {
    const TensorShape& s = in.shape(i);
    if (s.ndim() != 2 || (cols > 0 && s[1] != cols))
      throw Error("sample " + std::to_string(i) + " of the " + what + " input has shape " + s.ToString() +
                  ", expected [N, " + (cols > 0 ? std::to_string(cols) : std::string("D")) + "]");
  }
}

std::vector<kernels::Box> ReadBoxes(const TensorList& in, int i, bool ltrb) {
  const float* p = in.sample<float>(i);
  const int64_t n = in.shape(i)[0];
  std::vector<kernels::Box> boxes(static_cast<size_t>(n));
  for (int64_t b = 0; b < n; ++b) boxes[static_cast<size_t>(b)] = kernels::ReadBox(p + 4 * b, ltrb);
  return boxes;
}

}  // namespace sluice
