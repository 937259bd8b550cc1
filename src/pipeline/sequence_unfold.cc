#include "pipeline/sequence_unfold.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "operators/sequence_frames.h"

namespace sluice {
namespace {

bool IsSequenceLayout(const std::string& layout) { return !layout.empty() && layout[0] == 'F'; }

// `src` with every sample repeated frames[i] times, or (per_frame) split into its frames.
std::unique_ptr<TensorList> Unfold(const TensorList& src, const std::vector<int64_t>& frames, bool per_frame,
                                   const std::string& what, const MemoryConfig& mem) {
  auto out = std::make_unique<TensorList>();
  std::vector<TensorShape> shapes;
  const int n = src.num_samples();
  if (n != static_cast<int>(frames.size()))
    throw Error(what + " has " + std::to_string(n) + " samples, the sequence input " + std::to_string(frames.size()));
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = src.shape(i);
    if (per_frame && (s.ndim() < 1 || s[0] != frames[static_cast<size_t>(i)]))
      throw Error(what + " is per frame (layout '" + src.layout() + "') with " +
                  (s.ndim() < 1 ? std::string("no frame axis") : std::to_string(s[0]) + " frames") + " in sample " +
                  std::to_string(i) + ", whose sequence has " + std::to_string(frames[static_cast<size_t>(i)]));
    const TensorShape item = per_frame ? TensorShape(s.dims().subspan(1)) : s;
    for (int64_t f = 0; f < frames[static_cast<size_t>(i)]; ++f) shapes.push_back(item);
  }
  out->Resize(shapes, src.dtype(), mem, false);
  out->set_layout(per_frame ? src.layout().substr(1) : src.layout());
  int j = 0;
  for (int i = 0; i < n; ++i) {
    const auto* base = static_cast<const uint8_t*>(src.raw_sample(i));
    for (int64_t f = 0; f < frames[static_cast<size_t>(i)]; ++f, ++j) {
      const size_t bytes = out->sample_bytes(j);
      if (bytes) std::memcpy(out->raw_mutable_sample(j), per_frame ? base + static_cast<size_t>(f) * bytes : base, bytes);
      out->source(j) = src.source(i);
    }
  }
  return out;
}

}  // namespace

bool NeedsSequenceUnfold(const OpSchema& schema, const Workspace& ws) {
  return schema.unfolds_sequences() && !ws.inputs_.empty() && IsSequenceLayout(ws.inputs_[0]->layout());
}

void RunUnfolded(Operator& op, Workspace& ws, const MemoryConfig& mem,
                 const std::function<void(const std::vector<OutputDesc>&, Workspace&)>& resize_outputs) {
  if (ws.stream_ != nullptr)
    throw Error("sequences (layout '" + ws.inputs_[0]->layout() + "') are supported by the CPU operator only");
  const TensorList& seq = *ws.inputs_[0];
  const int n = seq.num_samples();
  std::vector<int64_t> frames(static_cast<size_t>(n));
  std::vector<int> first(static_cast<size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = seq.shape(i);
    if (s.ndim() < 2 || s[0] < 1) {
      Error::Context c;
      c.sample = i;
      c.source = seq.source(i).ToString();
      throw Error("a sequence (layout '" + seq.layout() + "') needs at least one frame, got shape " + s.ToString(), c);
    }
    frames[static_cast<size_t>(i)] = s[0];
    first[static_cast<size_t>(i) + 1] = first[static_cast<size_t>(i)] + static_cast<int>(s[0]);
  }
  std::vector<std::unique_ptr<TensorList>> keep;
  Workspace fws;
  fws.iteration_ = ws.iteration_;
  fws.op_seed_ = ws.op_seed_;
  fws.pool_ = ws.pool_;
  fws.memory_ = ws.memory_;
  fws.cancel_ = ws.cancel_;
  fws.device_id_ = ws.device_id_;
  Workspace::FailedSamples frame_failed;
  fws.failed_ = &frame_failed;
  for (size_t k = 0; k < ws.inputs_.size(); ++k) {
    const TensorList& in = *ws.inputs_[k];
    keep.push_back(Unfold(in, frames, k == 0 || IsSequenceLayout(in.layout()), "input " + std::to_string(k), mem));
    fws.inputs_.push_back(keep.back().get());
  }
  for (const auto& [name, in] : ws.arg_inputs_) {
    keep.push_back(Unfold(*in, frames, IsSequenceLayout(in->layout()), "argument '" + name + "'", mem));
    fws.arg_inputs_[name] = keep.back().get();
  }
  fws.batch_size_ = first.back();
  std::vector<TensorList> outs(ws.outputs_.size());
  for (auto& t : outs) fws.outputs_.push_back(&t);
  {
    SequenceFramesScope frames_scope;  // operators/sequence_frames.h
    resize_outputs(op.Setup(fws), fws);
  }
  op.Run(fws);
  for (size_t o = 0; o < outs.size(); ++o) {
    const TensorList& t = outs[o];
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      const TensorShape& item = t.shape(first[static_cast<size_t>(i)]);
      for (int j = first[static_cast<size_t>(i)] + 1; j < first[static_cast<size_t>(i) + 1]; ++j)
        if (t.shape(j) != item)
          throw Error("the frames of sample " + std::to_string(i) + " give outputs of different shapes (" +
                      item.ToString() + ", " + t.shape(j).ToString() + "); a sequence needs one frame shape");
      std::vector<int64_t> dims{frames[static_cast<size_t>(i)]};
      for (int64_t d : item.dims()) dims.push_back(d);
      shapes.emplace_back(dims);
    }
    TensorList& dst = *ws.outputs_[o];
    dst.Resize(shapes, t.dtype(), mem, SameShapes(shapes));
    dst.set_layout(t.layout().empty() ? "" : "F" + t.layout());
    for (int i = 0; i < n; ++i) {
      auto* out = static_cast<uint8_t*>(dst.raw_mutable_sample(i));
      for (int j = first[static_cast<size_t>(i)]; j < first[static_cast<size_t>(i) + 1]; ++j) {
        const size_t bytes = t.sample_bytes(j);
        if (bytes) std::memcpy(out, t.raw_sample(j), bytes);
        out += bytes;
      }
      dst.source(i) = seq.source(i);
    }
  }
  for (SampleErrorRecord& rec : frame_failed.records) {
    const int i = static_cast<int>(std::upper_bound(first.begin(), first.end(), rec.sample) - first.begin()) - 1;
    ws.ReportFailedSample(i, seq.source(i), rec.error);
  }
}

}  // namespace sluice
