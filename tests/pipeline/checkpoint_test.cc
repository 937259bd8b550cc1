// Checkpoints: a pipeline built from one continues with exactly the batches the saved pipeline
// would have returned (readers' positions, shuffling, epochs, random streams), and bad
// checkpoints are errors that say what is wrong.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "pipeline/checkpoint.h"
#include "pipeline/executor.h"
#include "pipeline/graph.h"

namespace sluice {
namespace {

std::vector<std::string> Files() {
  std::vector<std::string> f;
  for (const char* n : {"photo_500x375.jpg", "s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "gray.jpg",
                        "cmyk.jpg", "orient_1.jpg", "orient_3.jpg", "orient_6.jpg", "orient_8.jpg"})
    f.push_back(std::string(SLUICE_SOURCE_DIR) + "/tests/data/images/" + n);
  return f;
}

struct Config {
  int64_t seed = 5;
  bool async = true;
  int depth = 2;
  std::optional<std::string> checkpoint;
  std::string reader_name = "Reader";
};

// readers.file (shuffled, 11 files, batch 4: epochs of 3 batches) and random.uniform.
std::unique_ptr<Pipeline> Make(const Config& s) {
  PipelineOptions o;
  o.batch_size = 4;
  o.num_threads = 2;
  o.seed = s.seed;
  o.exec_async = s.async;
  o.cpu_queue_depth = s.depth;
  o.enable_checkpointing = true;
  o.checkpoint = s.checkpoint;
  auto p = std::make_unique<Pipeline>(o);
  auto r = p->AddOperator(OperatorDef("readers.file").Name(s.reader_name).Arg("files", Files()).Arg("random_shuffle", true)
                              .Arg("initial_fill", int64_t{5}));
  auto u = p->AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{0.0, 1.0}));
  p->SetOutputs({r[0], r[1], u[0]});
  p->Build();
  return p;
}

// One batch as comparable bytes: every output's samples, with their sources.
std::string Fingerprint(const std::vector<Batch>& out) {
  std::string f;
  for (const Batch& b : out) {
    for (int i = 0; i < b.num_samples(); ++i) {
      f.append(static_cast<const char*>(b.data(i)), b.nbytes(i));
      f += "|" + b.source(i).ToString() + ";";
    }
  }
  return f;
}

TEST(Checkpoint, RestoredPipelineContinuesWithTheSameBatches) {
  for (bool async : {true, false}) {
    for (int depth : {1, 3}) {
      for (int taken : {0, 1, 3, 5}) {
        Config s;
        s.async = async;
        s.depth = depth;
        auto p = Make(s);
        for (int i = 0; i < taken; ++i) p->Run();
        const std::string cp = p->Checkpoint();
        std::vector<std::string> expected;
        for (int i = 0; i < 7; ++i) expected.push_back(Fingerprint(p->Run()));

        Config r = s;
        r.seed = -1;  // the checkpoint brings its seed
        r.checkpoint = cp;
        auto q = Make(r);
        EXPECT_EQ(q->seed(), 5);
        for (int i = 0; i < 7; ++i)
          EXPECT_EQ(Fingerprint(q->Run()), expected[static_cast<size_t>(i)])
              << "async " << async << " depth " << depth << " taken " << taken << " batch " << i;
      }
    }
  }
}

TEST(Checkpoint, RewindGoesBackOverBatchesTakenButNotHandedOut) {
  auto p = Make({});
  p->Run();
  const std::string one = p->Checkpoint("after one");
  p->Run();
  EXPECT_EQ(p->Checkpoint("after one", /*rewind=*/1), one);
  EXPECT_THROW(p->Checkpoint("", 5), Error);
  Config r;
  r.checkpoint = one;
  auto q = Make(r);
  EXPECT_EQ(q->CheckpointExternalData(), "after one");
}

TEST(Checkpoint, SharedOutputsCountAsTaken) {
  auto p = Make({});
  for (int i = 0; i < 2; ++i) p->ScheduleRun();
  p->ShareOutputs();
  const std::string cp = p->Checkpoint();
  const std::string next = Fingerprint(p->ShareOutputs());
  Config r;
  r.checkpoint = cp;
  EXPECT_EQ(Fingerprint(Make(r)->Run()), next);
}

std::string ErrorOf(const Config& s) {
  try {
    Make(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Checkpoint, BadCheckpointsAreClearErrors) {
  auto p = Make({});
  p->Run();
  const std::string good = p->Checkpoint();

  Config garbage;
  garbage.checkpoint = "hello";
  EXPECT_NE(ErrorOf(garbage).find("not a Sluice checkpoint"), std::string::npos) << ErrorOf(garbage);
  EXPECT_NE(ErrorOf(garbage).find("checkpoint"), std::string::npos);

  Config truncated;
  truncated.checkpoint = good.substr(0, good.size() / 2);
  EXPECT_NE(ErrorOf(truncated).find("invalid checkpoint"), std::string::npos) << ErrorOf(truncated);

  Config other_reader;
  other_reader.reader_name = "Other";
  other_reader.checkpoint = good;
  EXPECT_NE(ErrorOf(other_reader).find("argument 'checkpoint': the checkpoint has no state for the operator 'Other'"),
            std::string::npos)
      << ErrorOf(other_reader);
}

TEST(Checkpoint, NeedsEnableCheckpointing) {
  PipelineOptions o;
  o.batch_size = 2;
  o.seed = 1;
  Pipeline p(o);
  p.SetOutputs({p.AddOperator(OperatorDef("testing.counter"))[0]});
  p.Build();
  p.Run();
  EXPECT_THROW(p.Checkpoint(), Error);
}

TEST(Checkpoint, TextRoundTripsAndEveryTruncationIsAnError) {
  PipelineCheckpoint cp;
  cp.iteration = 42;
  cp.seed = 18446744073709551615u;
  cp.operators["a reader\nwith newline]"] = {{"k", std::string("state\0with nul", 14)}, {"back_slash.key-2", "x=y\\n"}};
  cp.operators["b"] = {};
  cp.operators["Reader"] = {{"epoch", "3"}, {"pos", "7"}};
  cp.external_data = "{\"counter\": 3}\n\t\x7f\r";
  const std::string text = cp.Serialize();
  const PipelineCheckpoint back = PipelineCheckpoint::Parse(text);
  EXPECT_EQ(back.iteration, 42);
  EXPECT_EQ(back.seed, cp.seed);
  EXPECT_EQ(back.operators, cp.operators);
  EXPECT_EQ(back.external_data, cp.external_data);
  EXPECT_EQ(back.Serialize(), text);
  for (size_t n = 0; n < text.size(); ++n) EXPECT_THROW(PipelineCheckpoint::Parse(text.substr(0, n)), Error) << n;
  EXPECT_THROW(PipelineCheckpoint::Parse(text + "x"), Error);
}

// The fuzzer's seeds (fuzz/checkpoint_seeds/) stay valid checkpoints as the format changes.
TEST(StateFormat, FuzzSeedsParse) {
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SLUICE_SOURCE_DIR) + "/fuzz/checkpoint_seeds")) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NO_THROW(EXPECT_EQ(PipelineCheckpoint::Parse(text).Serialize(), text)) << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 3);
}

// The state format: named keys, one `key=value` line each, escaped values.
TEST(StateFormat, IsReadableKeyValueLines) {
  PipelineCheckpoint cp;
  cp.iteration = 5;
  cp.seed = 11;
  cp.operators["Reader"] = {{"epoch", "1"}, {"pos", "4"}};
  cp.external_data = "it";
  EXPECT_EQ(cp.Serialize(), "sluice-checkpoint 2\niteration=5\nseed=11\nexternal=it\n[Reader]\nepoch=1\npos=4\nend\n");
}

TEST(StateFormat, EveryByteRoundTripsThroughTheEscaping) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string escaped = EscapeCheckpointValue(all);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  for (char c : escaped) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << int(c);
  EXPECT_EQ(UnescapeCheckpointValue(escaped), all);
  EXPECT_EQ(EscapeCheckpointValue("a\\b\nc\x01"), "a\\\\b\\nc\\x01");
  EXPECT_EQ(UnescapeCheckpointValue("\\x7F\\x41"), "\x7f" "A");
}

std::string ParseError(const std::string& text) {
  try {
    PipelineCheckpoint::Parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StateFormat, BadTextIsAClearError) {
  const std::string head = "sluice-checkpoint 2\niteration=1\nseed=2\nexternal=\n";
  EXPECT_EQ(ParseError(head + "end\n"), "");  // a checkpoint without stateful operators
  struct Case {
    std::string text, message;
  } cases[] = {
      {"", "not a Sluice checkpoint"},
      {"sluice-checkpoint 1\niteration 3\n", "unsupported version line 'sluice-checkpoint 1'"},
      {"sluice-checkpoint 2\nseed=2\n", "line 2: expected key 'iteration', got 'seed'"},
      {"sluice-checkpoint 2\niteration=x\nseed=2\nexternal=\nend\n", "'iteration' must be a number, got 'x'"},
      {"sluice-checkpoint 2\niteration=-1\nseed=2\nexternal=\nend\n", "negative iteration"},
      {head + "[R]\npos=\\q\nend\n", "line 6: unknown escape '\\q'"},
      {head + "[R]\npos=\\x4\nend\n", "line 6: escape '\\x' needs two hex digits"},
      {head + "[R]\npos=a\tb\nend\n", "line 6: raw control byte 9"},
      {head + "[R]\npos=\\\nend\n", "unfinished escape"},
      {head + "[R]\nbad key=1\nend\n", "line 6: bad key 'bad key'"},
      {head + "[R]\npos\nend\n", "line 6: expected 'key=value', '[operator]' or 'end'"},
      {head + "[R\nend\n", "line 5: a section line must end with ']'"},
      {head + "[R]\npos=1\npos=2\nend\n", "line 7: key 'pos' appears twice in the state of 'R'"},
      {head + "[R]\n[R]\nend\n", "line 6: operator 'R' appears twice"},
      {head + "end\nend\n", "data after 'end'"},
      {head + "[R]\npos=1\n", "truncated: no 'end' line"},
      {head + "[R]\npos=1\nend", "truncated: line 7 has no end"},
  };
  for (const Case& c : cases) {
    const std::string e = ParseError(c.text);
    EXPECT_NE(e.find(c.message), std::string::npos) << "text: " << c.text << "\nerror: " << e;
    if (!c.text.empty() && c.text.rfind("sluice-checkpoint", 0) == 0)
      EXPECT_EQ(e.rfind("invalid checkpoint: ", 0), 0u) << e;
  }
}

TEST(StateFormat, UnknownAndMissingHeaderKeysAreErrors) {
  EXPECT_NE(ParseError("sluice-checkpoint 2\niteration=1\nseed=2\nexternal=\nextra=1\nend\n")
                .find("line 5: unknown key 'extra' before the first operator section"),
            std::string::npos);
  EXPECT_NE(ParseError("sluice-checkpoint 2\niteration=1\nseed=2\n").find("key 'external' is missing"),
            std::string::npos);
  PipelineCheckpoint cp;
  cp.operators["R"] = {{"not a key", "1"}};
  EXPECT_THROW(cp.Serialize(), Error);
}

// A checkpoint with its Reader section edited: replaces the line of `key` with `line` ("" drops
// it) or, when the key has no line, adds `line` to the section.
std::string EditReaderState(std::string text, const std::string& key, const std::string& line) {
  const size_t section = text.find("[Reader]\n");
  EXPECT_NE(section, std::string::npos) << text;
  const size_t at = text.find("\n" + key + "=", section);
  if (at == std::string::npos) return text.insert(section + 9, line + "\n");
  const size_t end = text.find('\n', at + 1);
  return text.replace(at + 1, end - at, line.empty() ? "" : line + "\n");
}

TEST(StateFormat, BadOperatorStatesNameTheOperatorTheKeyAndTheCheckpoint) {
  auto p = Make({});
  p->Run();
  const std::string good = p->Checkpoint();
  struct Case {
    std::string key, line, message;
  } cases[] = {
      {"bogus", "bogus=1", "unknown state key 'bogus'"},
      {"pos", "", "state key 'pos' is missing"},
      {"epoch", "", "state key 'epoch' is missing"},
      {"pos", "pos=abc", "state key 'pos': 'abc' is not a non-negative integer"},
      {"pos", "pos=100000", "state key 'pos': position 100000 is outside epoch"},
      {"n", "n=12", "state key 'n': the state was saved with a dataset size of 12, this reader has 11"},
      {"shuffle", "shuffle=0", "state key 'shuffle'"},
      {"seed", "seed=x", "state key 'seed': 'x' is neither an unsigned integer nor '*'"},
  };
  for (const Case& c : cases) {
    Config r;
    r.checkpoint = EditReaderState(good, c.key, c.line);
    const std::string e = ErrorOf(r);
    EXPECT_NE(e.find("[Reader] argument 'checkpoint': " + c.message), std::string::npos)
        << "edit: " << c.line << "\nerror: " << e;
  }
  Config ok;
  ok.checkpoint = good;
  EXPECT_EQ(ErrorOf(ok), "");
}

// Through the Operator virtuals only, as the executor sees a reader: a bad state restored into a
// running reader throws and leaves it where it was; a good one moves it.
TEST(StateFormat, ABadStateLeavesTheReaderWhereItWas) {
  auto make = [] {
    OpSpec s;
    s.op = "readers.file";
    s.name = "Reader";
    s.args = {{"files", Files()}, {"random_shuffle", true}, {"initial_fill", int64_t{5}}};
    s = ValidateSpec(std::move(s));
    ExecutorConfig cfg;
    cfg.options.batch_size = 4;
    cfg.options.exec_async = false;
    cfg.options.exec_pipelined = false;
    cfg.seed = 3;
    return std::make_unique<Executor>(cfg, Graph({s}, {s.outputs[0], s.outputs[1]}));
  };
  auto next = [](Executor& ex) {
    ex.Schedule();
    const std::string f = Fingerprint(ex.TakeNext());
    ex.Release();
    return f;
  };
  auto ref = make();
  std::vector<std::string> expected;
  for (int i = 0; i < 5; ++i) expected.push_back(next(*ref));

  auto ex = make();
  Operator& reader = ex->op(0);
  ASSERT_TRUE(reader.has_state());
  const StateMap at_start = reader.SaveState();
  EXPECT_EQ(next(*ex), expected[0]);
  EXPECT_EQ(next(*ex), expected[1]);
  const StateMap after_two = reader.SaveState();
  StateMap bad = after_two;
  bad["pos"] = "100000";
  EXPECT_THROW(reader.RestoreState(bad), Error);
  bad = after_two;
  bad.erase("epoch");
  EXPECT_THROW(reader.RestoreState(bad), Error);
  EXPECT_EQ(reader.SaveState(), after_two);
  EXPECT_EQ(next(*ex), expected[2]);
  reader.RestoreState(at_start);
  EXPECT_EQ(next(*ex), expected[0]);
  EXPECT_EQ(next(*ex), expected[1]);
}

}  // namespace
}  // namespace sluice
