#include "operators/schema.h"

#include <algorithm>
#include <sstream>

#include <sluice/error.h>

namespace sluice {

const char* ToString(ArgType t) {
  switch (t) {
    case ArgType::kBool: return "bool";
    case ArgType::kInt: return "int";
    case ArgType::kFloat: return "float";
    case ArgType::kString: return "str";
    case ArgType::kIntList: return "list of int";
    case ArgType::kFloatList: return "list of float";
    case ArgType::kStringList: return "list of str";
    case ArgType::kDType: return "dtype";
  }
  return "?";
}

std::string ValueToString(const Value& v) {
  std::ostringstream os;
  std::visit([&](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, bool>) os << (x ? "True" : "False");
    else if constexpr (std::is_same_v<T, std::string>) os << "'" << x << "'";
    else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) os << x;
    else {
      os << "[";
      for (size_t i = 0; i < x.size(); ++i) {
        if (i) os << ", ";
        if constexpr (std::is_same_v<T, std::vector<std::string>>) os << "'" << x[i] << "'";
        else os << x[i];
      }
      os << "]";
    }
  }, v);
  return os.str();
}

std::string JoinOr(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return s;
}

namespace {

// Whether `layout` is a layout string: distinct upper-case letters.
bool IsLayoutString(const std::string& layout) {
  for (size_t i = 0; i < layout.size(); ++i)
    if (layout[i] < 'A' || layout[i] > 'Z' || layout.find(layout[i]) != i) return false;
  return true;
}

}  // namespace

InputLayouts::InputLayouts(std::initializer_list<std::string> base) : base_(base) {
  for (const auto& b : base_)
    if (b.empty() || !IsLayoutString(b)) throw Error("InputLayouts: '" + b + "' is not a layout of distinct upper-case letters");
}

InputLayouts InputLayouts::AnySequence() {
  InputLayouts l;
  l.any_sequence_ = true;
  return l;
}

InputLayouts& InputLayouts::AllowSequence() {
  for (const auto& b : base_)
    if (b.find('F') != std::string::npos) throw Error("InputLayouts: '" + b + "' already has a frame axis F");
  sequence_ = true;
  return *this;
}

InputLayouts& InputLayouts::AllowVolume() {
  for (const auto& b : base_)
    if (b.find('H') == std::string::npos || b.find('D') != std::string::npos)
      throw Error("InputLayouts: '" + b + "' has no H to put a depth axis D before, or has one already");
  volume_ = true;
  return *this;
}

InputLayouts& InputLayouts::RequireLayout() { empty_accepted_ = false; return *this; }

std::vector<std::string> InputLayouts::Accepted() const {
  std::vector<std::string> out = base_;
  auto with_depth = [](std::string b) { return b.insert(b.find('H'), "D"); };
  if (sequence_)
    for (const auto& b : base_) out.push_back("F" + b);
  if (volume_)
    for (const auto& b : base_) out.push_back(with_depth(b));
  if (sequence_ && volume_)
    for (const auto& b : base_) out.push_back("F" + with_depth(b));
  return out;
}

bool InputLayouts::Accepts(const std::string& layout) const {
  if (any_sequence_) return !layout.empty() && layout[0] == 'F';
  const auto all = Accepted();
  return std::find(all.begin(), all.end(), layout) != all.end();
}

std::optional<std::string> InputLayouts::Resolve(const std::string& layout, int ndim) const {
  if (!layout.empty()) return layout;
  if (!empty_accepted_) return std::nullopt;
  if (any_sequence_) return std::string();
  for (const auto& b : base_)
    if (static_cast<int>(b.size()) == ndim) return b;
  return std::nullopt;
}

std::vector<std::string> InputLayouts::ReadWithoutLayout() const {
  std::vector<std::string> read_as;
  for (const auto& b : base_)
    if (std::none_of(read_as.begin(), read_as.end(), [&](const std::string& r) { return r.size() == b.size(); }))
      read_as.push_back(b);
  return read_as;
}

std::string InputLayouts::Text() const {
  if (any_sequence_) return "F... (a sequence)";
  std::vector<std::string> all = Accepted();
  std::string s = JoinOr(base_);
  if (all.size() > base_.size()) {
    s += " (or ";
    for (size_t i = base_.size(); i < all.size(); ++i) s += (i == base_.size() ? "" : ", ") + all[i];
    s += ")";
  }
  return s;
}

std::string InputLayouts::DocText() const {
  if (!empty_accepted_) return Text() + "; none: an error";
  if (any_sequence_) return Text() + "; none: any number of dimensions";
  const std::vector<std::string> read_as = ReadWithoutLayout();
  return Text() + "; none: read as " + JoinOr(read_as) + (read_as.size() > 1 ? " by the number of dimensions" : "");
}

OpSchema::OpSchema(std::string name) : name_(std::move(name)) {
  // Arguments every operator accepts (DALI's common arguments).
  Arg("seed", ArgType::kInt, int64_t{-1}, "Random seed; -1 derives one from the pipeline seed.");
  Arg("bytes_per_sample_hint", ArgType::kIntList, std::vector<int64_t>{0},
      "Output size hint, in bytes per sample: one value, or one per output. Preallocates buffers.");
  Arg("preserve", ArgType::kBool, false, "Keep the operator even if its outputs are unused.");
}

OpSchema& OpSchema::Doc(std::string doc) { doc_ = std::move(doc); return *this; }
OpSchema& OpSchema::Input(std::string name, std::string doc, std::vector<DType> dtypes, InputLayouts layouts) {
  inputs_.push_back({std::move(name), std::move(doc), std::move(dtypes), std::move(layouts)});
  return *this;
}
OpSchema& OpSchema::OptionalInputs(int count) { optional_inputs_ = count; return *this; }
OpSchema& OpSchema::Output(std::string name, std::string doc) {
  outputs_.emplace_back(std::move(name), std::move(doc));
  return *this;
}
OpSchema& OpSchema::NumOutputsFn(std::function<int(const OpSpec&)> fn) { num_outputs_fn_ = std::move(fn); return *this; }
OpSchema& OpSchema::Arg(std::string name, ArgType type, std::optional<Value> default_value, std::string doc,
                        bool per_sample) {
  auto it = std::find_if(args_.begin(), args_.end(), [&](const ArgSchema& a) { return a.name == name; });
  ArgSchema a{name, type, default_value ? std::optional<Value>(CoerceValue(*default_value, type)) : std::nullopt,
              std::move(doc), per_sample, ArgConstraint{}};
  if (it != args_.end()) {
    *it = std::move(a);
    last_arg_ = static_cast<size_t>(it - args_.begin());
  } else {
    args_.push_back(std::move(a));
    last_arg_ = args_.size() - 1;
  }
  return *this;
}
ArgSchema& OpSchema::LastArg() {
  if (last_arg_ >= args_.size()) throw Error("schema '" + name_ + "': a constraint needs an argument declared before it");
  return args_[last_arg_];
}

OpSchema& OpSchema::Range(double lo, double hi) {
  auto& c = LastArg().constraint;
  c.lo = lo;
  c.hi = hi;
  return *this;
}
OpSchema& OpSchema::Min(double lo) { LastArg().constraint.lo = lo; return *this; }
OpSchema& OpSchema::Above(double lo) {
  auto& c = LastArg().constraint;
  c.lo = lo;
  c.lo_open = true;
  return *this;
}
OpSchema& OpSchema::Enum(std::vector<std::string> choices, bool int_aliases) {
  auto& c = LastArg().constraint;
  c.choices = std::move(choices);
  c.int_aliases = int_aliases;
  return *this;
}
OpSchema& OpSchema::Count(std::vector<int> allowed_counts) {
  LastArg().constraint.counts = std::move(allowed_counts);
  return *this;
}
OpSchema& OpSchema::Layout() { LastArg().constraint.layout = true; return *this; }
OpSchema& OpSchema::MinInputSize(MinInputSizeFn fn) { min_input_size_ = std::move(fn); return *this; }
OpSchema& OpSchema::AcceptsSizeHint(std::string hint_arg, std::string enable_arg) {
  size_hint_ = SizeHint{std::move(hint_arg), std::move(enable_arg)};
  return *this;
}
OpSchema& OpSchema::InputRegion(RegionMapFn fn) { input_region_ = std::move(fn); return *this; }
OpSchema& OpSchema::ProducesWindows(std::string rule_arg, std::string enable_arg) {
  windowed_output_ = WindowedOutput{std::move(rule_arg), std::move(enable_arg)};
  return *this;
}
OpSchema& OpSchema::AcceptsInputWindow(std::string window_arg) { input_window_arg_ = std::move(window_arg); return *this; }

OpSchema& OpSchema::Fuses(FusedChain chain) {
  fused_chain_ = std::move(chain);
  return *this;
}
OpSchema& OpSchema::Check(ArgCheck check) { checks_.push_back(std::move(check)); return *this; }
OpSchema& OpSchema::RenamedArg(std::string old_name, std::string new_name) {
  deprecated_[std::move(old_name)] = std::move(new_name);
  return *this;
}
OpSchema& OpSchema::RetiredArg(std::string name) {
  deprecated_[std::move(name)] = "";
  return *this;
}

OpSchema& OpSchema::Backends(std::vector<std::string> devices) { backends_ = std::move(devices); return *this; }
OpSchema& OpSchema::Random() { random_ = true; return *this; }
OpSchema& OpSchema::Reader() { reader_ = true; return *this; }
OpSchema& OpSchema::UnfoldsSequences() { unfolds_sequences_ = true; return *this; }
OpSchema& OpSchema::Exclusive(std::vector<std::string> names) { exclusive_.push_back(std::move(names)); return *this; }
OpSchema& OpSchema::Factory(std::string device, OperatorFactory f) {
  factories_[std::move(device)] = std::move(f);
  return *this;
}

int OpSchema::NumOutputs(const OpSpec& spec) const {
  if (num_outputs_fn_) return num_outputs_fn_(spec);
  return static_cast<int>(outputs_.size());
}

const ArgSchema* OpSchema::FindArg(const std::string& name) const {
  for (const auto& a : args_)
    if (a.name == name) return &a;
  return nullptr;
}

bool OpSchema::SupportsDevice(const std::string& device) const {
  return std::find(backends_.begin(), backends_.end(), device) != backends_.end();
}

const OperatorFactory* OpSchema::FindFactory(const std::string& device) const {
  auto it = factories_.find(device);
  return it == factories_.end() ? nullptr : &it->second;
}

std::string OpSchema::FullDoc() const {
  std::ostringstream os;
  os << doc_ << "\n";
  os << "\nSupported backends: ";
  for (size_t i = 0; i < backends_.size(); ++i) os << (i ? ", " : "") << backends_[i];
  os << "\n";
  if (!inputs_.empty()) {
    os << "\nInputs:\n";
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const auto& in = inputs_[i];
      os << "  " << in.name << (static_cast<int>(i) >= min_inputs() ? " (optional)" : "") << ": " << in.doc
         << (in.layouts.declared() ? " Layout: " + in.layouts.DocText() + "." : "") << "\n";
    }
  }
  if (!outputs_.empty()) {
    os << "\nOutputs:\n";
    for (const auto& [n, d] : outputs_) os << "  " << n << ": " << d << "\n";
  }
  os << "\nArguments:\n";
  for (const auto& a : args_) {
    const std::string constraint = a.ConstraintText();
    os << "  " << a.name << " (" << ToString(a.type) << (a.per_sample ? " or per-sample tensor" : "") << ", "
       << (a.default_value ? "default " + ValueToString(*a.default_value) : std::string("required"))
       << (constraint.empty() ? "" : ", " + constraint) << "): " << a.doc << "\n";
  }
  return os.str();
}

namespace {
// DALI numbers its element types (DALIDataType): UINT8 0, UINT16 1, UINT32 2, UINT64 3, INT8 4,
// INT16 5, INT32 6, INT64 7, FLOAT16 8, FLOAT 9, FLOAT64 10, BOOL 11. nullopt: a number Sluice has
// no type for.
std::optional<DType> DTypeFromDaliNumber(int64_t n) {
  switch (n) {
    case 0: return DType::kUInt8;
    case 1: return DType::kUInt16;
    case 4: return DType::kInt8;
    case 5: return DType::kInt16;
    case 6: return DType::kInt32;
    case 7: return DType::kInt64;
    case 8: return DType::kFloat16;
    case 9: return DType::kFloat32;
    case 10: return DType::kFloat64;
    case 11: return DType::kBool;
    default: return std::nullopt;
  }
}

[[noreturn]] void Mismatch(const Value& v, ArgType t) {
  throw Error(std::string("expected ") + ToString(t) + ", got " + ValueToString(v));
}
}  // namespace

Value CoerceValue(const Value& v, ArgType t) {
  switch (t) {
    case ArgType::kBool:
      if (std::holds_alternative<bool>(v)) return v;
      if (auto* i = std::get_if<int64_t>(&v); i && (*i == 0 || *i == 1)) return *i != 0;
      Mismatch(v, t);
    case ArgType::kInt:
      if (std::holds_alternative<int64_t>(v)) return v;
      if (auto* b = std::get_if<bool>(&v)) return int64_t{*b};
      if (auto* d = std::get_if<double>(&v); d && *d == static_cast<double>(static_cast<int64_t>(*d)))
        return static_cast<int64_t>(*d);
      Mismatch(v, t);
    case ArgType::kFloat:
      if (std::holds_alternative<double>(v)) return v;
      if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
      Mismatch(v, t);
    case ArgType::kString:
      if (std::holds_alternative<std::string>(v)) return v;
      Mismatch(v, t);
    case ArgType::kDType:
      if (auto* s = std::get_if<std::string>(&v)) {
        if (auto d = ParseDType(*s)) return std::string(ToString(*d));
        throw Error("unknown dtype '" + *s + "'");
      }
      if (auto* i = std::get_if<int64_t>(&v)) {  // DALI's DALIDataType numbers (types.FLOAT == 9)
        if (auto d = DTypeFromDaliNumber(*i)) return std::string(ToString(*d));
        throw Error("expected a dtype, got " + std::to_string(*i) + ", which is no DALIDataType that Sluice has");
      }
      Mismatch(v, t);
    case ArgType::kIntList:
      if (std::holds_alternative<std::vector<int64_t>>(v)) return v;
      if (auto* i = std::get_if<int64_t>(&v)) return std::vector<int64_t>{*i};
      if (auto* l = std::get_if<std::vector<double>>(&v)) {
        std::vector<int64_t> out;
        for (double d : *l) {
          if (d != static_cast<double>(static_cast<int64_t>(d))) Mismatch(v, t);
          out.push_back(static_cast<int64_t>(d));
        }
        return out;
      }
      Mismatch(v, t);
    case ArgType::kFloatList:
      if (std::holds_alternative<std::vector<double>>(v)) return v;
      if (auto* d = std::get_if<double>(&v)) return std::vector<double>{*d};
      if (auto* i = std::get_if<int64_t>(&v)) return std::vector<double>{static_cast<double>(*i)};
      if (auto* l = std::get_if<std::vector<int64_t>>(&v)) return std::vector<double>(l->begin(), l->end());
      Mismatch(v, t);
    case ArgType::kStringList:
      if (std::holds_alternative<std::vector<std::string>>(v)) return v;
      if (auto* s = std::get_if<std::string>(&v)) return std::vector<std::string>{*s};
      Mismatch(v, t);
  }
  Mismatch(v, t);
}

int EditDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Suggest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  int best_d = 1 << 30;
  for (const auto& c : candidates) {
    int d = EditDistance(word, c);
    if (d < best_d) { best_d = d; best = c; }
  }
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  return best_d <= limit ? best : "";
}

}  // namespace sluice
