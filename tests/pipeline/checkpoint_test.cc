// Checkpoints: a pipeline built from one continues with exactly the batches the saved pipeline
// would have returned (readers' positions, shuffling, epochs, random streams), and bad
// checkpoints are errors that say what is wrong.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include "pipeline/checkpoint.h"

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
  EXPECT_NE(ErrorOf(other_reader).find("'Other'"), std::string::npos) << ErrorOf(other_reader);
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
  cp.seed = 7;
  cp.readers["a reader\nwith newline"] = std::string("state\0with nul", 14);
  cp.readers["b"] = "";
  cp.external_data = "{\"counter\": 3}\n";
  const std::string text = cp.Serialize();
  const PipelineCheckpoint back = PipelineCheckpoint::Parse(text);
  EXPECT_EQ(back.iteration, 42);
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.readers, cp.readers);
  EXPECT_EQ(back.external_data, cp.external_data);
  for (size_t n = 0; n < text.size(); ++n) EXPECT_THROW(PipelineCheckpoint::Parse(text.substr(0, n)), Error) << n;
  EXPECT_THROW(PipelineCheckpoint::Parse(text + "x"), Error);
}

}  // namespace
}  // namespace sluice
