#include "operators/on_error_arg.h"

namespace sluice {

OpSchema& AddOnErrorArg(OpSchema& s, const std::string& fails, const std::string& error_names,
                        const std::string& succeeded) {
  return s
      .Arg("on_error", ArgType::kString, std::string("raise"),
           "What a sample that " + fails + " does: \"raise\" stops the pipeline with an error naming " + error_names +
               "; \"replace\" replaces the whole row (every pipeline output of that batch index: labels, random numbers, "
               "...) by the row of the next sample of the same batch that " + succeeded +
               " (batch sizes stay equal across ranks), counts it in the statistics and logs its source and error "
               "(Pipeline.error_log()). A batch where no sample " + succeeded + " is an error.")
      .Enum({"raise", "replace"});
}

bool ReplacesOnError(const Operator& op) { return op.Arg<std::string>("on_error") == "replace"; }

}  // namespace sluice
