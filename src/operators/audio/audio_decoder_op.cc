// decoders.audio: DALI's audio decoder (dali/operators/decoder/audio/audio_decoder_op.cc):
// encoded bytes in, the decoded audio and its sample rate out, with resampling (sample_rate,
// quality), downmixing and the output type; the work is AudioDecoding's (audio_decoding.h), the
// decoding libsndfile's (kernels/audio/audio_decode.h).
#include "operators/audio/audio_decoding.h"
#include "operators/on_error_arg.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class AudioDecoderOp final : public Operator {
 public:
  explicit AudioDecoderOp(const OpSpec& spec)
      : Operator(spec), decoding_(*this, ReplacesOnError(*this)) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    samples_.clear();
    for (int i = 0; i < in.num_samples(); ++i) {
      if (in.shape(i).ndim() != 1) {
        Error::Context c;
        c.op = name();
        c.sample = i;
        c.source = in.source(i).ToString();
        throw Error("expected encoded bytes (1-D), got shape " + in.shape(i).ToString(), c);
      }
      samples_.push_back({{in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements())}, in.source(i), ""});
    }
    const std::vector<double> rates = PerSampleArg<double>(ws, "sample_rate");
    OutputDesc audio = decoding_.Setup(samples_, rates, nullptr, EachSample(ws));
    return {audio, decoding_.RatesDesc()};
  }

  void Run(Workspace& ws) override { decoding_.Run(ws, samples_, ws.Output(0), ws.Output(1), EachSample(ws)); }

 private:
  AudioDecoding::ParallelFor EachSample(Workspace& ws) {
    return [this, &ws](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); };
  }

  AudioDecoding decoding_;
  std::vector<AudioDecoding::Sample> samples_;  // this batch's (input bytes stay valid until Run ends)
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterAudioDecoder) {
  OpSchema s("decoders.audio");
  s.Doc("Decodes audio: WAV (integer PCM 8 to 32 bits, float, A-law, mu-law, ADPCM), FLAC, Ogg Vorbis and Opus, MP3 "
        "(where the libsndfile it runs with reads it), AIFF, AU and the other formats libsndfile reads; the format "
        "is detected from the bytes. Outputs the audio, samples x channels (\"TC\"; 1-D \"T\" with downmix), "
        "optionally resampled to sample_rate, and its sample rate in Hz (float32 scalar: the rate of the audio "
        "output).")
      .Input("data", "Encoded audio (uint8, 1-D), e.g. the bytes readers.file reads.", {DType::kUInt8})
      .Output("audio", "The decoded audio: samples x channels, or samples with downmix; type `dtype`.")
      .Output("sample_rate", "The audio output's sample rate in Hz (float32, a scalar per sample).");
  AddAudioDecodingArgs(s, {/*downmix=*/false, /*sample_rate=*/0.0, /*sample_rate_per_sample=*/true});
  AddOnErrorArg(s, "cannot be decoded", "the operator and the sample's source", "decoded")
      .Factory("cpu", MakeFactory<AudioDecoderOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
