// Whether an operator's Setup is planning the frames of sequences. An OpSchema::UnfoldsSequences
// operator sees an FHWC batch as a batch of HWC frames (pipeline/sequence_unfold.h), which hides
// that the samples were sequences; the few operators whose DALI semantics depend on it ask here:
// crop_mirror_normalize (its "F..." output layouts are for sequences only) and resize_crop_mirror
// (DALI 2.4 mirrors a sequence's frames as one-slice volumes).
//
// Contract: RunUnfolded holds a SequenceFramesScope around the operator's Setup, on the calling
// thread (Setup is never run on the pool), so SetupOnSequenceFrames() is meaningful in Setup only.
// Kept out of Workspace on purpose: a flag there would be one more member every operator carries
// for two of them.
#pragma once

namespace sluice {

namespace sequence_frames_detail {
inline thread_local bool active = false;
}  // namespace sequence_frames_detail

// True while the calling thread runs the Setup of an operator on the frames of sequences.
inline bool SetupOnSequenceFrames() { return sequence_frames_detail::active; }

// Marks the Setup calls made in its lifetime as on the frames of sequences (nests).
class SequenceFramesScope {
 public:
  SequenceFramesScope() : previous_(sequence_frames_detail::active) { sequence_frames_detail::active = true; }
  ~SequenceFramesScope() { sequence_frames_detail::active = previous_; }
  SequenceFramesScope(const SequenceFramesScope&) = delete;
  SequenceFramesScope& operator=(const SequenceFramesScope&) = delete;

 private:
  bool previous_;
};

}  // namespace sluice
