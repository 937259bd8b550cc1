// decoders.image, .image_crop, .image_random_crop and .image_slice with device="mixed": encoded bytes on the
// host in, decoded HWC uint8 images on the device out, with the CPU decoders' arguments, windows
// (the same operator seed gives the same random crops) and on_error policy (ImageDecoding,
// operators/decode/decoder_base.h).
//
// With nvJPEG (built with SLUICE_WITH_NVJPEG, library found at run time, nvjpeg=True), each sample
// is routed (operators/decode/nvjpeg_route.h): the JPEG engines take up to hw_decoder_load of the
// batch in one batched call on the pipeline's stream, nvJPEG's hybrid backends decode the other
// JPEGs on the thread pool (operators/gpu/nvjpeg_decoder.h), and what nvJPEG does not take
// (other formats, CMYK, EXIF rotation, YCbCr output) or fails on is decoded on the host into
// pinned memory and uploaded, where on_error applies as on the CPU. A sample nvJPEG rejects is
// thereby never an error by itself. Without nvJPEG every sample takes the host path; a warning
// says why, once. Set SLUICE_NVJPEG_ROUTES=1 to print each sample's route to stderr.
#ifdef SLUICE_WITH_CUDA
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "operators/decode/decoder_base.h"
#include "operators/decode/nvjpeg_route.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/gpu/pinned_upload.h"
#ifdef SLUICE_WITH_NVJPEG
#include "operators/decode/nvjpeg_decoder.h"
#include "operators/on_error_arg.h"
#endif

namespace sluice::gpu {
namespace {

class MixedImageDecoder : public Operator {
 public:
  // on_error="replace" resizes single samples after the fact: those need per-sample buffers.
  explicit MixedImageDecoder(const OpSpec& spec)
      : Operator(spec), contiguous_(!ReplacesOnError(*this)) {}
  ~MixedImageDecoder() override {
    if (event_) {
      (void)cudaEventSynchronize(event_);
      (void)cudaEventDestroy(event_);
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    if (!ws.stream()) throw Error("operator '" + spec_.op + "' runs in the mixed stage but has no CUDA stream");
    // The previous batch's copies read the pinned buffer: wait for them before resizing or writing.
    if (event_) SLUICE_CUDA_CHECK(cudaEventSynchronize(event_));
    if (!decoding_) {
      bool gpu_decode = false;
#ifdef SLUICE_WITH_NVJPEG
      gpu_decode = OpenNvjpeg(ws);
#else
      if (Arg<bool>("nvjpeg")) Warn("this build of Sluice has no nvJPEG (SLUICE_WITH_NVJPEG=OFF): decoding on the host");
#endif
      // nvJPEG decodes at full resolution: no reduced-scale host decode when it may take a sample.
      decoding_ = std::make_unique<ImageDecoding>(*this, !gpu_decode);
    }
    OutputDesc d = decoding_->Setup(*this, ws, [&](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); });
    d.contiguous = d.contiguous || contiguous_;
    if (d.contiguous) ResizePinned(pinned_, d.shapes, d.dtype, ws.memory());
    else pinned_.Resize(d.shapes, d.dtype, ws.memory(), false);
    pinned_.set_layout(d.layout);
    for (int i = 0; i < pinned_.num_samples(); ++i) pinned_.source(i) = ws.Input(0).source(i);
#ifdef SLUICE_WITH_NVJPEG
    if (nvjpeg_) PlanRoutes(ws);
#endif
    return {d};
  }

  void Run(Workspace& ws) override {
    if (!event_) SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
#ifdef SLUICE_WITH_NVJPEG
    if (nvjpeg_) {
      RunNvjpeg(ws);
      SLUICE_CUDA_CHECK(cudaEventRecord(event_, ws.stream()));
      return;
    }
#endif
    decoding_->Run(*this, ws, pinned_, [&](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); });
    TensorList& dst = ws.Output(0);
    // on_error="replace" may have changed a sample's shape in Run.
    for (int i = 0; i < pinned_.num_samples(); ++i) {
      if (!dst.is_contiguous() && dst.shape(i) != pinned_.shape(i)) dst.ResizeSample(i, pinned_.shape(i), ws.memory());
      dst.source(i) = pinned_.source(i);
    }
    CopyBatch(pinned_, dst, ws.stream());
    SLUICE_CUDA_CHECK(cudaEventRecord(event_, ws.stream()));
  }

 private:
  void Warn(const std::string& what) const {
    std::fprintf(stderr, "sluice: warning: [%s] %s\n", spec_.name.c_str(), what.c_str());
  }

#ifdef SLUICE_WITH_NVJPEG
  // Opens nvJPEG for this operator (true) or says once why the host decodes everything (false).
  bool OpenNvjpeg(Workspace& ws) {
    if (!Arg<bool>("nvjpeg")) return false;
    const double load = Arg<double>("hw_decoder_load");
    NvjpegOptions o;
    o.device_memory_padding = static_cast<size_t>(Arg<int64_t>("device_memory_padding"));
    o.host_memory_padding = static_cast<size_t>(Arg<int64_t>("host_memory_padding"));
    o.preallocate_width = static_cast<int>(Arg<int64_t>("preallocate_width_hint"));
    o.preallocate_height = static_cast<int>(Arg<int64_t>("preallocate_height_hint"));
    o.max_batch_size = ws.batch_size();
    o.use_hardware = load > 0;
    try {
      nvjpeg_ = std::make_unique<NvjpegDecoder>(o, ws.pool().num_threads());
    } catch (const Error& e) {
      Warn(std::string(e.what()) + "; decoding on the host");
      return false;
    }
    hw_load_ = load;
    route_options_.hardware_available = nvjpeg_->hardware();
    route_options_.hybrid_huffman_threshold = Arg<int64_t>("hybrid_huffman_threshold");
    route_options_.output_type = DecoderOutputColor(*this);
    bgr_ = route_options_.output_type == kernels::OutputColor::kBGR;
    // One output format per hardware batch: the operator's, for images with its channel count.
    hw_format_ = NvjpegFormat(route_options_.output_type == kernels::OutputColor::kGray ? 1 : 3, bgr_);
    log_routes_ = std::getenv("SLUICE_NVJPEG_ROUTES") != nullptr;
    if (log_routes_) std::fprintf(stderr, "sluice: [%s] %s\n", spec_.name.c_str(), nvjpeg_->description().c_str());
    return true;
  }

  // Sample i's nvJPEG target: its bytes, its output (null in Setup) and its window.
  NvjpegTarget Target(const Workspace& ws, int i, uint8_t* out) const {
    const TensorList& in = ws.Input(0);
    const kernels::DecodePlan& p = decoding_->plan(i);
    const kernels::ImageInfo& info = decoding_->info(i);
    NvjpegTarget t;
    t.data = in.sample<uint8_t>(i);
    t.size = static_cast<size_t>(in.shape(i).num_elements());
    t.out = out;
    t.width = p.width;
    t.height = p.height;
    t.channels = p.channels;
    if (p.raw_x != 0 || p.raw_y != 0 || p.raw_w != info.width || p.raw_h != info.height)
      t.roi = kernels::CropWindow{p.raw_x, p.raw_y, p.raw_w, p.raw_h};
    return t;
  }

  void PlanRoutes(Workspace& ws) {
    const int n = ws.batch_size();
    const TensorList& in = ws.Input(0);
    routes_.assign(static_cast<size_t>(n), JpegRoute{});
    fallback_.assign(static_cast<size_t>(n), std::string());
    std::vector<int64_t> pixels(static_cast<size_t>(n), 0);
    ForEachSample(ws, [&](int i, int t) {
      JpegRoute& r = routes_[static_cast<size_t>(i)];
      if (decoding_->failed(i)) {
        r = JpegRoute{JpegBackend::kHost, "header unreadable (on_error)", false};
        return;
      }
      const kernels::ImageInfo& info = decoding_->info(i);
      pixels[static_cast<size_t>(i)] = int64_t{info.width} * info.height;
      std::span<const uint8_t> bytes(in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements()));
      r = RouteJpeg(bytes, info, decoding_->plan(i), route_options_);
      if (r.backend == JpegBackend::kHardware &&
          (NvjpegFormat(decoding_->plan(i).channels, bgr_) != hw_format_ ||
           !nvjpeg_->HardwareSupports(t, Target(ws, i, nullptr), hw_format_))) {
        r.backend = pixels[static_cast<size_t>(i)] > route_options_.hybrid_huffman_threshold ? JpegBackend::kGpuHybrid
                                                                                            : JpegBackend::kHybrid;
        r.reason = "the JPEG engines do not take this frame or window";
      }
    });
    SplitHardwareLoad(routes_, hw_load_, pixels, route_options_.hybrid_huffman_threshold);
  }

  void RunNvjpeg(Workspace& ws) {
    TensorList& dst = ws.Output(0);
    cudaStream_t stream = ws.stream();
    const int n = pinned_.num_samples();
    for (int i = 0; i < n; ++i) dst.source(i) = pinned_.source(i);
    // 1. The JPEG engines, queued on the pipeline's stream while the pool works on the rest.
    std::vector<int> hw;
    std::vector<NvjpegTarget> targets;
    for (int i = 0; i < n; ++i) {
      if (routes_[static_cast<size_t>(i)].backend != JpegBackend::kHardware) continue;
      hw.push_back(i);
      targets.push_back(Target(ws, i, dst.mutable_sample<uint8_t>(i)));
    }
    if (const std::string err = nvjpeg_->DecodeHardware(targets, hw_format_, stream); !err.empty()) {
      for (int i : hw) {
        routes_[static_cast<size_t>(i)].backend = JpegBackend::kHost;
        fallback_[static_cast<size_t>(i)] = err;
      }
    }
    // 2. The hybrid backends on the pool; the host decoder for the rest and for what nvJPEG rejects.
    std::vector<uint8_t> on_host(static_cast<size_t>(n), 0);
    nvjpeg_->BeginBatch(stream);
    try {
      DecodeOnPool(ws, dst, on_host);
    } catch (...) {
      nvjpeg_->JoinInto(stream);  // nothing may still write into the outputs once the error is out
      throw;
    }
    nvjpeg_->JoinInto(stream);
    // 3. Uploads, after anything nvJPEG may have written into the same outputs.
    for (int i = 0; i < n; ++i) {
      if (!on_host[static_cast<size_t>(i)] || decoding_->failed(i)) continue;
      const size_t bytes = pinned_.sample_bytes(i);
      if (bytes)
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_mutable_sample(i), pinned_.raw_sample(i), bytes, cudaMemcpyHostToDevice, stream));
    }
    // 4. on_error="replace": stand-ins copied on the device.
    if (decoding_->replace_on_error()) {
      for (const auto& [i, r] : decoding_->Replacements(*this, ws)) {
        dst.ResizeSample(i, dst.shape(r), ws.memory());
        if (dst.sample_bytes(r))
          SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_mutable_sample(i), dst.raw_sample(r), dst.sample_bytes(r),
                                            cudaMemcpyDeviceToDevice, stream));
      }
    }
    if (log_routes_) LogRoutes(ws, on_host);
  }

  // The hybrid backends on the pool; the host decoder for the rest and for what nvJPEG rejects.
  void DecodeOnPool(Workspace& ws, TensorList& dst, std::vector<uint8_t>& on_host) {
    ForEachSample(ws, [&](int i, int t) {
      const JpegRoute& r = routes_[static_cast<size_t>(i)];
      if (r.backend == JpegBackend::kHardware) return;
      if (r.backend != JpegBackend::kHost) {
        const int c = decoding_->plan(i).channels;
        std::string err = nvjpeg_->DecodeHybrid(t, Target(ws, i, dst.mutable_sample<uint8_t>(i)), NvjpegFormat(c, bgr_),
                                                r.backend == JpegBackend::kGpuHybrid);
        if (err.empty()) return;
        fallback_[static_cast<size_t>(i)] = std::move(err);
      }
      on_host[static_cast<size_t>(i)] = 1;
      decoding_->DecodeSample(ws, i, pinned_);
    });
  }

  void LogRoutes(const Workspace& ws, const std::vector<uint8_t>& on_host) const {
    for (int i = 0; i < static_cast<int>(routes_.size()); ++i) {
      const JpegRoute& r = routes_[static_cast<size_t>(i)];
      const std::string& fb = fallback_[static_cast<size_t>(i)];
      const char* backend = on_host[static_cast<size_t>(i)] ? "host" : ToString(r.backend);
      std::fprintf(stderr, "sluice: [%s] route %s: %s (%s%s%s)\n", spec_.name.c_str(),
                   ws.Input(0).source(i).ToString().c_str(), backend, r.reason, fb.empty() ? "" : "; nvJPEG failed: ",
                   fb.c_str());
    }
  }

  std::unique_ptr<NvjpegDecoder> nvjpeg_;
  NvjpegRouteOptions route_options_;
  double hw_load_ = 0;
  bool bgr_ = false;
  bool log_routes_ = false;
  nvjpegOutputFormat_t hw_format_ = NVJPEG_OUTPUT_RGBI;
  std::vector<JpegRoute> routes_;
  std::vector<std::string> fallback_;  // per sample: nvJPEG's error, when it fell back to the host
#endif

  std::unique_ptr<ImageDecoding> decoding_;  // made by the first Setup, once nvJPEG is open or not
  bool contiguous_ = true;
  TensorList pinned_{StorageKind::kPinned};
  cudaEvent_t event_ = nullptr;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterMixedImageDecoders) {
  for (const char* op : {"decoders.image", "decoders.image_random_crop", "decoders.image_crop", "decoders.image_slice"})
    AttachBackend(r, op, "mixed", MakeFactory<MixedImageDecoder>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
