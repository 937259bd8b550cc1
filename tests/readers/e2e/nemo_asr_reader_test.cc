// readers.nemo_asr: the manifest parser (fields, blank lines, filters, every malformed line with its
// manifest and line number), path resolution, and the reader through a pipeline: outputs in DALI's
// order, offset/duration clips, resampling, sharding, shuffling, checkpoints, determinism across
// thread counts, and errors and on_error="replace" for files that are missing or not audio.
#include <gtest/gtest.h>

#include <set>

#include <sluice/pipeline.h>

#include "kernels/audio_test_util.h"
#include "readers/nemo/nemo_manifest.h"
#include "readers/readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;
using testing::TempDir;

// Expects `fn` to throw sluice::Error whose message contains every fragment.
void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& fragments) {
  const std::string msg = ErrorOf(fn);
  EXPECT_FALSE(msg.empty()) << "expected an error containing '" << fragments[0] << "'";
  for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
}

std::vector<NemoManifestEntry> Parse(const std::string& text, NemoManifestFilter f = {}) {
  return ParseNemoManifest(text, "m.json", f);
}

TEST(NemoManifest, FieldsBlankLinesAndLineNumbers) {
  const auto e = Parse("\xEF\xBB\xBF{\"audio_filepath\": \"a.wav\", \"duration\": 3.45, \"text\": \"hello\"}\n"
                       "\n   \r\n"
                       "{\"audio_filepath\": \"/x/b.flac\", \"offset\": 1, \"duration\": 2, \"extra\": [1, {\"k\": null}]}\r\n"
                       "{\"text\": \"dzie\xC5\x84 dobry\", \"audio_filepath\": \"c.ogg\"}");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].audio_filepath, "a.wav");
  EXPECT_EQ(e[0].duration, 3.45);
  EXPECT_EQ(e[0].offset, 0);
  EXPECT_EQ(e[0].text, "hello");
  EXPECT_EQ(e[0].line, 1);
  EXPECT_EQ(e[1].audio_filepath, "/x/b.flac");
  EXPECT_EQ(e[1].offset, 1);      // an integer is a number too
  EXPECT_EQ(e[1].duration, 2);
  EXPECT_EQ(e[1].text, "");
  EXPECT_EQ(e[1].line, 4);
  EXPECT_EQ(e[2].text, "dzie\xC5\x84 dobry");  // UTF-8 kept as bytes
  EXPECT_EQ(e[2].duration, -1);                 // not given
  EXPECT_EQ(e[2].line, 5);
  EXPECT_TRUE(Parse("").empty());
  NemoManifestFilter no_text;
  no_text.read_text = false;
  EXPECT_EQ(Parse("{\"audio_filepath\": \"a\", \"text\": \"t\"}", no_text)[0].text, "");
}

TEST(NemoManifest, DurationFilterIsDalis) {
  const std::string m = "{\"audio_filepath\": \"a\", \"duration\": 1.0}\n{\"audio_filepath\": \"b\", \"duration\": 5}\n"
                        "{\"audio_filepath\": \"c\"}\n{\"audio_filepath\": \"d\", \"duration\": 10.5}\n";
  NemoManifestFilter f;
  f.min_duration = 2;
  f.max_duration = 10;
  const auto e = Parse(m, f);
  ASSERT_EQ(e.size(), 1u);  // a: too short, c: no duration (-1 < 2), d: too long
  EXPECT_EQ(e[0].audio_filepath, "b");
  EXPECT_EQ(e[0].line, 2);
  f.min_duration = 0;
  EXPECT_EQ(Parse(m, f).size(), 3u);  // only d dropped: without min_duration, no duration is kept
}

TEST(NemoManifest, MalformedLinesNameTheManifestAndTheLine) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"audio_filepath\": \"a.wav\"", "not valid JSON"},
      {"hello", "not valid JSON"},
      {"[\"a.wav\"]", "not a JSON object"},
      {"\"a.wav\"", "not a JSON object"},
      {"{\"duration\": 1}", "no \"audio_filepath\""},
      {"{\"audio_filepath\": 7}", "\"audio_filepath\" is not a string"},
      {"{\"audio_filepath\": \"\"}", "\"audio_filepath\" is empty"},
      {"{\"audio_filepath\": \"a\", \"duration\": \"3\"}", "\"duration\" is not a number"},
      {"{\"audio_filepath\": \"a\", \"offset\": -1}", "\"offset\" is negative"},
      {"{\"audio_filepath\": \"a\", \"duration\": -1}", "\"duration\" is negative (-1 s)"},
      {"{\"audio_filepath\": \"a\", \"duration\": -0.25, \"offset\": 1}", "\"duration\" is negative (-0.25 s)"},
      {"{\"audio_filepath\": \"a\", \"duration\": -1e300}", "\"duration\" is negative"},
      {"{\"audio_filepath\": \"a\", \"text\": 5}", "\"text\" is not a string"},
      {"{\"audio_filepath\": \"a\", \"text\": \"\xFF\xFE\"}", "not valid JSON"},
      {"{\"audio_filepath\": \"a\"} {\"audio_filepath\": \"b\"}", "not valid JSON"},
  };
  for (const auto& [bad_line, why] : bad) {
    const std::string line = bad_line;  // (clang 14 does not capture structured bindings)
    const std::string msg = ErrorOf([&] { Parse("{\"audio_filepath\": \"ok.wav\"}\n\n" + line + "\n"); });
    EXPECT_NE(msg.find("manifest 'm.json' line 3: " + why), std::string::npos) << line << " -> " << msg;
  }
  EXPECT_NE(ErrorOf([] { ReadNemoManifest("/nonexistent/m.json", {}); }).find("cannot read manifest '/nonexistent/m.json'"),
            std::string::npos);
}

TEST(NemoManifest, RelativePathsAreLookedUpNextToTheManifestThenInTheWorkingDirectory) {
  TempDir d;
  testing::WriteFile(d / "data/a.wav", "x");
  testing::WriteFile(d / "abs.wav", "x");
  NemoManifestEntry e;
  e.line = 9;
  e.audio_filepath = "data/a.wav";
  EXPECT_EQ(ResolveNemoAudioPath(e, d / "m.json"), d / "data/a.wav");
  e.audio_filepath = d / "abs.wav";
  EXPECT_EQ(ResolveNemoAudioPath(e, "/elsewhere/m.json"), d / "abs.wav");
  // Not next to the manifest: as DALI, from the working directory.
  e.audio_filepath = "tests/data/audio/tone_stereo.ogg";
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(SLUICE_SOURCE_DIR), 0);
  EXPECT_EQ(ResolveNemoAudioPath(e, d / "m.json"), "tests/data/audio/tone_stereo.ogg");
  // Both there: the manifest's folder wins.
  testing::WriteFile(d / "tests/data/audio/tone_stereo.ogg", "x");
  EXPECT_EQ(ResolveNemoAudioPath(e, d / "m.json"), d / "tests/data/audio/tone_stereo.ogg");
  ASSERT_EQ(::chdir(cwd), 0);
  e.audio_filepath = "data/missing.wav";
  const std::string msg = ErrorOf([&] { ResolveNemoAudioPath(e, d / "m.json"); });
  EXPECT_NE(msg.find("manifest '" + (d / "m.json") + "' line 9: audio file 'data/missing.wav' not found"),
            std::string::npos) << msg;
  e.audio_filepath = d / "data";  // a folder
  EXPECT_NE(ErrorOf([&] { ResolveNemoAudioPath(e, d / "m.json"); }).find("not found"), std::string::npos);
}

// A dataset of WAV tones (utterance k: 200 + 50k frames of 2 channels at 16 kHz) and its manifest.
struct Dataset {
  TempDir dir;
  std::string manifest;
  int size = 0;
  explicit Dataset(int n) : size(n) {
    std::string m;
    for (int k = 0; k < n; ++k) {
      const std::string name = "u" + std::to_string(k) + ".wav";
      testing::WriteBinary(dir / name, testing::ToneWav(200 + 50 * k, 2, 16000, 300 + 10 * k));
      m += "{\"audio_filepath\": \"" + name + "\", \"text\": \"utterance " + std::to_string(k) + "\"}\n";
    }
    manifest = dir / "manifest.json";
    testing::WriteFile(manifest, m);
  }
};

std::unique_ptr<Pipeline> Reader(const std::string& manifest, std::map<std::string, Value> args, int batch, int threads = 2,
                                 std::optional<std::string> checkpoint = std::nullopt) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = 11;
  o.enable_checkpointing = true;
  o.checkpoint = checkpoint;
  auto p = std::make_unique<Pipeline>(o);
  OperatorDef r("readers.nemo_asr");
  r.Name("Reader").Arg("manifest_filepaths", std::vector<std::string>{manifest});
  for (auto& [k, v] : args) r.Arg(k, v);
  p->SetOutputs(p->AddOperator(r));
  p->Build();
  return p;
}

template <typename T>
std::vector<T> Data(const Batch& b, int i) {
  std::vector<T> v(b.nbytes(i) / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(i), b.nbytes(i));
  return v;
}

int64_t Index(const Batch& b, int i) { return Data<int64_t>(b, i)[0]; }

TEST(NemoAsrReader, OutputsInDalisOrder) {
  Dataset ds(3);
  auto p = Reader(ds.manifest, {{"read_idxs", true}, {"dtype", std::string("int16")}}, 3);
  const auto out = p->Run();
  ASSERT_EQ(out.size(), 4u);  // audio, sample rate, text, index
  for (int i = 0; i < 3; ++i) {
    // Downmixed by default: 1-D, the mean of the two channels.
    const auto pcm = testing::TonePcm16(200 + 50 * i, 2, 16000, 300 + 10 * i);
    ASSERT_EQ(out[0].shape(i), TensorShape{200 + 50 * i});
    const auto a = Data<int16_t>(out[0], i);
    // DALI's integer downmix: the mean of the decoded floats (x / 32768), times 32767, rounded.
    for (size_t t = 0; t < a.size(); ++t) {
      const float mean = (pcm[2 * t] / 32768.f) * 0.5f + (pcm[2 * t + 1] / 32768.f) * 0.5f;
      ASSERT_EQ(a[t], int16_t(std::nearbyint(double(mean) * 32767)));
    }
    EXPECT_EQ(Data<float>(out[1], i)[0], 16000.f);
    EXPECT_EQ(out[1].shape(i), TensorShape{});
    const auto text = Data<uint8_t>(out[2], i);
    EXPECT_EQ(std::string(text.begin(), text.end()), "utterance " + std::to_string(i));
    EXPECT_EQ(out[3].shape(i), TensorShape{1});
    EXPECT_EQ(Index(out[3], i), i);
    EXPECT_EQ(out[0].source(i).path, ds.dir / ("u" + std::to_string(i) + ".wav"));
  }
  EXPECT_EQ(out[0].layout(), "T");
  EXPECT_EQ(out[0].dtype(), DType::kInt16);
  // The optional outputs come and go with their flags.
  EXPECT_EQ(Reader(ds.manifest, {{"read_sample_rate", false}, {"read_text", false}}, 3)->Run().size(), 1u);
  const auto two = Reader(ds.manifest, {{"read_sample_rate", false}, {"downmix", false}}, 3)->Run();
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].shape(1), (TensorShape{250, 2}));
  EXPECT_EQ(two[1].dtype(), DType::kUInt8);  // the text
}

// Two manifests: the index counts the kept entries across both (DALI restarts at 0 per manifest,
// which NeMo's read_idxs lookup does not expect); each path is resolved next to its own manifest.
TEST(NemoAsrReader, IndicesRunAcrossManifests) {
  Dataset ds(4);
  testing::MakeDirs(ds.dir / "second");
  testing::WriteBinary(ds.dir / "second/v.wav", testing::ToneWav(100, 1, 8000, 500));
  testing::WriteFile(ds.dir / "second/m2.json", "{\"audio_filepath\": \"v.wav\", \"duration\": 0.0125}\n"
                                                "{\"audio_filepath\": \"v.wav\", \"duration\": 9}\n");
  PipelineOptions o;
  o.batch_size = 6;
  o.num_threads = 1;
  Pipeline p(o);
  OperatorDef r("readers.nemo_asr");
  r.Name("Reader").Arg("manifest_filepaths", std::vector<std::string>{ds.manifest, ds.dir / "second/m2.json"})
      .Arg("read_idxs", true).Arg("max_duration", 1.0);
  p.SetOutputs(p.AddOperator(r));
  p.Build();
  const auto out = p.Run();
  // Manifest 1's entries have no duration: kept by max_duration alone; m2's second is dropped.
  std::vector<int64_t> idx;
  for (int i = 0; i < 5; ++i) idx.push_back(Index(out[3], i));
  EXPECT_EQ(idx, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(out[0].source(4).path, ds.dir / "second/v.wav");
  EXPECT_EQ(p.EpochSize("Reader"), 5);
}

TEST(NemoAsrReader, OffsetDurationAndResampling) {
  Dataset ds(1);
  // 0.005 s at 16 kHz = 80 frames from 0.002 s = frame 32; a duration past the end is cut there.
  testing::WriteFile(ds.manifest, "{\"audio_filepath\": \"u0.wav\", \"offset\": 0.002, \"duration\": 0.005}\n"
                                  "{\"audio_filepath\": \"u0.wav\", \"offset\": 0.01, \"duration\": 1}\n");
  auto out = Reader(ds.manifest, {{"dtype", std::string("int16")}, {"downmix", false}}, 2)->Run();
  const auto whole = testing::TonePcm16(200, 2, 16000, 300);
  EXPECT_EQ(out[0].shape(0), (TensorShape{80, 2}));
  EXPECT_EQ(Data<int16_t>(out[0], 0), std::vector<int16_t>(whole.begin() + 64, whole.begin() + 64 + 160));
  EXPECT_EQ(out[0].shape(1), (TensorShape{40, 2}));  // frames 160..199
  // Resampled to 8 kHz: the rate output is the audio's.
  out = Reader(ds.manifest, {{"sample_rate", 8000.0}}, 2)->Run();
  EXPECT_EQ(out[0].shape(0), TensorShape{40});
  EXPECT_EQ(out[0].shape(1), TensorShape{20});
  EXPECT_EQ(Data<float>(out[1], 0)[0], 8000.f);
  // An offset past the end holds no samples.
  testing::WriteFile(ds.manifest, "{\"audio_filepath\": \"u0.wav\", \"offset\": 1.0}\n");
  auto p = Reader(ds.manifest, {}, 1);
  ExpectError([&] { p->Run(); }, {"Reader", "u0.wav", "holds no samples", "manifest '" + ds.manifest + "', line 1"});
}

std::multiset<int64_t> Indices(Pipeline& p, int batches) {
  std::multiset<int64_t> s;
  for (int b = 0; b < batches; ++b) {
    const auto out = p.Run();
    for (int i = 0; i < out[3].num_samples(); ++i) s.insert(Index(out[3], i));
  }
  return s;
}

TEST(NemoAsrReader, ShardsSplitTheDatasetAndShufflingIsDeterministic) {
  Dataset ds(10);
  auto s0 = Reader(ds.manifest, {{"read_idxs", true}, {"num_shards", int64_t{2}}, {"shard_id", int64_t{0}}}, 5);
  auto s1 = Reader(ds.manifest, {{"read_idxs", true}, {"num_shards", int64_t{2}}, {"shard_id", int64_t{1}}}, 5);
  EXPECT_EQ(s0->EpochSize("Reader"), 10);
  const auto a = Indices(*s0, 1), b = Indices(*s1, 1);
  EXPECT_EQ(a, (std::multiset<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(b, (std::multiset<int64_t>{5, 6, 7, 8, 9}));
  // random_shuffle with a seed: the same order twice, not the manifest's.
  auto order = [&](int threads) {
    auto p = Reader(ds.manifest, {{"read_idxs", true}, {"random_shuffle", true}, {"seed", int64_t{5}}}, 5, threads);
    std::vector<int64_t> v;
    for (int k = 0; k < 4; ++k) {
      const auto out = p->Run();
      for (int i = 0; i < 5; ++i) v.push_back(Index(out[3], i));
    }
    return v;
  };
  const auto first = order(1);
  EXPECT_EQ(first, order(3));
  std::vector<int64_t> sorted(first.begin(), first.begin() + 10);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NE(std::vector<int64_t>(first.begin(), first.begin() + 10), sorted);
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));  // each once per epoch
}

std::string Fingerprint(const std::vector<Batch>& out) {
  std::string f;
  for (const Batch& b : out)
    for (int i = 0; i < b.num_samples(); ++i) {
      f.append(static_cast<const char*>(b.data(i)), b.nbytes(i));
      f += b.shape(i).ToString() + "|" + b.source(i).ToString() + ";";
    }
  return f;
}

TEST(NemoAsrReader, SameBatchesForAnyThreadCountAndCheckpointsResume) {
  Dataset ds(9);
  const std::map<std::string, Value> args = {{"read_idxs", true}, {"random_shuffle", true}, {"initial_fill", int64_t{4}},
                                             {"sample_rate", 22050.0}, {"downmix", false}};
  auto run = [&](int threads) {
    auto p = Reader(ds.manifest, args, 4, threads);
    std::string f;
    for (int k = 0; k < 5; ++k) f += Fingerprint(p->Run());
    return f;
  };
  EXPECT_EQ(run(1), run(3));
  auto p = Reader(ds.manifest, args, 4);
  p->Run();
  p->Run();
  const std::string cp = p->Checkpoint();
  std::vector<std::string> expected;
  for (int k = 0; k < 4; ++k) expected.push_back(Fingerprint(p->Run()));
  auto q = Reader(ds.manifest, args, 4, 2, cp);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(Fingerprint(q->Run()), expected[size_t(k)]) << "batch " << k << " after the checkpoint";
}

TEST(NemoAsrReader, MissingFilesAndBadAudioNameTheManifestLine) {
  Dataset ds(3);
  // Missing when listed: an error at construction, naming the reader, the manifest and the line.
  testing::WriteFile(ds.manifest, "{\"audio_filepath\": \"u0.wav\"}\n{\"audio_filepath\": \"gone.wav\"}\n");
  ExpectError([&] { Reader(ds.manifest, {}, 2); },
                       {"Reader", "manifest '" + ds.manifest + "' line 2", "'gone.wav' not found"});
  testing::WriteFile(ds.manifest, "{\"audio_filepath\": \"u0.wav\"}\nnot json\n");
  ExpectError([&] { Reader(ds.manifest, {}, 2); }, {"Reader", "line 2: not valid JSON"});
  // Not audio: an error when the batch decodes, naming the file and the manifest line ...
  testing::WriteFile(ds.dir / "bad.wav", "this is not audio");
  testing::WriteFile(ds.manifest, "{\"audio_filepath\": \"u0.wav\"}\n{\"audio_filepath\": \"bad.wav\"}\n"
                                  "{\"audio_filepath\": \"u2.wav\"}\n");
  auto p = Reader(ds.manifest, {}, 3);
  ExpectError([&] { p->Run(); },
                       {"Reader", ds.dir / "bad.wav", "not an audio stream", "manifest '" + ds.manifest + "', line 2"});
  // ... or, with on_error="replace", the row replaced by the next good one and logged.
  auto q = Reader(ds.manifest, {{"on_error", std::string("replace")}, {"read_idxs", true}}, 3);
  const auto out = q->Run();
  EXPECT_EQ(Data<float>(out[0], 1), Data<float>(out[0], 2));
  const auto log = q->GetErrorLog();
  ASSERT_GE(log.size(), 1u);
  EXPECT_EQ(log[0].sample, 1);
  EXPECT_EQ(log[0].replaced_by, 2);
  EXPECT_EQ(log[0].source, ds.dir / "bad.wav");
  EXPECT_NE(log[0].error.find("line 2"), std::string::npos) << log[0].error;
  // A file deleted after the listing: the read fails, naming the manifest line.
  testing::WriteFile(ds.manifest, "{\"audio_filepath\": \"u0.wav\"}\n{\"audio_filepath\": \"u1.wav\"}\n"
                                  "{\"audio_filepath\": \"u2.wav\"}\n");
  auto r = Reader(ds.manifest, {}, 1);
  std::remove((ds.dir / "u2.wav").c_str());
  std::string msg;
  for (int k = 0; k < 4 && msg.empty(); ++k) msg = ErrorOf([&] { r->Run(); });
  EXPECT_NE(msg.find("u2.wav"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

TEST(NemoAsrReader, BadArgumentsAreErrors) {
  Dataset ds(2);
  EXPECT_NE(ErrorOf([&] { Reader(ds.manifest, {{"manifest_filepaths", std::vector<std::string>{}}}, 1); }).find("manifest_filepaths"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { Reader(ds.manifest, {{"shuffle_after_epoch", true}, {"random_shuffle", true}}, 1); })
                .find("shuffle_after_epoch"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { Reader(ds.manifest, {{"min_duration", 100.0}}, 1); }).find("lists no utterance"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice
