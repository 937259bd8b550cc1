// decoders.audio through a pipeline (op_harness.h for fed bytes; readers.file for sources): output
// shapes, layouts, types and rates, downmix and per-sample resampling, determinism across thread
// counts, every bad input's error (naming the operator, the sample and its file), max_samples, and
// on_error="replace" as decoders.image does it. Sample values are the kernels' tests' and Python's.
#include <gtest/gtest.h>

#include <cmath>

#include "core/tensor_list.h"
#include "core/thread_pool.h"
#include "kernels/audio_test_util.h"
#include "op_harness.h"
#include "operators/e2e/op_test_util.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice::testing {
namespace {

HostBatch Encoded(const std::vector<std::vector<uint8_t>>& files) {
  std::vector<TensorShape> shapes;
  for (const auto& f : files) shapes.push_back(TensorShape{int64_t(f.size())});
  return HostBatch::Of(files, shapes);
}

std::vector<int16_t> Int16(const Batch& b, int i) { return SampleData<int16_t>(b, i); }

TEST(DecodersAudio, ShapesLayoutsTypesAndRates) {
  const auto stereo = ToneWav(1000, 2, 22050, 440), mono = ToneWav(300, 1, 8000, 1000);
  auto out = RunOpCase({OperatorDef("decoders.audio").Arg("dtype", std::string("int16")), Encoded({stereo, mono}), {}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), DType::kInt16);
  EXPECT_EQ(out[0].layout(), "TC");
  EXPECT_EQ(out[0].shape(0), (TensorShape{1000, 2}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{300, 1}));  // 2-D for one channel too, as DALI
  EXPECT_EQ(Int16(out[0], 0), TonePcm16(1000, 2, 22050, 440));
  EXPECT_EQ(out[1].dtype(), DType::kFloat32);
  EXPECT_EQ(out[1].shape(0), TensorShape{});
  EXPECT_EQ(SampleData<float>(out[1], 0)[0], 22050.f);
  EXPECT_EQ(SampleData<float>(out[1], 1)[0], 8000.f);
  // float32 by default: x / 32768.
  out = RunOpCase({OperatorDef("decoders.audio"), Encoded({mono}), {}});
  const auto f = SampleData<float>(out[0], 0);
  const auto pcm = TonePcm16(300, 1, 8000, 1000);
  for (size_t k = 0; k < pcm.size(); ++k) ASSERT_EQ(f[k], pcm[k] / 32768.f) << k;
}

TEST(DecodersAudio, DownmixAndPerSampleResampling) {
  const auto stereo = ToneWav(1000, 2, 22050, 440);
  auto out = RunOpCase({OperatorDef("decoders.audio").Arg("downmix", true).Arg("dtype", std::string("int16")),
                        Encoded({stereo}), {}});
  EXPECT_EQ(out[0].layout(), "T");
  ASSERT_EQ(out[0].shape(0), TensorShape{1000});
  const auto pcm = TonePcm16(1000, 2, 22050, 440);
  const auto mixed = Int16(out[0], 0);
  // DALI's arithmetic: the mean of the decoded floats (x / 32768) times 32767, rounded (not the
  // integers' mean: 11585 and -6270 give 2657, not 2658).
  for (size_t t = 0; t < mixed.size(); ++t) {
    const float mean = (pcm[2 * t] / 32768.f) * 0.5f + (pcm[2 * t + 1] / 32768.f) * 0.5f;
    ASSERT_EQ(mixed[t], int16_t(std::nearbyint(double(mean) * 32767))) << t;
  }
  // Per-sample target rates: 0 keeps the file's rate; lengths are DALI's ceil(n * out / in).
  OpCase c{OperatorDef("decoders.audio"), Encoded({stereo, stereo, stereo}), {}};
  c.arg_inputs.push_back({"sample_rate", HostBatch::Of<float>({{16000.f}, {0.f}, {44100.f}}, {{}, {}, {}})});
  out = RunOpCase(c);
  EXPECT_EQ(out[0].shape(0), (TensorShape{726, 2}));  // 1000 * 16000 / 22050 = 725.6
  EXPECT_EQ(out[0].shape(1), (TensorShape{1000, 2}));
  EXPECT_EQ(out[0].shape(2), (TensorShape{2000, 2}));
  EXPECT_EQ(SampleData<float>(out[1], 0)[0], 16000.f);
  EXPECT_EQ(SampleData<float>(out[1], 1)[0], 22050.f);
  EXPECT_EQ(SampleData<float>(out[1], 2)[0], 44100.f);
  // Upsampling by 2: every other output is the decoded sample itself.
  const auto same = SampleData<float>(out[0], 1), up = SampleData<float>(out[0], 2);
  for (size_t t = 0; t < 1000; ++t) ASSERT_EQ(up[4 * t], same[2 * t]) << t;
}

TEST(DecodersAudio, SameBatchesForAnyThreadCount) {
  std::vector<std::vector<uint8_t>> files;
  for (int i = 0; i < 7; ++i) files.push_back(ToneWav(500 + 97 * i, 1 + i % 2, 8000 + 4000 * i, 300 + 50 * i));
  files.push_back(ReadAudioFile("tone_stereo.flac"));
  files.push_back(ReadAudioFile("tone_stereo.ogg"));
  ExpectSameForAnyThreadCount({OperatorDef("decoders.audio").Arg("sample_rate", 16000.0), Encoded(files), {}});
  ExpectSameForAnyThreadCount(
      {OperatorDef("decoders.audio").Arg("downmix", true).Arg("dtype", std::string("int32")), Encoded(files), {}});
}

TEST(DecodersAudio, BadArgumentsAreRejectedAtTheCall) {
  ExpectCallError(OperatorDef("decoders.audio").Arg("dtype", std::string("uint8")), "dtype", "uint8");
  ExpectCallError(OperatorDef("decoders.audio").Arg("quality", 101.0), "quality", "101");
  ExpectCallError(OperatorDef("decoders.audio").Arg("max_samples", int64_t{0}), "max_samples", "0");
  ExpectCallError(OperatorDef("decoders.audio").Arg("on_error", std::string("skip")), "on_error", "skip");
}

// readers.file over `files` -> decoders.audio (named "decoder") with `args`.
std::unique_ptr<Pipeline> DecodeFiles(const std::vector<std::string>& files, std::map<std::string, Value> args) {
  auto p = std::make_unique<Pipeline>(Options(int(files.size())));
  OperatorDef reader("readers.file");
  reader.Arg("files", files).Name("Reader");
  auto r = p->AddOperator(reader);
  OperatorDef dec("decoders.audio");
  dec.Input(r[0]).Name("decoder");
  dec.args = std::move(args);
  auto outs = p->AddOperator(dec);
  p->SetOutputs({outs[0], outs[1], r[1]});
  p->Build();
  return p;
}

TEST(DecodersAudio, EveryBadInputIsAnErrorNamingTheOperatorTheSampleAndTheFile) {
  TempDir tmp;
  const std::string good = AudioPath("tone_s16_stereo.wav");
  auto wav = ReadAudioFile("tone_s16_stereo.wav");
  auto flac = ReadAudioFile("tone_stereo.flac");
  auto ogg = ReadAudioFile("tone_stereo.ogg");
  auto huge = flac;
  huge[21] |= 0x0F;  // STREAMINFO: 2^36 - 1 frames
  for (int k = 22; k < 26; ++k) huge[size_t(k)] = 0xFF;
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> cases = {
      {"truncated.wav", std::vector<uint8_t>(wav.begin(), wav.begin() + long(wav.size() / 2))},
      {"truncated.flac", std::vector<uint8_t>(flac.begin(), flac.begin() + long(flac.size() / 2))},
      {"truncated.ogg", std::vector<uint8_t>(ogg.begin(), ogg.end() - 100)},
      {"text.wav", {'n', 'o', 't', ' ', 'a', 'u', 'd', 'i', 'o', '\n'}},
      {"empty.wav", {}},
      {"no_samples.wav", MakeWav(1, 1, 8000, 16, {})},
      {"codec.wav", MakeWav(0x1234, 1, 8000, 16, std::vector<uint8_t>(64))},
      {"huge.flac", huge},
      {"huge_rf64.wav", testing::MakeRf64(2, 8000, 16, std::vector<uint8_t>(40), int64_t{1} << 41, int64_t{1} << 40)},
  };
  const std::map<std::string, std::string> reasons = {
      {"truncated.wav", "truncated WAV stream"},     {"truncated.flac", "truncated or corrupt stream"},
      {"truncated.ogg", "length is unknown"},         {"text.wav", "not an audio stream"},
      {"empty.wav", "empty input"},                   {"no_samples.wav", "no audio samples"},
      {"codec.wav", "not an audio stream"},           {"huge.flac", "more than max_samples"},
      {"huge_rf64.wav", "ds64 chunk declares 2199023255552 data bytes, the input holds 40"},
  };
  for (const auto& [name, bytes] : cases) {
    WriteBinary(tmp / name, bytes);
    auto p = DecodeFiles({good, tmp / name}, {});
    ExpectError([&] { p->Run(); }, {"[decoder]", "sample 1", tmp / name, reasons.at(name)});
  }
  // max_samples refuses a file from its header (1600 frames x 2 channels).
  auto p = DecodeFiles({good}, {{"max_samples", int64_t{3199}}});
  ExpectError([&] { p->Run(); }, {"[decoder]", good, "more than max_samples (3199 samples)"});
  EXPECT_NO_THROW(DecodeFiles({good}, {{"max_samples", int64_t{3200}}})->Run());
  // ... and after resampling: 1600 frames at 16 kHz -> 4800 at 48 kHz.
  auto q = DecodeFiles({good}, {{"max_samples", int64_t{9599}}, {"sample_rate", 48000.0}});
  ExpectError([&] { q->Run(); }, {"[decoder]", "gives 4800 frames of 2 channels, more than max_samples (9599)"});
}

TEST(DecodersAudio, OnErrorReplaceReplacesTheRowAndLogsTheSource) {
  TempDir tmp;
  WriteBinary(tmp / "bad.wav", {'R', 'I', 'F', 'F', 1, 2, 3});
  const std::vector<std::string> files = {AudioPath("tone_stereo.flac"), tmp / "bad.wav", AudioPath("tone_s16_stereo.wav")};
  auto p = DecodeFiles(files, {{"on_error", std::string("replace")}});
  auto out = p->Run();
  ASSERT_EQ(out[0].num_samples(), 3);
  // Sample 1 took the row of the next sample that decoded (2).
  EXPECT_EQ(out[0].shape(1), out[0].shape(2));
  EXPECT_EQ(SampleData<float>(out[0], 1), SampleData<float>(out[0], 2));
  EXPECT_EQ(SampleData<float>(out[1], 1), SampleData<float>(out[1], 2));
  const auto log = p->GetErrorLog();
  ASSERT_GE(log.size(), 1u);
  EXPECT_EQ(log[0].op, "decoder");
  EXPECT_EQ(log[0].sample, 1);
  EXPECT_EQ(log[0].replaced_by, 2);
  EXPECT_EQ(log[0].source, tmp / "bad.wav");
  EXPECT_NE(log[0].error.find("not an audio stream"), std::string::npos) << log[0].error;
  // A batch where nothing decodes is an error.
  WriteBinary(tmp / "bad2.wav", {1, 2, 3});
  auto q = DecodeFiles({tmp / "bad.wav", tmp / "bad2.wav"}, {{"on_error", std::string("replace")}});
  ExpectError([&] { q->Run(); }, {"no sample of the batch could be decoded"});
}

// Run directly, without the executor (which then replaces the whole row in the pipeline's outputs,
// hiding what the decoder wrote): a failed sample's output holds a copy of its stand-in, so the
// operators after the decoder run on real audio, and the failure is reported once.
TEST(DecodersAudio, FailedSamplesHoldTheirStandInForTheOperatorsAfter) {
  const std::vector<std::vector<uint8_t>> files = {ToneWav(300, 2, 8000, 500), {'n', 'o', 'p', 'e'},
                                                   ToneWav(400, 2, 8000, 700)};
  OpSpec spec;
  spec.op = "decoders.audio";
  spec.name = "dec";
  spec.args["on_error"] = CoerceValue(Value(std::string("replace")), ArgType::kString);
  auto op = (*OperatorRegistry::Get().GetSchema("decoders.audio").FindFactory("cpu"))(spec);
  MemoryConfig memory;
  ThreadPool pool(2, false);
  TensorList in, audio, rates;
  std::vector<TensorShape> shapes;
  for (const auto& f : files) shapes.push_back(TensorShape{int64_t(f.size())});
  in.Resize(shapes, DType::kUInt8, memory, false);
  for (int i = 0; i < 3; ++i) std::memcpy(in.raw_mutable_sample(i), files[size_t(i)].data(), files[size_t(i)].size());
  Workspace::FailedSamples failed;
  Workspace ws;
  ws.batch_size_ = 3;
  ws.pool_ = &pool;
  ws.memory_ = &memory;
  ws.failed_ = &failed;
  ws.inputs_ = {&in};
  ws.outputs_ = {&audio, &rates};
  const auto descs = op->Setup(ws);
  ASSERT_EQ(descs.size(), 2u);
  audio.Resize(descs[0].shapes, descs[0].dtype, memory, descs[0].contiguous);
  rates.Resize(descs[1].shapes, descs[1].dtype, memory, descs[1].contiguous);
  op->Run(ws);
  ASSERT_EQ(audio.shape(1), (TensorShape{400, 2}));
  EXPECT_EQ(std::memcmp(audio.raw_sample(1), audio.raw_sample(2), audio.sample_bytes(2)), 0);
  EXPECT_EQ(*rates.sample<float>(1), 8000.f);
  ASSERT_EQ(failed.records.size(), 1u);
  EXPECT_EQ(failed.records[0].sample, 1);
  EXPECT_NE(failed.records[0].error.find("not an audio stream"), std::string::npos);
}

}  // namespace
}  // namespace sluice::testing
