// Per-sample replacement across the whole pipeline (on_error="replace").
//
// An operator that cannot produce sample i of a batch reports it (Workspace::ReportFailedSample)
// and fills its own output for i with valid stand-in data, so that the operators after it run
// unchanged. When the iteration's last stage has run, the executor replaces the whole row i, in
// every pipeline output of that iteration (those made before the failing operator, such as
// labels, and after it, such as resized images and random numbers), by row r: the next sample
// index after i, wrapping around, that no operator reported in this iteration. Each row of a
// batch is then one coherent sample (row i is an exact copy of row r, source included), and the
// batch keeps its size (equal across ranks).
//
// Deterministic: which samples fail depends only on the data and on the iteration's random
// streams, never on num_threads or queue depths, and r depends only on the failed set. Nothing
// is kept across iterations, so checkpoints are unaffected. An iteration where every sample
// failed somewhere is an error naming the first failure.
#pragma once
#include <vector>

#include <sluice/sample_error.h>

#include "core/tensor_list.h"

namespace sluice {

// A failure reported during an iteration: the node that reported it and its record.
struct FailedSample {
  int node = -1;
  SampleErrorRecord record;
};

// Views (tensor_list.h) are never written through: a list of sample views gets views of row r;
// a contiguous view is copied into fresh memory of its own.
//
// Replaces the failed rows of `outputs` (each distinct list once) as described above and sets
// each record's replaced_by. Device lists are copied on `stream` (then synchronized). Throws
// sluice::Error when every row failed.
void ReplaceFailedRows(std::vector<FailedSample>& failed, const std::vector<std::shared_ptr<TensorList>>& outputs,
                       const MemoryConfig& memory, void* stream);

}  // namespace sluice
