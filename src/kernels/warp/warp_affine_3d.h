// Affine warp of a DHWC volume (any number of channels, packed) by an output -> input map, with
// the conventions of the image warp (warp_affine.h) in three dimensions:
//   - output voxel (x, y, z) samples the input at M * (x + 0.5, y + 0.5, z + 0.5) (voxel centres at
//     half-integer coordinates; the volume spans [0, W] x [0, H] x [0, D]);
//   - kNearest takes voxel floor() of each coordinate; kLinear blends the 2x2x2 voxels around the
//     point minus 0.5 (trilinear, float32 weights, width then height then depth);
//   - border: with `clamp` the taps outside are clamped to the edge; otherwise they read `fill`
//     (so linear sampling blends volume and fill near the edge);
//   - uint8 outputs are rounded half away from zero and saturated; float outputs as computed.
// scipy.ndimage.affine_transform(order=1, mode="nearest" / "grid-constant") computes the same map
// in index space (matrix with the axes reversed, offset A (0.5, 0.5, 0.5) + t - 0.5).
// Thread-safety: reentrant, allocates nothing. `in` and `out` must not overlap.
#pragma once
#include <cstdint>

#include "kernels/warp/affine_transform_3d.h"
#include "kernels/warp/warp_affine.h"

namespace sluice::kernels {

// A packed DHWC volume: element (z, y, x, c) is data[((z * height + y) * width + x) * channels + c].
template <typename T>
struct DhwcView {
  T* data = nullptr;
  int64_t depth = 0, height = 0, width = 0, channels = 0;
};

// out(x, y, z) = in sampled at inverse_map * (x + 0.5, y + 0.5, z + 0.5). Throws sluice::Error
// when the channel counts differ or a view is negative-sized.
void WarpAffine3D(DhwcView<const uint8_t> in, DhwcView<uint8_t> out, const Affine3D& inverse_map, const WarpOptions& opt);
void WarpAffine3D(DhwcView<const uint8_t> in, DhwcView<float> out, const Affine3D& inverse_map, const WarpOptions& opt);
void WarpAffine3D(DhwcView<const float> in, DhwcView<float> out, const Affine3D& inverse_map, const WarpOptions& opt);
void WarpAffine3D(DhwcView<const float> in, DhwcView<uint8_t> out, const Affine3D& inverse_map, const WarpOptions& opt);

}  // namespace sluice::kernels
