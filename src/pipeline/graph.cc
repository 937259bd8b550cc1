#include "pipeline/graph.h"

#include <algorithm>
#include <deque>
#include <set>

#include <sluice/error.h>

#include "operators/registry.h"

namespace sluice {

Stage StageOf(const std::string& device) {
  if (device == "cpu") return Stage::kCpu;
  if (device == "mixed") return Stage::kMixed;
  if (device == "gpu") return Stage::kGpu;
  throw Error("unknown device '" + device + "' (expected 'cpu', 'mixed' or 'gpu')");
}

namespace {

Error SpecError(const OpSpec& spec, const std::string& arg, const std::string& msg) {
  Error::Context c;
  c.op = spec.name.empty() ? spec.op : spec.name;
  c.argument = arg;
  return Error(msg, c);
}

}  // namespace

bool LacksBackend(const OpSpec& spec) {
  return !OperatorRegistry::Get().GetSchema(spec.op).SupportsDevice(spec.device);
}

std::optional<Error> MissingBackendsError(const std::vector<OpSpec>& specs) {
  std::string list;
  int count = 0;
  for (const OpSpec& s : specs) {
    if (!LacksBackend(s)) continue;
    ++count;
    list += (list.empty() ? "" : "; ") + ("'" + s.name + "' (" + s.op + ", device='" + s.device + "')") +
            " -> CPU alternative: " + s.op + " with device='cpu'";
  }
  if (count == 0) return std::nullopt;
  std::string msg = std::to_string(count) + (count == 1 ? " operator has" : " operators have") +
                    " no backend for the device asked: " + list +
                    ". Run them on the CPU, before the GPU stage (docs/dali-compatibility.md lists Sluice's GPU "
                    "operators)";
#ifndef SLUICE_WITH_CUDA
  msg += "; this build of Sluice has no CUDA backend";
#endif
  Error::Context c;
  c.argument = "device";
  return Error(msg, c);
}

OpSpec ValidateSpec(OpSpec spec, MissingBackend missing) {
  const OpSchema& schema = OperatorRegistry::Get().GetSchema(spec.op);
  // DALI passes the instance name as an argument ("name"); accept it as such.
  if (auto it = spec.args.find("name"); it != spec.args.end()) {
    if (auto* s = std::get_if<std::string>(&it->second)) {
      spec.name = *s;
      spec.args.erase(it);
    } else {
      throw SpecError(spec, "name", "expected str, got " + ValueToString(it->second));
    }
  }
  StageOf(spec.device);
  if (!schema.SupportsDevice(spec.device) && missing == MissingBackend::kDeferToBuild && spec.device != "cpu" &&
      schema.SupportsDevice("cpu")) {
    // Every other check as the CPU operator; Build reports the device (MissingBackendsError).
    const std::string device = spec.device;
    spec.device = "cpu";
    spec = ValidateSpec(std::move(spec), MissingBackend::kThrow);
    spec.device = device;
    return spec;
  }
  if (!schema.SupportsDevice(spec.device)) {
    std::string list;
    for (const auto& b : schema.backends()) list += (list.empty() ? "'" : ", '") + b + "'";
    std::string msg = "operator '" + spec.op + "' has no '" + spec.device + "' backend (available: " + list + ")";
#ifndef SLUICE_WITH_CUDA
    if (spec.device != "cpu") msg += "; this build of Sluice has no CUDA backend";
#endif
    throw SpecError(spec, "device", msg);
  }

  // DALI's deprecated arguments: a renamed one moves to its new name, a retired one is dropped.
  for (const auto& [old_name, new_name] : schema.deprecated_args()) {
    const bool constant = spec.args.count(old_name) > 0, per_sample = spec.arg_inputs.count(old_name) > 0;
    if (!constant && !per_sample) continue;
    if (new_name.empty()) {
      if (per_sample) throw SpecError(spec, old_name, "'" + old_name + "' is deprecated and ignored; it cannot be an argument input");
      spec.args.erase(old_name);
      continue;
    }
    if (spec.args.count(new_name) || spec.arg_inputs.count(new_name))
      throw SpecError(spec, old_name, "'" + old_name + "' is the deprecated name of '" + new_name + "': give only one");
    if (constant) {
      spec.args[new_name] = std::move(spec.args[old_name]);
      spec.args.erase(old_name);
    } else {
      spec.arg_inputs[new_name] = spec.arg_inputs[old_name];
      spec.arg_inputs.erase(old_name);
    }
  }
  std::vector<std::string> arg_names;
  for (const auto& a : schema.args()) arg_names.push_back(a.name);
  auto unknown = [&](const std::string& name) {
    std::string msg = "unknown argument '" + name + "' for operator '" + spec.op + "'";
    std::string hint = Suggest(name, arg_names);
    if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
    return SpecError(spec, name, msg);
  };
  for (auto& [name, value] : spec.args) {
    const ArgSchema* a = schema.FindArg(name);
    if (!a) throw unknown(name);
    try {
      value = CheckArgValue(*a, value);
    } catch (const Error& e) {
      throw SpecError(spec, name, e.message());
    }
  }
  for (const auto& [name, edge] : spec.arg_inputs) {
    const ArgSchema* a = schema.FindArg(name);
    if (!a) throw unknown(name);
    if (!a->per_sample)
      throw SpecError(spec, name, "cannot be given per sample (as a tensor); pass a constant");
    if (spec.args.count(name))
      throw SpecError(spec, name, "is given both as a constant and per sample");
  }
  for (const auto& a : schema.args()) {
    if (a.required() && !spec.args.count(a.name) && !spec.arg_inputs.count(a.name))
      throw SpecError(spec, a.name, "is required by operator '" + spec.op + "'");
  }
  for (const auto& group : schema.exclusive_groups()) {
    std::vector<std::string> given;
    for (const auto& n : group)
      if (spec.args.count(n) || spec.arg_inputs.count(n)) given.push_back(n);
    if (given.size() > 1)
      throw SpecError(spec, given[1], "cannot be combined with '" + given[0] + "'");
  }
  const ArgView view(spec, schema);
  for (const auto& check : schema.checks()) {
    try {
      check(view);
    } catch (const ArgCheckError& e) {
      throw SpecError(spec, e.argument, e.message);
    }
  }
  const int n_in = static_cast<int>(spec.inputs.size());
  if (n_in < schema.min_inputs() || n_in > schema.max_inputs()) {
    std::string expect = schema.min_inputs() == schema.max_inputs()
                             ? std::to_string(schema.max_inputs())
                             : std::to_string(schema.min_inputs()) + " to " + std::to_string(schema.max_inputs());
    throw SpecError(spec, "", "operator '" + spec.op + "' takes " + expect + " input(s), got " + std::to_string(n_in));
  }
  const int n_out = schema.NumOutputs(spec);
  if (spec.outputs.empty()) {
    for (int i = 0; i < n_out; ++i) spec.outputs.push_back(spec.name + "[" + std::to_string(i) + "]");
  } else if (static_cast<int>(spec.outputs.size()) != n_out) {
    throw SpecError(spec, "", "operator '" + spec.op + "' has " + std::to_string(n_out) + " output(s), " +
                                  std::to_string(spec.outputs.size()) + " names were given");
  }
  return spec;
}

Graph::Graph(const std::vector<OpSpec>& specs, const std::vector<std::string>& outputs) {
  if (outputs.empty()) throw Error("the pipeline has no outputs; call set_outputs / return them from define_graph");
  // Edge name -> producer (index into specs).
  std::map<std::string, EdgeRef> producers;
  std::set<std::string> names;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!names.insert(specs[i].name).second) throw Error("two operators are named '" + specs[i].name + "'");
    for (size_t j = 0; j < specs[i].outputs.size(); ++j) {
      auto [it, ok] = producers.emplace(specs[i].outputs[j], EdgeRef{static_cast<int>(i), static_cast<int>(j)});
      if (!ok)
        throw Error("edge '" + specs[i].outputs[j] + "' is produced by both '" + specs[it->second.node].name +
                    "' and '" + specs[i].name + "'");
    }
  }
  auto resolve = [&](const std::string& edge, const OpSpec* consumer, const std::string& arg) {
    auto it = producers.find(edge);
    if (it == producers.end()) {
      if (!consumer) throw Error("pipeline output '" + edge + "' is not produced by any operator");
      Error::Context c;
      c.op = consumer->name;
      c.argument = arg;
      throw Error("input '" + edge + "' is not produced by any operator", c);
    }
    return it->second;
  };

  // Dependencies in terms of spec indices.
  const size_t n = specs.size();
  std::vector<std::vector<int>> deps(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto& e : specs[i].inputs) deps[i].push_back(resolve(e, &specs[i], "").node);
    for (const auto& [arg, e] : specs[i].arg_inputs) deps[i].push_back(resolve(e, &specs[i], arg).node);
  }
  std::vector<EdgeRef> out_refs;
  for (const auto& o : outputs) out_refs.push_back(resolve(o, nullptr, ""));

  // Keep what the outputs (and preserved operators) need.
  std::vector<bool> keep(n, false);
  std::deque<int> work;
  for (const auto& r : out_refs) work.push_back(r.node);
  for (size_t i = 0; i < n; ++i) {
    auto it = specs[i].args.find("preserve");
    if (it != specs[i].args.end() && std::get<bool>(it->second)) work.push_back(static_cast<int>(i));
  }
  while (!work.empty()) {
    int i = work.front();
    work.pop_front();
    if (keep[static_cast<size_t>(i)]) continue;
    keep[static_cast<size_t>(i)] = true;
    for (int d : deps[static_cast<size_t>(i)]) work.push_back(d);
  }

  // Kahn's algorithm over kept nodes; among ready nodes pick the lowest stage, then insertion order.
  std::vector<int> indeg(n, 0);
  std::vector<std::vector<int>> users(n);
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    for (int d : deps[i]) {
      ++indeg[i];
      users[static_cast<size_t>(d)].push_back(static_cast<int>(i));
    }
  }
  std::vector<Stage> stage(n);
  for (size_t i = 0; i < n; ++i) stage[i] = StageOf(specs[i].device);
  std::set<std::pair<int, int>> ready;  // (stage, index)
  for (size_t i = 0; i < n; ++i)
    if (keep[i] && indeg[i] == 0) ready.insert({static_cast<int>(stage[i]), static_cast<int>(i)});
  std::vector<int> order;
  while (!ready.empty()) {
    auto [s, i] = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (int u : users[static_cast<size_t>(i)])
      if (--indeg[static_cast<size_t>(u)] == 0) ready.insert({static_cast<int>(stage[static_cast<size_t>(u)]), u});
  }
  const size_t kept = static_cast<size_t>(std::count(keep.begin(), keep.end(), true));
  if (order.size() != kept) {
    std::string cyc;
    for (size_t i = 0; i < n; ++i)
      if (keep[i] && indeg[i] > 0) cyc += (cyc.empty() ? "'" : ", '") + specs[i].name + "'";
    throw Error("the graph has a cycle through operators " + cyc);
  }

  std::vector<int> new_index(n, -1);
  for (size_t k = 0; k < order.size(); ++k) new_index[static_cast<size_t>(order[k])] = static_cast<int>(k);
  auto remap = [&](EdgeRef r) { return EdgeRef{new_index[static_cast<size_t>(r.node)], r.output}; };
  for (int i : order) {
    const OpSpec& s = specs[static_cast<size_t>(i)];
    GraphNode node;
    node.spec = s;
    node.schema = &OperatorRegistry::Get().GetSchema(s.op);
    node.stage = stage[static_cast<size_t>(i)];
    node.insertion_index = s.position >= 0 ? s.position : i;
    for (const auto& e : s.inputs) node.inputs.push_back(remap(producers.at(e)));
    for (const auto& [arg, e] : s.arg_inputs) node.arg_inputs[arg] = remap(producers.at(e));
    nodes_.push_back(std::move(node));
  }
  for (auto& node : nodes_) {
    if (node.stage != Stage::kCpu) continue;
    auto check = [&](const EdgeRef& r, const std::string& what) {
      if (IsGpuEdge(r)) {
        Error::Context c;
        c.op = node.spec.name;
        c.argument = what;
        throw Error("a CPU operator cannot take GPU data ('" + nodes_[static_cast<size_t>(r.node)].spec.outputs[static_cast<size_t>(r.output)] +
                        "' is produced by " + nodes_[static_cast<size_t>(r.node)].spec.device + " operator '" +
                        nodes_[static_cast<size_t>(r.node)].spec.name + "')",
                    c);
      }
    };
    for (const auto& r : node.inputs) check(r, "");
    for (const auto& [arg, r] : node.arg_inputs) check(r, arg);
  }
  for (const auto& r : out_refs) outputs_.push_back(remap(r));
  output_names_ = outputs;
}

}  // namespace sluice
