// An OpSpec's operator name and constant arguments as one string, and back, exactly (doubles in
// hexadecimal; any bytes in strings). Graph passes use it to hand an operator the specs of the
// operators it takes the place of or serves (pipeline/operator_fusion.h, pipeline/roi_decode.h)
// through an ordinary string-list argument. Per-sample argument inputs, instance names, devices
// and edges are not encoded; a decoded spec's name is its operator's name.
#pragma once
#include <string>

#include "operators/op_spec.h"

namespace sluice {

std::string EncodeSpec(const OpSpec& spec);
// Throws sluice::Error("malformed encoded operator spec") on text EncodeSpec did not write.
OpSpec DecodeSpec(const std::string& text);

}  // namespace sluice
