// per_frame and sequence_rearrange: DALI's sequence operators (dali/operators/sequence/).
//
// per_frame marks a batch as per-frame: its layout gets a leading F, the data is copied as is.
// Given as an argument input to an operator that runs on sequences frame by frame
// (OpSchema::UnfoldsSequences; pipeline/sequence_unfold.h), sample i's value j is then used for
// frame j of sample i (instead of the same value for every frame).
//
// sequence_rearrange reorders (drops, repeats) the frames of sequences: output frame j is input
// frame new_order[j].
#include <cstring>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class PerFrameOp final : public Operator {
 public:
  explicit PerFrameOp(const OpSpec& spec) : Operator(spec), replace_(Arg<bool>("replace")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const std::string& layout = in.layout();
    const int ndim = in.num_samples() ? in.shape(0).ndim() : 1;
    for (int i = 0; i < in.num_samples(); ++i)
      if (in.shape(i).ndim() < 1 || in.shape(i).ndim() != ndim)
        throw Error("per_frame needs samples with a leading frame axis, of one number of dimensions; got shape " +
                    in.shape(i).ToString() + " in sample " + std::to_string(i));
    OutputDesc d;
    d.dtype = in.dtype();
    d.shapes = in.shapes();
    if (layout.empty()) {
      d.layout = "F" + std::string(static_cast<size_t>(ndim - 1), '*');
    } else if (layout[0] == 'F') {
      d.layout = layout;
    } else if (replace_) {
      d.layout = "F" + layout.substr(1);
    } else {
      ThrowArgError("replace", "the input's layout '" + layout + "' does not begin with F; give replace=True to "
                               "replace its first letter");
    }
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    if (const size_t b = in.sample_bytes(i)) std::memcpy(ws.Output(0).raw_mutable_sample(i), in.raw_sample(i), b);
  }

 private:
  const bool replace_;
};

class SequenceRearrangeOp final : public Operator {
 public:
  using Operator::Operator;

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    orders_ = PerSampleListArg<int64_t>(ws, "new_order");
    OutputDesc d;
    d.dtype = in.dtype();
    d.layout = in.layout();
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      const auto& order = orders_[static_cast<size_t>(i)];
      if (order.empty()) ThrowPerSample("new_order", i, "is empty");
      for (int64_t f : order)
        if (f < 0 || f >= s[0])
          ThrowPerSample("new_order", i, "frame " + std::to_string(f) + " is outside the sequence's " +
                                             std::to_string(s[0]) + " frames");
      std::vector<int64_t> dims = s.to_vector();
      dims[0] = static_cast<int64_t>(order.size());
      d.shapes.emplace_back(dims);
    }
    d.contiguous = SameShapes(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const size_t frame = s[0] ? in.sample_bytes(i) / static_cast<size_t>(s[0]) : 0;
    const auto* src = static_cast<const uint8_t*>(in.raw_sample(i));
    auto* dst = static_cast<uint8_t*>(ws.Output(0).raw_mutable_sample(i));
    for (int64_t f : orders_[static_cast<size_t>(i)]) {
      if (frame) std::memcpy(dst, src + static_cast<size_t>(f) * frame, frame);
      dst += frame;
    }
  }

 private:
  std::vector<std::vector<int64_t>> orders_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSequenceOps) {
  r.Register(OpSchema("per_frame")
                 .Doc("Marks the input as per-frame: its layout gets a leading F (an input without a layout gets "
                      "\"F\" followed by \"*\" for its other axes); the data is unchanged. As an argument input of an "
                      "operator that runs on sequences frame by frame (resize, crop, flip, crop_mirror_normalize, the "
                      "color operators, warp_affine, rotate), value j of a sample is used for frame j of that "
                      "sample's sequence instead of one value for every frame.")
                 .Input("input", "Per-sample argument values with a leading frame axis.")
                 .Output("output", "The same data, its layout beginning with F.")
                 .Arg("replace", ArgType::kBool, false,
                      "An input whose layout does not begin with F: replace its first letter with F (else an error).")
                 .Factory("cpu", MakeFactory<PerFrameOp>()));
  r.Register(OpSchema("sequence_rearrange")
                 .Doc("Reorders the frames of sequences: output frame j is input frame new_order[j] (frames may be "
                      "dropped or repeated).")
                 .Input("input", "Sequences: a layout beginning with F (FHWC, FCHW, F...), any type.",
                        {}, InputLayouts::AnySequence())
                 .Output("output", "The rearranged sequences, same layout.")
                 .Arg("new_order", ArgType::kIntList, std::nullopt,
                      "The input frame of each output frame (list, or per sample).", true)
                 .Factory("cpu", MakeFactory<SequenceRearrangeOp>()));
}

}  // namespace sluice
