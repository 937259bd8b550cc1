// Sequences through per-item operators (OpSchema::UnfoldsSequences): DALI's "expand sequences".
// When input 0 of such an operator has a layout beginning with F (FHWC, FCHW, ...), the operator
// runs on the frames as a batch of items: each sample of shape [F, ...] becomes F samples of shape
// [...] (layout without the F); every other input and every argument input is repeated for each
// frame of its sample -- so all frames of a sample get the same argument values, random ones drawn
// once per sample by fn.random.* included -- unless its layout begins with F too (fn.per_frame),
// in which case its sample is split frame by frame (its frame count must be the sample's). The
// operator's outputs are folded back: sample i is its frames' outputs stacked, layout "F" + the
// operator's layout; every frame of a sample must give the same output shape.
//
// Costs one copy of the inputs and one of the outputs. CPU operators only: a sequence reaching a
// GPU or mixed operator is an error naming it. Failed-sample reports (on_error="replace") are
// mapped back to the sequence.
#pragma once
#include <functional>
#include <vector>

#include <sluice/memory_config.h>

#include "operators/operator.h"

namespace sluice {

// Whether `schema`'s operator must run frame by frame on this workspace's inputs.
bool NeedsSequenceUnfold(const OpSchema& schema, const Workspace& ws);

// Runs Setup and Run of `op` on the frames of `ws`'s sequences and fills ws's outputs.
// `resize_outputs` allocates the outputs Setup described (the runner's ResizeOutputs).
void RunUnfolded(Operator& op, Workspace& ws, const MemoryConfig& memory,
                 const std::function<void(const std::vector<OutputDesc>&, Workspace&)>& resize_outputs);

}  // namespace sluice
