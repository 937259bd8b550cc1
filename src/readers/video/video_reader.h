// readers.video and experimental.readers.video on the CPU: DALI's video readers (dali/operators/
// reader/video_reader_op.cc, which decodes on NVDEC, and the experimental CPU/GPU one). The dataset
// is every clip of every file: sequence_length frames, stride apart, starting every `step` frames
// (default sequence_length x stride) while the clip fits -- readers.video: its frames from first to
// last (1 + (sequence_length - 1) x stride), experimental.readers.video: sequence_length x stride
// frames, as DALI's two readers count; pad_mode != "none" adds one padded clip where the whole
// clips leave frames over. Files come from filenames (+ labels), a file_root of class folders, or a
// file_list of "path label [start [end]]" lines (video_file_list.h).
//
// Two parts, as readers.nemo_asr: VideoLoader, a ReaderOperator (sharding, shuffling, padding,
// prefetching, checkpoint state) that indexes every file once (kernels/video/video_decode.h:
// frame count and timestamps, one demux pass without decoding) and hands out clip numbers; and
// VideoReader, the operator the pipeline runs, which decodes each clip of the batch on the
// executor's threads (VideoDecoding, shared with experimental.decoders.video).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "kernels/video/video_decode.h"
#include "operators/video/video_decoding.h"
#include "readers/video/video_file_list.h"
#include "readers/common/loader_backed_reader.h"
#include "readers/common/reader_operator.h"

namespace sluice {

class VideoLoader : public ReaderOperator {
 public:
  struct File {
    std::string path;
    int32_t label = 0;
    std::shared_ptr<const kernels::VideoIndex> index;
  };
  struct Clip {
    int32_t file = 0;
    int64_t start = 0;
  };
  // What enable_frame_num asks for: nothing, the first frame's number, or every frame's.
  enum class FrameNum { kNone, kScalar, kSequence };
  static FrameNum FrameNumOf(const OpSpec& spec);

  explicit VideoLoader(const OpSpec& spec);
  ~VideoLoader() override;

  // Valid once initialised (after construction, or the first batch with lazy_init).
  const std::vector<File>& files() const { return files_; }
  const std::vector<Clip>& clips() const { return clips_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  // Output 0: the clip's number in clips() (int64 scalar).
  int NumOutputs() const override { return 1; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void PresizeOutputs(std::vector<TensorList>&, int, const MemoryConfig&) override {}

 private:
  // The files, each with the frames [first, end) its clips are cut from (file_list ranges).
  struct Listed {
    std::string path;
    int32_t label = 0;
    VideoListEntry range;  // start = end = 0: the whole video
  };
  std::vector<Listed> ListFiles() const;
  VideoRangeRule RangeRule() const;

  std::vector<File> files_;
  std::vector<Clip> clips_;
  bool legacy_;  // readers.video's clip rule (span 1 + (sequence_length - 1) * stride), else the experimental one's
  int64_t sequence_length_, stride_, step_, max_pixels_;
  VideoPad pad_;
};

class VideoReader final : public LoaderBackedReader<VideoLoader> {
 public:
  explicit VideoReader(const OpSpec& spec);
  ~VideoReader() override;

  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void Run(Workspace& ws) override;

 private:
  VideoDecoding::ParallelFor EachSample(Workspace& ws);

  const bool labels_out_, timestamps_out_;
  const VideoLoader::FrameNum frame_num_;
  const int64_t sequence_length_, stride_;
  const VideoPad pad_;
  VideoDecoding decoding_;
  TensorList positions_;
  std::vector<const VideoLoader::Clip*> batch_;
  std::vector<VideoDecoding::Sample> samples_;
};

}  // namespace sluice
