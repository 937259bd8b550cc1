// Template definitions for Operator's argument accessors (included by operator.h).
#pragma once
#include <algorithm>
#include <type_traits>

namespace sluice {
namespace detail {

template <typename T> struct IsVector : std::false_type {};
template <typename T> struct IsVector<std::vector<T>> : std::true_type { using elem = T; };

template <typename T>
T ConvertScalar(const Value& v, bool* ok) {
  *ok = true;
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto* s = std::get_if<std::string>(&v)) return *s;
  } else if constexpr (std::is_same_v<T, DType>) {
    if (auto* s = std::get_if<std::string>(&v)) {
      if (auto d = ParseDType(*s)) return *d;
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (auto* b = std::get_if<bool>(&v)) return *b;
    if (auto* i = std::get_if<int64_t>(&v)) return *i != 0;
  } else if constexpr (std::is_arithmetic_v<T>) {
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<T>(*i);
    if (auto* d = std::get_if<double>(&v)) return static_cast<T>(*d);
    if (auto* b = std::get_if<bool>(&v)) return static_cast<T>(*b);
  }
  *ok = false;
  return T{};
}

template <typename E>
std::vector<E> ConvertList(const Value& v, bool* ok) {
  *ok = true;
  std::vector<E> out;
  if (auto* l = std::get_if<std::vector<int64_t>>(&v)) {
    if constexpr (std::is_arithmetic_v<E>) { for (auto x : *l) out.push_back(static_cast<E>(x)); return out; }
  } else if (auto* l = std::get_if<std::vector<double>>(&v)) {
    if constexpr (std::is_arithmetic_v<E>) { for (auto x : *l) out.push_back(static_cast<E>(x)); return out; }
  } else if (auto* l = std::get_if<std::vector<std::string>>(&v)) {
    if constexpr (std::is_same_v<E, std::string>) return *l;
  } else {
    bool sok = false;
    E e = ConvertScalar<E>(v, &sok);
    if (sok) return {e};
  }
  *ok = false;
  return out;
}

// Reads element i of a per-sample argument tensor as T.
template <typename T>
T ReadElement(const TensorList& tl, int sample, int64_t elem) {
  T out{};
  VisitDType(tl.dtype(), [&](auto tag) {
    using S = decltype(tag);
    const S* p = tl.template sample<S>(sample);
    if constexpr (std::is_same_v<S, float16>) out = static_cast<T>(static_cast<float>(p[elem]));
    else out = static_cast<T>(p[elem]);
  });
  return out;
}

}  // namespace detail

template <typename T>
T Operator::Arg(const std::string& name) const {
  if (IsArgInput(name)) ThrowArgError(name, "is given per sample here; this operator needs a constant");
  const Value* value = FindArgValue(name);
  if (!value) ThrowArgError(name, "is required but was not given");
  bool ok = false;
  if constexpr (detail::IsVector<T>::value) {
    T v = detail::ConvertList<typename detail::IsVector<T>::elem>(*value, &ok);
    if (ok) return v;
  } else {
    T v = detail::ConvertScalar<T>(*value, &ok);
    if (ok) return v;
  }
  ThrowArgError(name, "has an unexpected type: " + ValueToString(*value));
}

template <typename T>
std::vector<T> Operator::PerSampleArg(const Workspace& ws, const std::string& name) const {
  const int n = ws.batch_size();
  if (const TensorList* t = ws.ArgInput(name)) {
    if (t->num_samples() != n)
      ThrowArgError(name, "per-sample input has " + std::to_string(t->num_samples()) +
                              " samples, the batch has " + std::to_string(n));
    std::vector<T> out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (t->shape(i).num_elements() != 1)
        ThrowArgError(name, "sample " + std::to_string(i) + " of the per-sample input has shape " +
                                t->shape(i).ToString() + "; expected a scalar");
      out[static_cast<size_t>(i)] = detail::ReadElement<T>(*t, i, 0);
      if (const ArgSchema* a = RangedArg(name)) CheckPerSampleValue(*a, i, static_cast<double>(out[static_cast<size_t>(i)]));
    }
    return out;
  }
  return std::vector<T>(static_cast<size_t>(n), Arg<T>(name));
}

template <typename T>
std::vector<std::vector<T>> Operator::PerSampleListArg(const Workspace& ws, const std::string& name) const {
  const int n = ws.batch_size();
  if (const TensorList* t = ws.ArgInput(name)) {
    if (t->num_samples() != n)
      ThrowArgError(name, "per-sample input has " + std::to_string(t->num_samples()) +
                              " samples, the batch has " + std::to_string(n));
    std::vector<std::vector<T>> out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int64_t k = t->shape(i).num_elements();
      const ArgSchema* a = RangedArg(name);
      for (int64_t e = 0; e < k; ++e) {
        out[static_cast<size_t>(i)].push_back(detail::ReadElement<T>(*t, i, e));
        if (a) CheckPerSampleValue(*a, i, static_cast<double>(out[static_cast<size_t>(i)].back()));
      }
    }
    return out;
  }
  return std::vector<std::vector<T>>(static_cast<size_t>(n), Arg<std::vector<T>>(name));
}

}  // namespace sluice
