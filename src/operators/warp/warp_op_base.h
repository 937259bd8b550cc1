// What warp_affine and rotate share: DALI's warp arguments (size, fill_value, interp_type, dtype),
// the checks of the images (HWC, uint8 or float32) and volumes (DHWC, where the schema takes them),
// and the per-sample kernel call. A subclass plans each sample's output size and output -> input
// map (DALI's WarpParamProvider steps).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/warp/affine_transform.h"
#include "kernels/warp/affine_transform_3d.h"
#include "kernels/warp/warp_affine.h"
#include "operators/operator.h"

namespace sluice {

class WarpOpBase : public Operator {
 public:
  explicit WarpOpBase(const OpSpec& spec);
  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void RunSample(Workspace& ws, int sample, int thread) override;

 protected:
  // Sets maps_[i] (output pixel centre -> input coordinates) and sizes_[i] ({height, width}) for
  // every sample; the images were checked.
  virtual void Plan(const Workspace& ws) = 0;
  // DHWC volumes (operators whose schema takes them): sets maps3_[i] (3x4, on (x, y, z)) and
  // sizes3_[i] ({depth, height, width}); the volumes were checked.
  virtual void PlanVolumes(const Workspace& ws);
  // The `size` argument per sample, rounded as DALI does (max(round(s), 1)); nullopt where not given.
  std::vector<std::optional<std::array<int64_t, 2>>> ExplicitSizes(const Workspace& ws) const;
  // The same for volumes: (depth, height, width).
  std::vector<std::optional<std::array<int64_t, 3>>> ExplicitSizes3(const Workspace& ws) const;

  std::vector<kernels::Affine2D> maps_;
  std::vector<std::array<int64_t, 2>> sizes_;
  std::vector<kernels::Affine3D> maps3_;
  std::vector<std::array<int64_t, 3>> sizes3_;
  // interp_type and fill_value, as read by the constructor.
  const kernels::WarpOptions& options() const { return options_; }

 private:
  void RunVolume(Workspace& ws, int i);

  kernels::WarpOptions options_;
  DType out_type_ = DType::kUInt8;
  bool volumes_ = false;  // this batch is DHWC
};

// DALI's interpolation names in DALIInterpType order (types.INTERP_* integers name them).
const std::vector<std::string>& WarpInterpNames();

// Declares size, fill_value, interp_type and dtype on `s` (with DALI's defaults). `volumes`: the
// images input also takes DHWC volumes and `size` may be (depth, height, width).
OpSchema& AddWarpArgs(OpSchema& s, bool volumes = false);

}  // namespace sluice
