// on_error="replace" in the decoders (image, audio, video): a failed sample gets a stand-in, the next
// good sample of the batch after it (wrapping to the first), so that the operators after the decoder
// can run on a full batch until the executor replaces the whole row (pipeline/sample_replacement).
// Each failure is reported to the workspace with its source and error.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor_list.h"
#include "operators/workspace.h"

namespace sluice {

// error_of(i): sample i's error, empty when it succeeded; source_of(i): where it came from. Returns
// (failed, stand-in) pairs in sample order, after reporting each failure to ws. Throws sluice::Error
// naming the first sample and its error when no sample of the n succeeded.
std::vector<std::pair<int, int>> PickStandIns(int n, const std::function<const std::string&(int)>& error_of,
                                              const std::function<const SourceInfo&(int)>& source_of,
                                              const Workspace& ws);

// For each (failed, stand-in) pair, gives out's failed sample the stand-in's shape and bytes.
void CopyStandIns(const std::vector<std::pair<int, int>>& pairs, TensorList& out, const Workspace& ws);

}  // namespace sluice
