// readers.nemo_asr: DALI's reader of NVIDIA NeMo ASR datasets (dali/operators/reader/
// nemo_asr_reader_op.cc, loader/nemo_asr_loader.cc): the utterances of JSON-lines manifests
// (nemo_manifest.h), each decoded (and resampled, downmixed) like decoders.audio, with its sample
// rate, its transcript as UTF-8 bytes and its index.
//
// Two parts, as readers.numpy: NemoAsrLoader, a ReaderOperator (sharding, shuffling, padding,
// prefetching, checkpoint state), whose loader thread reads each utterance's file (its bytes and
// its position in the dataset); and NemoAsrReader, the operator the pipeline runs, which takes a
// batch from the loader and decodes it on the executor's threads (AudioDecoding, shared with
// decoders.audio), where DALI decodes on the reader's own thread pool.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "operators/audio/audio_decoding.h"
#include "readers/nemo/nemo_manifest.h"
#include "readers/common/loader_backed_reader.h"
#include "readers/common/reader_operator.h"

namespace sluice {

class NemoAsrLoader : public ReaderOperator {
 public:
  struct Utterance {
    std::string path;          // resolved (ResolveNemoAudioPath)
    NemoManifestEntry entry;   // as the manifest gives it
    int manifest = 0;          // index into manifests()
    int64_t index = 0;         // position among the kept entries of all manifests, in their order
  };

  explicit NemoAsrLoader(const OpSpec& spec);
  ~NemoAsrLoader() override;

  // The dataset in reading order before sharding (after random_shuffle's one-off shuffle).
  // Valid once initialised (after construction, or the first batch with lazy_init).
  const std::vector<Utterance>& utterances() const { return utterances_; }
  const std::vector<std::string>& manifests() const { return manifests_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  // Output 0: the file's bytes (uint8, 1-D); output 1: the utterance's position in utterances()
  // (int64 scalar).
  int NumOutputs() const override { return 2; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void AdjustSequencer(SequencerOptions& s) const override;

 private:
  const std::vector<std::string> manifests_;
  const NemoManifestFilter filter_;
  const bool shuffle_after_epoch_;
  std::vector<Utterance> utterances_;
};

class NemoAsrReader final : public LoaderBackedReader<NemoAsrLoader> {
 public:
  explicit NemoAsrReader(const OpSpec& spec);
  ~NemoAsrReader() override;

  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void Run(Workspace& ws) override;

 private:
  AudioDecoding::ParallelFor EachSample(Workspace& ws);

  const bool read_sample_rate_, read_text_, read_idxs_;
  const double sample_rate_;
  AudioDecoding decoding_;
  // This batch: the loader's outputs (swapped in by its Setup), what AudioDecoding is given.
  TensorList encoded_, positions_, rates_;
  std::vector<const NemoAsrLoader::Utterance*> batch_;
  std::vector<AudioDecoding::Sample> samples_;
  std::vector<AudioClip> clips_;
};

}  // namespace sluice
