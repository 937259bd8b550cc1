// Batched CUDA kernels for the image operators: one launch per batch (per pass), one descriptor
// per sample in device memory. The math matches the CPU kernels in src/kernels/ (see each
// launcher); callers build the descriptors on the host (pinned), upload them, then launch.
//
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// ---- crop_mirror_normalize (kernels/crop_mirror_normalize.h) ----
// out[c] = convert(in[c] * a[c] + b[c]), fill[c] (already an output value) outside the image, 0 in
// the padded channel. `fma` picks a fused multiply-add (the CPU kernel's SIMD rows: uint8 RGB
// input without channel padding) or a rounded product then a rounded sum (its scalar rows), so
// that float results match the CPU bit for bit wherever the CPU's choice is known.
struct CmnSampleDesc {
  const void* in;  // HWC, in_type
  void* out;       // out_h x out_w x out_channels (HWC) or out_channels x out_h x out_w (CHW)
  int in_h, in_w, channels;
  int crop_x, crop_y, out_w, out_h;
  int out_channels;  // channels, or channels + 1 with pad_output
  int mirror;
  int fma;
  float a[4], b[4], fill[4];
};
// in_type: uint8 or float32; out_type: float32, float16, uint8, int8.
void LaunchCropMirrorNormalize(const CmnSampleDesc* descs, int num_samples, int64_t max_out_pixels, DType in_type,
                               DType out_type, bool chw, void* stream);

// ---- crop and flip (kernels/crop.h, kernels/flip.h), any element size ----
// The input is `outer` images of in_h x in_w pixels of `inner` elements (HWC: outer 1, inner C;
// CHW: outer C, inner 1; FHWC: outer F, inner C). Output pixel (y, x) of each image is input
// pixel (y0 + y', x0 + x') with y' = vflip ? out_h-1-y : y (x' likewise); pixels outside the
// input take `fill` (inner elements; zero when has_fill is 0).
inline constexpr int kMaxFillBytes = 64;
struct CropFlipDesc {
  const void* in;
  void* out;
  int64_t outer, in_h, in_w, inner;
  int64_t x0, y0, out_h, out_w;
  int hflip, vflip, has_fill;
  alignas(8) unsigned char fill[kMaxFillBytes];
};
// elem_size: 1, 2, 4 or 8.
void LaunchCropFlip(const CropFlipDesc* descs, int num_samples, int64_t max_out_elements, size_t elem_size,
                    void* stream);

// ---- transpose (kernels/transpose.h) ----
inline constexpr int kMaxGpuTransposeDims = 16;
struct TransposeDesc {
  const void* in;
  void* out;
  int ndim;
  int64_t out_shape[kMaxGpuTransposeDims];
  int64_t in_stride[kMaxGpuTransposeDims];  // input stride (elements) of output dim i
};
void LaunchTranspose(const TransposeDesc* descs, int num_samples, int64_t max_elements, size_t elem_size, void* stream);

// ---- cast (kernels/cast.h: saturating, round-to-nearest-even, NaN -> 0) ----
struct CastDesc {
  const void* in;
  void* out;
  int64_t n;
};
void LaunchCast(const CastDesc* descs, int num_samples, int64_t max_elements, DType in_type, DType out_type,
                void* stream);

// ---- resize (kernels/resize/resize.h): horizontal pass into `mid`, then vertical ----
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
