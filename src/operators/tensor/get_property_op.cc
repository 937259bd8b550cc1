// get_property: a sample's metadata as data (DALI's fn.get_property): "source_info" is where the
// sample came from (the file, or "archive.tar:member"), "layout" the batch's layout; both as the
// UTF-8 bytes of the text, a 1-D uint8 tensor per sample (bytes(arr) in Python gives the string).
#include <cstring>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class GetProperty : public Operator {
 public:
  explicit GetProperty(const OpSpec& spec) : Operator(spec), key_(Arg<std::string>("key")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    text_.resize(static_cast<size_t>(in.num_samples()));
    std::vector<TensorShape> shapes;
    for (int i = 0; i < in.num_samples(); ++i) {
      std::string& t = text_[static_cast<size_t>(i)];
      if (key_ == "layout") {
        t = in.layout();
      } else {
        const SourceInfo& s = in.source(i);
        t = s.path;
        if (!s.member.empty()) t += (t.empty() ? "" : ":") + s.member;
      }
      shapes.push_back(TensorShape{static_cast<int64_t>(t.size())});
    }
    return {{std::move(shapes), DType::kUInt8, "", false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const std::string& t = text_[static_cast<size_t>(i)];
    if (!t.empty()) std::memcpy(ws.Output(0).raw_mutable_sample(i), t.data(), t.size());
  }

 private:
  std::string key_;
  std::vector<std::string> text_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterGetProperty) {
  r.Register(OpSchema("get_property")
                 .Doc("A property of each sample as a 1-D uint8 tensor of UTF-8 bytes: `source_info` (the file the sample "
                      "was read from, or `archive.tar:member`; empty for data that came from no file) or `layout`.")
                 .Input("data", "Any data.")
                 .Output("output", "The property's bytes, per sample.")
                 .Arg("key", ArgType::kString, std::nullopt, "\"source_info\" or \"layout\".")
                 .Enum({"source_info", "layout"})
                 .Factory("cpu", MakeFactory<GetProperty>()));
}

}  // namespace sluice
