#include "operators/video/video_decoding.h"

#include "operators/stand_in_samples.h"

#include <algorithm>
#include <cstring>

namespace sluice {

VideoPad ParseVideoPad(const std::string& n) {
  if (n == "none") return VideoPad::kNone;
  if (n == "constant") return VideoPad::kConstant;
  if (n == "edge" || n == "repeat") return VideoPad::kEdge;
  if (n == "reflect_1001" || n == "symmetric") return VideoPad::kReflect1001;
  return VideoPad::kReflect101;  // "reflect_101", "reflect" (the schema's Enum allows nothing else)
}

OpSchema& AddVideoConversionArg(OpSchema& s) {
  return s.Arg("color_conversion", ArgType::kString, std::string("dali"),
               "How decoded frames become RGB or YCbCr pixels: \"dali\" (DALI 2.4's CPU video decoder's conversion, "
               "bit-identical to it for planar 8-bit YUV: chroma upsampled bilinearly, BT.601 at the pixel format's "
               "range) or \"pyav\" (PyAV's VideoFrame.to_ndarray, bit-identical to it: libswscale's default "
               "conversion, chroma of each 2x2 block shared).")
      .Enum({"dali", "pyav"});
}

kernels::VideoConversion ParseVideoConversion(const Operator& op) {
  return op.Arg<std::string>("color_conversion") == "pyav" ? kernels::VideoConversion::kPyav
                                                           : kernels::VideoConversion::kDali;
}

OpSchema& AddVideoClipArgs(OpSchema& s, bool image_type, const std::string& pad_default) {
  s.Arg("pad_mode", ArgType::kString, pad_default,
        "What a clip frame past the video's last frame becomes: \"none\" (dropped: the clip is shorter, readers "
        "then make only whole clips), \"constant\" (a frame of fill_value), \"edge\" or \"repeat\" (the last frame), "
        "\"reflect_1001\" or \"symmetric\" (mirrored, the last frame repeated: ... 8 9 | 9 8 ...), \"reflect_101\" "
        "or \"reflect\" (mirrored about the last frame: ... 8 9 | 8 7 ...).")
      .Enum({"none", "constant", "edge", "repeat", "reflect_1001", "symmetric", "reflect_101", "reflect"})
      .Arg("fill_value", ArgType::kIntList, std::vector<int64_t>{0},
           "pad_mode=\"constant\": the value of the padding frames' pixels, one value for every channel or one "
           "per channel.")
      .Arg("max_pixels", ArgType::kInt, kernels::kDefaultMaxVideoFramePixels,
           "Largest frame accepted, in pixels (width x height), checked from the stream's header before any frame "
           "is decoded (2^26 by default: 8192 x 8192).")
      .Min(1);
  AddVideoConversionArg(s);
  if (image_type)
    s.Arg("image_type", ArgType::kString, std::string("RGB"),
          "The frames' color space: RGB (3 channels), YCbCr (3 channels, BT.601 limited range as libswscale "
          "converts) or GRAY (1 channel).")
        .Enum({"RGB", "YCbCr", "GRAY", "BGR"});
  return s;
}

std::vector<int64_t> ClipFrames(int64_t start, int64_t length, int64_t stride, int64_t n, VideoPad pad) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(std::max<int64_t>(length, 0)));
  for (int64_t i = 0; i < length; ++i) {
    int64_t f = start + i * stride;
    if (f < n) {
      out.push_back(f);
      continue;
    }
    switch (pad) {
      case VideoPad::kNone: return out;
      case VideoPad::kConstant: f = -1; break;
      case VideoPad::kEdge: f = n - 1; break;
      case VideoPad::kReflect1001:
      case VideoPad::kReflect101: {
        // Mirror the index into [0, n): period 2n (1001) or 2n - 2 (101).
        const bool edge_twice = pad == VideoPad::kReflect1001;
        const int64_t period = edge_twice ? 2 * n : std::max<int64_t>(2 * n - 2, 1);
        int64_t m = f % period;
        if (m >= n) m = edge_twice ? period - 1 - m : period - m;
        f = n == 1 ? 0 : m;
        break;
      }
    }
    out.push_back(f);
  }
  return out;
}

VideoDecoding::VideoDecoding(const Operator& op, bool replace_on_error, bool image_type)
    : conversion_(ParseVideoConversion(op)), max_pixels_(op.Arg<int64_t>("max_pixels")),
      replace_on_error_(replace_on_error) {
  const std::string type = image_type ? op.Arg<std::string>("image_type") : "RGB";
  if (type == "BGR") op.ThrowArgError("image_type", "BGR is not supported by the CPU video decoder (use RGB)");
  color_ = type == "GRAY" ? kernels::VideoColor::kGray
           : type == "YCbCr" ? kernels::VideoColor::kYCbCr
                             : kernels::VideoColor::kRGB;
  const auto fill = op.Arg<std::vector<int64_t>>("fill_value");
  const int c = kernels::VideoChannels(color_);
  if (fill.empty() || (fill.size() != 1 && fill.size() != static_cast<size_t>(c)))
    op.ThrowArgError("fill_value", "needs 1 or " + std::to_string(c) + " values, got " + std::to_string(fill.size()));
  for (int k = 0; k < c; ++k) {
    const int64_t v = fill[fill.size() == 1 ? 0 : static_cast<size_t>(k)];
    if (v < 0 || v > 255) op.ThrowArgError("fill_value", "values must be in [0, 255], got " + std::to_string(v));
    fill_.push_back(static_cast<uint8_t>(v));
  }
}

void VideoDecoding::Guard(const Sample& s, int i, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    if (replace_on_error_) {
      plans_[static_cast<size_t>(i)].error = e.message();
      plans_[static_cast<size_t>(i)].decoder.reset();
      return;
    }
    Error::Context c = e.context();
    if (c.source.empty()) c.source = s.source.ToString();
    throw Error(e.message(), c);
  }
}

OutputDesc VideoDecoding::Setup(const std::vector<Sample>& samples, const ClipFn& clip, const ParallelFor& for_each) {
  plans_.clear();
  plans_.resize(samples.size());
  for_each([&](int i, int) {
    const Sample& s = samples[static_cast<size_t>(i)];
    Plan& p = plans_[static_cast<size_t>(i)];
    Guard(s, i, [&] {
      if (s.index) {
        p.index = s.index;
        if (s.index->width * int64_t{s.index->height} > max_pixels_)
          throw Error("frames of " + std::to_string(s.index->width) + "x" + std::to_string(s.index->height) +
                      " pixels are over max_pixels (" + std::to_string(max_pixels_) + ")");
      } else {
        p.decoder = s.path.empty() ? kernels::VideoDecoder::FromMemory(s.bytes, max_pixels_)
                                   : kernels::VideoDecoder::FromFile(s.path, max_pixels_);
        p.index = p.decoder->SharedIndex();
      }
      p.frames = clip(i, *p.index);
    });
  });
  OutputDesc d;
  d.dtype = DType::kUInt8;
  d.layout = "FHWC";
  const int64_t c = kernels::VideoChannels(color_);
  for (const Plan& p : plans_) {
    if (!p.error.empty()) d.shapes.push_back(TensorShape{0, 0, 0, c});
    else d.shapes.push_back(TensorShape{static_cast<int64_t>(p.frames.size()), p.index->height, p.index->width, c});
  }
  return d;
}

void VideoDecoding::DecodeClip(const Sample& s, Plan& p, uint8_t* out) const {
  const kernels::VideoIndex& idx = *p.index;
  const size_t frame_bytes = static_cast<size_t>(idx.width) * static_cast<size_t>(idx.height) *
                             static_cast<size_t>(kernels::VideoChannels(color_));
  std::vector<int64_t> wanted;
  for (int64_t f : p.frames)
    if (f >= 0) wanted.push_back(f);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  // Each distinct frame is decoded once, into its first clip slot; repeats (padding) are copies.
  std::vector<size_t> first_slot(wanted.size(), 0);
  for (size_t k = p.frames.size(); k-- > 0;) {
    if (p.frames[k] < 0) continue;
    first_slot[static_cast<size_t>(std::lower_bound(wanted.begin(), wanted.end(), p.frames[k]) - wanted.begin())] = k;
  }
  if (!wanted.empty()) {
    if (!p.decoder) {
      p.decoder = s.path.empty() ? kernels::VideoDecoder::FromMemory(s.bytes, max_pixels_)
                                 : kernels::VideoDecoder::FromFile(s.path, max_pixels_);
      p.decoder->UseIndex(p.index);
    }
    p.decoder->set_conversion(conversion_);
    p.decoder->Decode(wanted, color_, [&](size_t i) { return out + first_slot[i] * frame_bytes; });
    p.decoder.reset();  // its buffers go now, not at the next Setup
  }
  for (size_t k = 0; k < p.frames.size(); ++k) {
    uint8_t* dst = out + k * frame_bytes;
    if (p.frames[k] < 0) {
      for (size_t b = 0; b < frame_bytes; b += fill_.size()) std::memcpy(dst + b, fill_.data(), fill_.size());
      continue;
    }
    const size_t slot = first_slot[static_cast<size_t>(std::lower_bound(wanted.begin(), wanted.end(), p.frames[k]) - wanted.begin())];
    if (slot != k) std::memcpy(dst, out + slot * frame_bytes, frame_bytes);
  }
}

void VideoDecoding::Run(const Workspace& ws, const std::vector<Sample>& samples, TensorList& out,
                        const ParallelFor& for_each) {
  for_each([&](int i, int) {
    Plan& p = plans_[static_cast<size_t>(i)];
    if (!p.error.empty()) return;
    Guard(samples[static_cast<size_t>(i)], i,
          [&] { DecodeClip(samples[static_cast<size_t>(i)], p, out.mutable_sample<uint8_t>(i)); });
  });
  replacements_.clear();
  if (!replace_on_error_) return;
  replacements_ = PickStandIns(
      static_cast<int>(plans_.size()), [&](int i) -> const std::string& { return plans_[static_cast<size_t>(i)].error; },
      [&](int i) -> const SourceInfo& { return samples[static_cast<size_t>(i)].source; }, ws);
  CopyStandIns(replacements_, out, ws);
}

}  // namespace sluice
