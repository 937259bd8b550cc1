// resize on the GPU (resize.cu): resize.h's separable passes on a batch.
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant. Callers build the descriptors on the host (pinned), upload
// them, then launch: one launch per batch (per pass), one descriptor per sample.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// ---- resize (resize.h): horizontal pass into `mid`, then vertical ----
// Coefficient tables come from the CPU code (resample_coeffs.h), so results match the CPU
// kernel: bit for bit on the uint8 -> uint8 22-bit fixed-point path, to rounding otherwise.
struct ResizeSampleDesc {
  const void* in;  // in rows, HWC
  void* mid;       // mid_rows x out_w*channels (uint8 for the fixed path, float otherwise)
  void* out;       // out_h x out_w x channels
  int64_t in_pitch;  // elements per input row (in_w * channels)
  int channels;
  int first_row, mid_rows;  // mid row r = input row first_row + r, resampled horizontally
  int out_w, out_h;
  int xt, yt;                // taps per output column / row
  const int32_t* x_start;    // out_w: first source column
  const void* x_coef;        // out_w * xt (int32 fixed point, or float)
  const int32_t* y_start;    // out_h: first mid row
  const void* y_coef;        // out_h * yt
};
// (in, out) in {(u8,u8) fixed point, (u8,f32), (f32,f32), (f32,u8)}.
void LaunchResize(const ResizeSampleDesc* descs, int num_samples, int64_t max_mid_elements,
                  int64_t max_out_elements, DType in_type, DType out_type, void* stream);

}  // namespace sluice::kernels::cuda
