// lookup_table: DALI's mapping of integer inputs through a table given by keys and values, with
// default_value for every other input (kernels/color/lookup_table.h). Any shape and layout;
// the output has the input's shape and layout and the type `dtype` (default float32, as DALI).
// The plan (lookup_table_plan.h) is shared with the GPU operator (lookup_table_gpu.cc).
#include "operators/color/lookup_table_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class LookupTableOp : public Operator {
 public:
  explicit LookupTableOp(const OpSpec& spec) : Operator(spec), table_(MakeLookupTable(*this)) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override { return {PlanLookupTable(table_, ws)}; }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    table_.Apply(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i),
                 static_cast<size_t>(in.shape(i).num_elements()));
  }

 private:
  kernels::LookupTable table_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterLookupTable) {
  OpSchema s("lookup_table");
  s.Doc("Maps integer inputs through a lookup table: out = values[j] where in == keys[j] (the last such j), "
        "default_value where the input is no key (negative, or not listed). Keys in [0, 65535].")
      .Input("input", "Integer data of any shape: uint8, int8, uint16, int16, int32 or int64.",
             {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kInt32, DType::kInt64})
      .Output("output", "The looked-up values, same shape and layout, of type dtype.")
      .Arg("keys", ArgType::kIntList, std::vector<int64_t>{}, "The input values that the table maps, in [0, 65535].")
      .Range(0, static_cast<double>(kernels::kLookupTableMaxKey))
      .Arg("values", ArgType::kFloatList, std::vector<double>{}, "The output value of each key (as many as keys).")
      .Arg("default_value", ArgType::kFloat, 0.0, "The output for inputs that are no key.")
      .Arg("dtype", ArgType::kDType, std::string("float32"),
           "Output type (integer outputs are rounded and saturated).")
      .Enum({"uint8", "int8", "uint16", "int16", "int32", "int64", "float32", "float64"})
      .Check([](const ArgView& a) {
        const size_t k = a.Numbers("keys").size(), v = a.Numbers("values").size();
        if (k != v)
          throw ArgCheckError{"values", "has " + std::to_string(v) + " entries but keys has " + std::to_string(k) +
                                            "; they must match"};
      })
      .Factory("cpu", MakeFactory<LookupTableOp>());
  s.RenamedArg("output_dtype", "dtype");  // deprecated in DALI 0.24
  r.Register(std::move(s));
}

}  // namespace sluice
