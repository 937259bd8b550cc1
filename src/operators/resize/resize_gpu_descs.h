// resize, device="gpu": the kernel descriptors and coefficient tables of a batch
// (kernels/resize/resize_cuda.h), built on the host from the CPU operator's plan by the CPU
// kernel's own coefficient code (resample_coeffs.h), by the GPU operator and by the HostGrid tests
// alike. Two steps, because the upload area is sized between them:
//   Prepare: each sample's tables (per sample, through `for_each`: in parallel on the pool in the
//            operator, serially in tests), the upload's layout and the intermediate's size;
//   Fill:    the tables and the descriptors into `host` (upload_bytes()), with every pointer into
//            `device` (the upload's device copy; the same buffer for the host grid runner) and `mid`.
// Not thread-safe: one instance per operator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/resize/resample_coeffs.h"
#include "kernels/resize/resize_cuda.h"
#include "operators/resize/resize_plan.h"

namespace sluice::gpu {

class ResizeGpuDescs {
 public:
  using ForEach = std::function<void(const std::function<void(int)>&)>;
  void Prepare(const ResizePlan& plan, DType in_type, int n, const ForEach& for_each);
  // Returns the offset of the descriptor array in the upload.
  size_t descs_at() const { return descs_at_; }
  size_t upload_bytes() const { return upload_bytes_; }
  size_t mid_bytes() const { return mid_bytes_; }
  int64_t max_mid() const { return max_mid_; }
  int64_t max_out() const { return max_out_; }
  void Fill(const ResizePlan& plan, const TensorList& in, TensorList& out, uint8_t* host, const uint8_t* device,
            uint8_t* mid, const ForEach& for_each) const;

 private:
  struct Tables {  // a sample's coefficient tables and where its pieces lie in the upload and `mid`
    kernels::resize_detail::AxisCoeffs cx, cy;
    size_t x_start_at = 0, x_coef_at = 0, y_start_at = 0, y_coef_at = 0, mid_at = 0;
  };
  std::vector<Tables> samples_;
  bool fixed_ = false;  // uint8 -> uint8: 22-bit fixed point, uint8 intermediate
  size_t descs_at_ = 0, upload_bytes_ = 0, mid_bytes_ = 0;
  int64_t max_mid_ = 0, max_out_ = 0;
};

}  // namespace sluice::gpu
