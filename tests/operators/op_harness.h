// The shared harness for operator tests (docs/adding-an-operator.md): run one operator on fed host
// samples and get its batch back, and the checks every operator owes for almost free:
//   - ExpectSameForAnyThreadCount: the same bytes for 1, 2 and 3 threads (determinism);
//   - ExpectCallError: a bad argument is rejected at the call (AddOperator), naming the
//     operator and the argument;
//   - ExpectRunError: bad data is rejected when the batch runs, with the given message.
// Numeric checks against an independent reference stay in each operator's own test.
#pragma once
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

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

}  // namespace sluice::testing
