// lookup_table, device="gpu": the CPU operator's table (built once by kernels::LookupTable from the
// constant arguments) and plan (lookup_table_plan.h); the table and the descriptors go up in one
// copy per batch, then one batched launch. Bit for bit the CPU operator's results.
#ifdef SLUICE_WITH_CUDA
#include <cstring>

#include "kernels/color/lookup_table_cuda.h"
#include "operators/color/lookup_table_gpu_descs.h"
#include "operators/color/lookup_table_plan.h"
#include "operators/gpu/gpu_operator.h"

namespace sluice::gpu {
namespace {

class LookupTableGpu : public GpuOperator {
 public:
  explicit LookupTableGpu(const OpSpec& spec) : GpuOperator(spec), table_(MakeLookupTable(*this)) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    return {PlanLookupTable(table_, ws)};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int64_t max_el = MakeLookupTableDescs(in, ws.Output(0), descs_);
    cuda::Packer pack;
    const size_t table_at = pack.Add<uint8_t>(table_.table_bytes());
    const size_t descs_at = pack.Add<kernels::cuda::LookupTableDesc>(descs_.size());
    auto area = staging_.Prepare(pack.size(), ws.memory());
    std::memcpy(area.host + table_at, table_.table_data(), table_.table_bytes());
    if (!descs_.empty())
      std::memcpy(area.host + descs_at, descs_.data(), descs_.size() * sizeof(kernels::cuda::LookupTableDesc));
    staging_.Upload(pack.size(), Stream(ws));
    kernels::cuda::LaunchLookupTable(reinterpret_cast<const kernels::cuda::LookupTableDesc*>(area.device + descs_at),
                                     in.num_samples(), max_el, area.device + table_at,
                                     static_cast<int64_t>(table_.size()), in.dtype(), SizeOf(table_.out_type()),
                                     Stream(ws));
  }

 private:
  kernels::LookupTable table_;
  std::vector<kernels::cuda::LookupTableDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterLookupTableGpu) {
  AttachBackend(r, "lookup_table", "gpu", MakeFactory<LookupTableGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
