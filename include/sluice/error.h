// The exception type Sluice throws. Part of the stable public API.
#pragma once
#include <stdexcept>
#include <string>

namespace sluice {

// Every error carries the context a user needs to find the cause: the operator (instance name),
// the argument, and the sample's source, when known. what() is the full human-readable message.
class Error : public std::runtime_error {
 public:
  struct Context {
    std::string op;        // operator instance name, e.g. "decoders.image#2"
    std::string argument;  // argument name, when the error is about one
    std::string source;    // SourceInfo::ToString() of the sample, when the error is about one
    int sample = -1;       // sample index in the batch
    int64_t iteration = -1;
  };

  explicit Error(std::string message) : Error(std::move(message), Context{}) {}
  Error(std::string message, Context ctx)
      : std::runtime_error(Format(message, ctx)), message_(std::move(message)), ctx_(std::move(ctx)) {}

  const std::string& message() const { return message_; }  // without context
  const Context& context() const { return ctx_; }

  // Returns a copy with empty context fields filled from `outer`.
  Error WithContext(const Context& outer) const {
    Context c = ctx_;
    if (c.op.empty()) c.op = outer.op;
    if (c.argument.empty()) c.argument = outer.argument;
    if (c.source.empty()) c.source = outer.source;
    if (c.sample < 0) c.sample = outer.sample;
    if (c.iteration < 0) c.iteration = outer.iteration;
    return Error(message_, c);
  }

  static std::string Format(const std::string& msg, const Context& c) {
    std::string s;
    if (!c.op.empty()) s += "[" + c.op + "] ";
    if (!c.argument.empty()) s += "argument '" + c.argument + "': ";
    s += msg;
    if (c.sample >= 0 || !c.source.empty() || c.iteration >= 0) {
      s += " (";
      bool sep = false;
      if (c.sample >= 0) { s += "sample " + std::to_string(c.sample); sep = true; }
      if (c.iteration >= 0) { s += std::string(sep ? " of " : "") + "batch " + std::to_string(c.iteration); sep = true; }
      if (!c.source.empty()) s += std::string(sep ? ", " : "") + "source: " + c.source;
      s += ")";
    }
    return s;
  }

 private:
  std::string message_;
  Context ctx_;
};

}  // namespace sluice
