// The HostGrid tests' harness: a GPU operator's plan, descriptors and kernel body run on the host
// (kernels/grid/host_grid.h) against its CPU operator run through a pipeline (op_harness.h), on
// the same fed batch. No CUDA: these tests build and run in every tree, sanitizer trees included.
//
// HostGridCase holds the host side: the operator's arguments in a probe operator (only its
// argument accessors are used by plans), input 0 as a host TensorList, and the output the plan's
// OutputDesc allocates. The caller runs the plan, builds the descriptors over in/out (host
// pointers: the host grid runner dereferences them) and runs the launcher with HostGridExec.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "kernels/grid/host_grid.h"
#include "op_harness.h"
#include "operators/operator.h"

namespace sluice::testing {

struct HostGridProbe : Operator {
  HostGridProbe(const std::string& op, std::map<std::string, Value> args) : Operator(Spec(op, std::move(args))) {}
  explicit HostGridProbe(const OpSpec& spec) : Operator(spec) {}
  std::vector<OutputDesc> Setup(Workspace&) override { return {}; }
  static OpSpec Spec(const std::string& op, std::map<std::string, Value> args) {
    OpSpec s;
    s.op = op;
    s.name = op + "#host_grid";
    s.device = "gpu";
    s.args = std::move(args);
    return s;
  }
};

class HostGridCase {
 public:
  HostGridCase(const std::string& op, const std::map<std::string, Value>& args, const HostBatch& input)
      : probe(op, args) {
    in.Resize(input.shapes, input.dtype, memory, false);
    in.set_layout(input.layout);
    for (int i = 0; i < input.size(); ++i)
      if (!input.bytes[size_t(i)].empty())
        std::memcpy(in.raw_mutable_sample(i), input.bytes[size_t(i)].data(), input.bytes[size_t(i)].size());
    ws.inputs_ = {&in};
    ws.outputs_ = {&out};
    ws.memory_ = &memory;
    ws.batch_size_ = input.size();
  }
  // Allocates the output as the executor would for the plan's descriptor.
  void Allocate(const OutputDesc& d) {
    out.Resize(d.shapes, d.dtype, memory, d.contiguous);
    out.set_layout(d.layout);
  }

  HostGridProbe probe;
  MemoryConfig memory;
  TensorList in, out;
  Workspace ws;
  kernels::grid::HostGridExec exec;
};

// The CPU operator `op` with `args` on `input` (through a pipeline, one thread).
inline Batch RunCpu(const std::string& op, const std::map<std::string, Value>& args, const HostBatch& input) {
  OpCase c{OperatorDef(op), input, {}};
  c.op.args = args;
  return RunOpCase(c, 1)[0];
}

inline double ElementAsDouble(const void* p, size_t k, DType t) {
  double v = 0;
  VisitDType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float16>) v = static_cast<float>(static_cast<const T*>(p)[k]);
    else v = static_cast<double>(static_cast<const T*>(p)[k]);
  });
  return v;
}

// The host grid's output equals the CPU operator's: the same dtype, layout and shapes; bytes equal
// when tolerance is 0, else every element within `tolerance` (absolute).
inline void ExpectSameAsCpu(const Batch& cpu, const TensorList& grid, const std::string& what, double tolerance = 0) {
  ASSERT_EQ(cpu.num_samples(), grid.num_samples()) << what;
  EXPECT_EQ(cpu.dtype(), grid.dtype()) << what;
  EXPECT_EQ(cpu.layout(), grid.layout()) << what;
  for (int i = 0; i < cpu.num_samples(); ++i) {
    ASSERT_EQ(cpu.shape(i), grid.shape(i)) << what << ": sample " << i;
    const size_t bytes = cpu.nbytes(i);
    if (bytes == 0) continue;
    const void* a = cpu.data(i);
    const void* b = grid.raw_sample(i);
    if (tolerance == 0) {
      EXPECT_EQ(std::memcmp(a, b, bytes), 0) << what << ": sample " << i << " differs";
      if (std::memcmp(a, b, bytes) != 0) {
        const size_t n = static_cast<size_t>(cpu.shape(i).num_elements());
        for (size_t k = 0; k < n; ++k) {
          const double x = ElementAsDouble(a, k, cpu.dtype()), y = ElementAsDouble(b, k, cpu.dtype());
          if (!(x == y) && !(std::isnan(x) && std::isnan(y))) {
            ADD_FAILURE() << what << ": sample " << i << " element " << k << ": cpu " << x << ", host grid " << y;
            break;
          }
        }
      }
    } else {
      const size_t n = static_cast<size_t>(cpu.shape(i).num_elements());
      double worst = 0;
      for (size_t k = 0; k < n; ++k)
        worst = std::max(worst, std::abs(ElementAsDouble(a, k, cpu.dtype()) - ElementAsDouble(b, k, cpu.dtype())));
      EXPECT_LE(worst, tolerance) << what << ": sample " << i;
    }
  }
}

// Deterministic test data: values spread over the type's range (floats in [-0.5, 1.5], plus the
// halfway values that rounding rules disagree on), odd sizes.
template <typename T>
std::vector<T> Ramp(size_t n, uint32_t seed) {
  std::vector<T> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t k = 0; k < n; ++k) {
    x = x * 1664525u + 1013904223u;
    if constexpr (std::is_same_v<T, float16>) v[k] = float16(static_cast<float>(x >> 8) / float(1 << 24) * 2.f - 0.5f);
    else if constexpr (std::is_floating_point_v<T>) v[k] = static_cast<T>(x >> 8) / T(1 << 24) * T(2) - T(0.5);
    else if constexpr (std::is_same_v<T, bool>) v[k] = (x >> 16) & 1;
    else v[k] = static_cast<T>(x >> 7);
  }
  return v;
}

// A batch of `shapes` (element count from each shape) of T.
template <typename T>
HostBatch RampBatch(const std::vector<TensorShape>& shapes, const std::string& layout, uint32_t seed = 1) {
  std::vector<std::vector<T>> s;
  for (size_t i = 0; i < shapes.size(); ++i)
    s.push_back(Ramp<T>(static_cast<size_t>(shapes[i].num_elements()), seed + static_cast<uint32_t>(i)));
  return HostBatch::Of(s, shapes, layout);
}

}  // namespace sluice::testing
