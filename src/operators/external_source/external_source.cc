#include "operators/external_source/external_source.h"

#include <cstring>

#include "operators/registry.h"

namespace sluice {

ExternalSource::ExternalSource(const OpSpec& spec) : Operator(spec) {}

void ExternalSource::Feed(const std::vector<ExternalSample>& samples, const std::string& layout,
                          const MemoryConfig& cfg) {
  if (samples.empty()) ThrowArgError("", "fed an empty batch");
  const DType dtype = samples[0].dtype;
  std::vector<TensorShape> shapes;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].dtype != dtype)
      ThrowArgError("", "sample " + std::to_string(i) + " has dtype " + std::string(ToString(samples[i].dtype)) +
                            ", sample 0 has " + std::string(ToString(dtype)) + "; a batch has one dtype");
    if (samples[i].shape.ndim() != samples[0].shape.ndim())
      ThrowArgError("", "sample " + std::to_string(i) + " has " + std::to_string(samples[i].shape.ndim()) +
                            " dimensions, sample 0 has " + std::to_string(samples[0].shape.ndim()));
    shapes.push_back(samples[i].shape);
  }
  const std::string want_dtype = Arg<std::string>("dtype");
  if (!want_dtype.empty() && ParseDType(want_dtype) != dtype)
    ThrowArgError("dtype", "the fed data has dtype " + std::string(ToString(dtype)) + ", expected " + want_dtype);
  const int64_t ndim = Arg<int64_t>("ndim");
  if (ndim >= 0 && ndim != samples[0].shape.ndim())
    ThrowArgError("ndim", "the fed data has " + std::to_string(samples[0].shape.ndim()) + " dimensions, expected " +
                              std::to_string(ndim));
  TensorList tl;
  {
    std::lock_guard lk(mu_);
    if (!spare_.empty()) {
      tl = std::move(spare_.front());
      spare_.pop_front();
    }
  }
  tl.Resize(shapes, dtype, cfg);
  const std::string own_layout = Arg<std::string>("layout");
  tl.set_layout(layout.empty() ? own_layout : layout);
  for (size_t i = 0; i < samples.size(); ++i) {
    const int k = static_cast<int>(i);
    if (tl.sample_bytes(k)) std::memcpy(tl.raw_mutable_sample(k), samples[i].data, tl.sample_bytes(k));
    tl.source(k) = SourceInfo{spec_.name + " (fed)", "", -1};
  }
  std::lock_guard lk(mu_);
  queue_.push_back(std::move(tl));
}

std::vector<OutputDesc> ExternalSource::Setup(Workspace& ws) {
  TensorList next;
  {
    std::lock_guard lk(mu_);
    if (queue_.empty())
      throw Error("no data was fed for this iteration: feed_input() must be called before each schedule_run()");
    next = std::move(queue_.front());
    queue_.pop_front();
  }
  std::swap(ws.Output(0), next);
  std::lock_guard lk(mu_);
  spare_.push_back(std::move(next));
  if (spare_.size() > 4) spare_.pop_front();
  return {};
}

SLUICE_REGISTER_OPERATORS(RegisterExternalSource) {
  r.Register(OpSchema("external_source")
                 .Doc("Data fed from outside the pipeline. In Python, `source` is a callable or iterable whose "
                      "batches are fed before each run; in C++, call Pipeline::FeedInput before each ScheduleRun.")
                 .Output("data", "The fed batch.")
                 .Arg("layout", ArgType::kString, std::string(), "Layout of the data, e.g. \"HWC\".")
                 .Arg("dtype", ArgType::kString, std::string(), "Expected dtype; fed data of another type is an error.")
                 .Arg("ndim", ArgType::kInt, int64_t{-1}, "Expected number of dimensions; -1: any.")
                 .Factory("cpu", [](const OpSpec& s) { return std::make_unique<ExternalSource>(s); }));
}

}  // namespace sluice
