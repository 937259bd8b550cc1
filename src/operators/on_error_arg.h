// The on_error argument of the operators whose samples can fail on bad data (the decoders, the
// readers): "raise" or "replace", declared and read in one place. What "replace" does is the
// executor's (pipeline/sample_replacement.h): the whole row is replaced by the next good row of the
// same batch, counted, and logged.
#pragma once
#include <string>

#include "operators/operator.h"
#include "operators/schema.h"

namespace sluice {

// Declares on_error (default "raise"). `fails` says how a sample fails ("cannot be decoded"),
// `error_names` what the raised error names, `succeeded` what a good sample did ("decoded").
OpSchema& AddOnErrorArg(OpSchema& s, const std::string& fails, const std::string& error_names,
                        const std::string& succeeded);

// True when the operator was built with on_error="replace".
bool ReplacesOnError(const Operator& op);

}  // namespace sluice
