// The shared harness for operator tests (docs/adding-an-operator.md): run one operator on fed host
// samples and get its batch back, and the checks every operator owes for almost free:
//   - ExpectSameForAnyThreadCount: the same bytes for 1, 2 and 3 threads (determinism);
//   - ExpectCallError: a bad argument is rejected at the call (AddOperator), naming the
//     operator and the argument;
//   - ExpectRunError: bad data is rejected when the batch runs, with the given message;
//   - ExpectBoxFollowsImage: a geometry operator and its box counterpart (flip / bb_flip, paste /
//     bbox_paste, rotate / bbox_rotate, ...) move a box and the pixels it covers alike.
// Numeric checks against an independent reference stay in each operator's own test.
#pragma once
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace sluice::testing {

// A batch of host samples to feed: bytes, shapes, one dtype and one layout.
struct HostBatch {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<TensorShape> shapes;
  DType dtype = DType::kUInt8;
  std::string layout;

  template <typename T>
  static HostBatch Of(const std::vector<std::vector<T>>& samples, std::vector<TensorShape> shapes,
                      std::string layout = "") {
    HostBatch b;
    b.dtype = TypeToDType<T>::value;
    b.shapes = std::move(shapes);
    b.layout = std::move(layout);
    for (const auto& s : samples) {
      std::vector<uint8_t> raw(s.size() * sizeof(T));
      if (!raw.empty()) std::memcpy(raw.data(), s.data(), raw.size());
      b.bytes.push_back(std::move(raw));
    }
    return b;
  }
  int size() const { return static_cast<int>(bytes.size()); }
};

// One operator over fed inputs: `op`'s input 0 is `input`, and each (argument, batch) of
// `arg_inputs` is fed as that per-sample argument.
struct OpCase {
  OperatorDef op;
  HostBatch input;
  std::vector<std::pair<std::string, HostBatch>> arg_inputs;
};

namespace harness_detail {
inline std::vector<Pipeline::ExternalSample> Samples(const HostBatch& b) {
  std::vector<Pipeline::ExternalSample> s;
  for (int i = 0; i < b.size(); ++i) s.push_back({b.bytes[size_t(i)].data(), b.shapes[size_t(i)], b.dtype});
  return s;
}
}  // namespace harness_detail

// Builds external_source(s) -> op and returns the batch of one run (every output of op).
inline std::vector<Batch> RunOpCase(const OpCase& c, int threads = 2, int64_t seed = 7) {
  PipelineOptions o;
  o.batch_size = c.input.size();
  o.num_threads = threads;
  o.seed = seed;
  Pipeline p(o);
  OperatorDef op = c.op;
  op.inputs.clear();
  op.Input(p.AddOperator(OperatorDef("external_source").Name("src"))[0]);
  for (const auto& [name, batch] : c.arg_inputs)
    op.ArgInput(name, p.AddOperator(OperatorDef("external_source").Name("arg_" + name))[0]);
  p.SetOutputs(p.AddOperator(op));
  p.Build();
  p.FeedInput("src", harness_detail::Samples(c.input), c.input.layout);
  for (const auto& [name, batch] : c.arg_inputs) p.FeedInput("arg_" + name, harness_detail::Samples(batch), batch.layout);
  p.ScheduleRun();  // one batch: Run() would prefetch a second one that nothing was fed for
  return p.ShareOutputs();
}

// Every byte, shape, dtype and layout of a run's outputs, for comparisons.
inline std::string Fingerprint(const std::vector<Batch>& outs) {
  std::string f;
  for (const Batch& b : outs) {
    f += std::string(ToString(b.dtype())) + "/" + b.layout() + ";";
    for (int i = 0; i < b.num_samples(); ++i) {
      f += b.shape(i).ToString() + ":";
      f.append(static_cast<const char*>(b.data(i)), b.nbytes(i));
    }
  }
  return f;
}

inline void ExpectSameForAnyThreadCount(const OpCase& c) {
  const std::string one = Fingerprint(RunOpCase(c, 1));
  EXPECT_EQ(one, Fingerprint(RunOpCase(c, 2))) << c.op.op << ": 1 vs 2 threads";
  EXPECT_EQ(one, Fingerprint(RunOpCase(c, 3))) << c.op.op << ": 1 vs 3 threads";
}

// The message of the error `fn` throws ("" and a test failure when it throws none).
template <typename Fn>
std::string ErrorMessage(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a sluice::Error";
  return "";
}

// Adding `op` to a pipeline fails at the call, and the message names the operator, the argument
// and contains `why`.
inline void ExpectCallError(const OperatorDef& op, const std::string& argument, const std::string& why) {
  const std::string msg = ErrorMessage([&] {
    Pipeline p(PipelineOptions{});
    OperatorDef d = op;
    d.inputs.clear();
    d.Input(p.AddOperator(OperatorDef("external_source").Name("src"))[0]);
    p.AddOperator(d);
  });
  EXPECT_NE(msg.find(op.op), std::string::npos) << msg;
  EXPECT_NE(msg.find(argument), std::string::npos) << msg;
  EXPECT_NE(msg.find(why), std::string::npos) << msg;
}

// Running the case fails with a message containing `why` (and the operator's name).
inline void ExpectRunError(const OpCase& c, const std::string& why) {
  const std::string msg = ErrorMessage([&] { RunOpCase(c); });
  EXPECT_NE(msg.find(c.op.op), std::string::npos) << msg;
  EXPECT_NE(msg.find(why), std::string::npos) << msg;
}

// "A box follows its image": a black h x w RGB image with the pixels of `box_px` ([l, t, r, b),
// pixel-aligned) lit goes through `image_op`, the box (float [1, 4] relative ltrb) through `box_op`,
// in one pipeline (each operator's arguments as the caller gives them: the same angle, ratio,
// flags). The lit pixels' bounding box in the output image, relative to its size, must equal the
// output box within `tolerance_px` output pixels; a box the operator drops must be one whose pixels
// left the image.
inline void ExpectBoxFollowsImage(const OperatorDef& image_op, const OperatorDef& box_op, int h, int w,
                                  std::array<int, 4> box_px, double tolerance_px = 1.0) {
  std::vector<uint8_t> img(static_cast<size_t>(h) * w * 3, 0);
  for (int y = box_px[1]; y < box_px[3]; ++y)
    for (int x = box_px[0]; x < box_px[2]; ++x)
      for (int c = 0; c < 3; ++c) img[(static_cast<size_t>(y) * w + x) * 3 + c] = 200;
  const float box[4] = {static_cast<float>(box_px[0]) / w, static_cast<float>(box_px[1]) / h,
                        static_cast<float>(box_px[2]) / w, static_cast<float>(box_px[3]) / h};
  PipelineOptions o;
  o.batch_size = 1;
  o.num_threads = 1;
  Pipeline p(o);
  OperatorDef iop = image_op, bop = box_op;
  iop.inputs.clear();
  bop.inputs.clear();
  iop.Input(p.AddOperator(OperatorDef("external_source").Name("img"))[0]);
  bop.Input(p.AddOperator(OperatorDef("external_source").Name("box"))[0]);
  const auto io = p.AddOperator(iop);
  const auto bo = p.AddOperator(bop);
  p.SetOutputs({io[0], bo[0]});
  p.Build();
  p.FeedInput("img", {{img.data(), TensorShape{h, w, 3}, DType::kUInt8}}, "HWC");
  p.FeedInput("box", {{box, TensorShape{1, 4}, DType::kFloat32}}, "");
  p.ScheduleRun();
  const std::vector<Batch> out = p.ShareOutputs();
  const TensorShape s = out[0].shape(0);
  ASSERT_EQ(s.ndim(), 3) << image_op.op;
  const int oh = static_cast<int>(s[0]), ow = static_cast<int>(s[1]);
  const auto* px = static_cast<const uint8_t*>(out[0].data(0));
  int l = ow, t = oh, r = -1, b = -1;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      if (px[(static_cast<size_t>(y) * ow + x) * s[2]] > 100) l = std::min(l, x), r = std::max(r, x), t = std::min(t, y), b = std::max(b, y);
  const TensorShape bs = out[1].shape(0);
  if (r < 0) {
    EXPECT_EQ(bs[0], 0) << box_op.op << " kept a box whose pixels left the image";
    return;
  }
  ASSERT_EQ(bs[0], 1) << box_op.op << " dropped a box that is still in the image";
  const auto* ob = static_cast<const float*>(out[1].data(0));
  const double lit[4] = {double(l), double(t), double(r + 1), double(b + 1)};
  const double scale[4] = {double(ow), double(oh), double(ow), double(oh)};
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(ob[k] * scale[k], lit[k], tolerance_px) << image_op.op << " / " << box_op.op << ", coordinate " << k;
}

}  // namespace sluice::testing
