// slice, pad, paste, jitter and random_resized_crop through the pipeline: exact results against
// plain index arithmetic (the NumPy slicing/padding semantics), DALI's argument conventions
// (axis_names "WH", rel_* arguments, positional anchor/shape inputs, pad's shape/align), per-sample
// argument inputs, random_resized_crop's windows (recovered from a coordinate image) and its output
// against the resize kernel on the same window, determinism across num_threads, and the errors
// at the call site.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

#include "kernels/resize/resize.h"
#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

struct Feed {
  std::string name;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<TensorShape> shapes;
  DType dtype = DType::kUInt8;
  std::string layout;
};

template <typename T>
Feed MakeFeed(std::string name, const std::vector<std::vector<T>>& data, std::vector<TensorShape> shapes, std::string layout = "") {
  Feed f{std::move(name), {}, std::move(shapes), TypeToDType<T>::value, std::move(layout)};
  for (const auto& d : data) {
    f.bytes.emplace_back(d.size() * sizeof(T));
    if (!d.empty()) std::memcpy(f.bytes.back().data(), d.data(), f.bytes.back().size());
  }
  return f;
}

// Feeds become external_source nodes (edges by name); `build` returns the outputs.
template <typename Build>
std::vector<Batch> RunFeeds(const std::vector<Feed>& feeds, Build&& build, int threads = 2, int64_t seed = 7, int batches = 1) {
  Pipeline p(Options(static_cast<int>(feeds[0].shapes.size()), threads, seed));
  std::map<std::string, std::string> e;
  for (const auto& f : feeds) e[f.name] = p.AddOperator(OperatorDef("external_source").Name(f.name))[0];
  p.SetOutputs(build(p, e));
  p.Build();
  auto feed = [&] {
    for (const auto& f : feeds) {
      std::vector<Pipeline::ExternalSample> batch;
      for (size_t i = 0; i < f.bytes.size(); ++i) batch.push_back({f.bytes[i].data(), f.shapes[i], f.dtype});
      p.FeedInput(f.name, batch, f.layout);
    }
  };
  feed();
  std::vector<Batch> all;
  for (int k = 0; k < batches; ++k) {
    feed();  // one ahead, as the executor prefetches
    for (auto& b : p.Run()) all.push_back(std::move(b));
  }
  return all;
}

// One op on input "x".
std::vector<Batch> RunOp(const Feed& x, OperatorDef op, int threads = 2) {
  return RunFeeds({x}, [&](Pipeline& p, auto& e) { return p.AddOperator(op.Input(e.at("x"))); }, threads);
}

std::vector<uint8_t> Ramp(size_t n, int seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7 + static_cast<size_t>(seed) * 31) & 0xff);
  return v;
}

// The HWC sub-image [y0, y0 + h) x [x0, x0 + w) with `fill` outside (NumPy slicing with padding).
std::vector<uint8_t> Crop(const std::vector<uint8_t>& img, int64_t H, int64_t W, int64_t C, int64_t y0, int64_t x0, int64_t h,
                          int64_t w, const std::vector<uint8_t>& fill = {0}) {
  std::vector<uint8_t> out;
  for (int64_t y = y0; y < y0 + h; ++y)
    for (int64_t x = x0; x < x0 + w; ++x)
      for (int64_t c = 0; c < C; ++c)
        out.push_back(y >= 0 && y < H && x >= 0 && x < W ? img[static_cast<size_t>((y * W + x) * C + c)]
                                                          : fill[static_cast<size_t>(c) % fill.size()]);
  return out;
}

// ---- slice ----

TEST(SliceOp, NamedArgumentsFollowDalisAxisOrder) {
  const auto img = Ramp(10 * 12 * 3, 1);
  const Feed x = MakeFeed<uint8_t>("x", {img}, {TensorShape{10, 12, 3}}, "HWC");
  // Default axis_names "WH": start/shape are (x, y).
  auto out = RunOp(x, OperatorDef("slice").Arg("start", std::vector<double>{2, 3}).Arg("shape", std::vector<double>{5, 4}));
  ASSERT_EQ(out[0].shape(0), (TensorShape{4, 5, 3}));
  EXPECT_EQ(out[0].layout(), "HWC");
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(img, 10, 12, 3, 3, 2, 4, 5));
  // rel_start / rel_end, rounded with llround on their own: x [0.25*12, 0.75*12) = [3, 9), y [2.5 -> 3, 7.5 -> 8).
  out = RunOp(x, OperatorDef("slice").Arg("rel_start", std::vector<double>{0.25, 0.25}).Arg("rel_end", std::vector<double>{0.75, 0.75}));
  ASSERT_EQ(out[0].shape(0), (TensorShape{5, 6, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(img, 10, 12, 3, 3, 3, 5, 6));
  // axes=[0] (rows only), end absolute; axis_names "C" with rel_shape.
  out = RunOp(x, OperatorDef("slice").Arg("axes", std::vector<int64_t>{0}).Arg("start", std::vector<double>{1}).Arg("end", std::vector<double>{4}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(img, 10, 12, 3, 1, 0, 3, 12));
  out = RunOp(x, OperatorDef("slice").Arg("axis_names", std::string("C")).Arg("start", std::vector<double>{1}).Arg("shape", std::vector<double>{2}));
  ASSERT_EQ(out[0].shape(0), (TensorShape{10, 12, 2}));
  std::vector<uint8_t> ref;
  for (size_t i = 0; i < img.size(); i += 3) ref.insert(ref.end(), {img[i + 1], img[i + 2]});
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), ref);
  // A 1-D tensor without a layout: axes (negative counts from the back), float output.
  const Feed v = MakeFeed<int16_t>("x", {{-3, 1, 400, 7, 9}}, {TensorShape{5}});
  out = RunOp(v, OperatorDef("slice").Arg("axes", std::vector<int64_t>{-1}).Arg("start", std::vector<double>{1}).Arg("end", std::vector<double>{4}).Arg("dtype", std::string("uint8")));
  EXPECT_EQ(out[0].dtype(), DType::kUInt8);
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), (std::vector<uint8_t>{1, 255, 7}));
}

TEST(SliceOp, AWindowOfWholeOuterRowsIsAViewOfTheInput) {
  const auto a = Ramp(6 * 4 * 3, 1), b = Ramp(5 * 4 * 3, 2);
  const Feed x = MakeFeed<uint8_t>("x", {a, b}, {TensorShape{6, 4, 3}, TensorShape{5, 4, 3}}, "HWC");
  auto rows = [](double start, double end) {
    return OperatorDef("slice").Arg("axis_names", std::string("H")).Arg("start", std::vector<double>{start})
        .Arg("end", std::vector<double>{end});
  };
  // The external source's own output next to the slice: rows 2..4 are the input's bytes from row 2.
  auto out = RunFeeds({x}, [&](Pipeline& p, auto& e) {
    return std::vector<std::string>{e["x"], p.AddOperator(rows(2, 4).Input(e["x"]))[0]};
  });
  ASSERT_EQ(out[1].shape(1), (TensorShape{2, 4, 3}));
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(out[1].data(i), static_cast<const uint8_t*>(out[0].data(i)) + 2 * 4 * 3) << i;
  EXPECT_EQ(SampleData<uint8_t>(out[1], 1), Crop(b, 5, 4, 3, 2, 0, 2, 4));
  // Cutting another dimension, or past the input (padding), is computed into memory of its own.
  out = RunFeeds({x}, [&](Pipeline& p, auto& e) {
    return std::vector<std::string>{e["x"], p.AddOperator(rows(-1, 3).Input(e["x"]).Arg("out_of_bounds_policy", std::string("pad")))[0]};
  });
  EXPECT_NE(out[1].data(0), out[0].data(0));
  EXPECT_EQ(SampleData<uint8_t>(out[1], 0), Crop(a, 6, 4, 3, -1, 0, 4, 4));
}

TEST(SliceOp, OutOfBoundsPolicies) {
  const auto img = Ramp(6 * 8 * 3, 2);
  const Feed x = MakeFeed<uint8_t>("x", {img}, {TensorShape{6, 8, 3}}, "HWC");
  auto slice = [](std::string policy) {
    return OperatorDef("slice").Arg("start", std::vector<double>{-2, 4}).Arg("shape", std::vector<double>{5, 4})
        .Arg("out_of_bounds_policy", policy).Arg("fill_values", std::vector<double>{10, 20, 30});
  };
  auto out = RunOp(x, slice("pad"));
  ASSERT_EQ(out[0].shape(0), (TensorShape{4, 5, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(img, 6, 8, 3, 4, -2, 4, 5, {10, 20, 30}));
  out = RunOp(x, slice("trim_to_shape"));
  ASSERT_EQ(out[0].shape(0), (TensorShape{2, 3, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(img, 6, 8, 3, 4, 0, 2, 3));
  ExpectError([&] { RunOp(x, slice("error")); }, {"slice", "start", "outside", "out_of_bounds_policy"});
}

TEST(SliceOp, PerSampleArgumentsAndPositionalInputs) {
  const auto a = Ramp(6 * 8 * 1, 3), b = Ramp(7 * 5 * 1, 4);
  const Feed x = MakeFeed<uint8_t>("x", {a, b}, {TensorShape{6, 8, 1}, TensorShape{7, 5, 1}}, "HWC");
  const Feed st = MakeFeed<float>("st", {{1, 2}, {0, 3}}, {TensorShape{2}, TensorShape{2}});
  const Feed sh = MakeFeed<float>("sh", {{3, 2}, {4, 4}}, {TensorShape{2}, TensorShape{2}});
  auto out = RunFeeds({x, st, sh}, [](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("slice").Input(e.at("x")).ArgInput("start", e.at("st")).ArgInput("shape", e.at("sh")));
  });
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(a, 6, 8, 1, 2, 1, 2, 3));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 1), Crop(b, 7, 5, 1, 3, 0, 4, 4));
  // Positional float inputs are normalized by default: anchor (0.25, 0.5) of (W, H), shape (0.5, 0.5).
  const Feed an = MakeFeed<float>("an", {{0.25f, 0.5f}, {0.2f, 0.0f}}, {TensorShape{2}, TensorShape{2}});
  const Feed sz = MakeFeed<float>("sz", {{0.5f, 0.5f}, {0.6f, 1.0f}}, {TensorShape{2}, TensorShape{2}});
  out = RunFeeds({x, an, sz}, [](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("slice").Input(e.at("x")).Input(e.at("an")).Input(e.at("sz")));
  });
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(a, 6, 8, 1, 3, 2, 3, 4));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 1), Crop(b, 7, 5, 1, 0, 1, 7, 3));
  // Integer inputs are absolute whatever normalized_* say.
  const Feed ian = MakeFeed<int32_t>("an", {{1, 1}, {2, 2}}, {TensorShape{2}, TensorShape{2}});
  const Feed isz = MakeFeed<int32_t>("sz", {{2, 3}, {3, 1}}, {TensorShape{2}, TensorShape{2}});
  out = RunFeeds({x, ian, isz}, [](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("slice").Input(e.at("x")).Input(e.at("an")).Input(e.at("sz")));
  });
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), Crop(a, 6, 8, 1, 1, 1, 3, 2));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 1), Crop(b, 7, 5, 1, 2, 2, 1, 3));
  // A per-sample start of the wrong length names the argument and the sample.
  const Feed bad = MakeFeed<float>("st", {{1, 2}, {0, 3, 1}}, {TensorShape{2}, TensorShape{3}});
  ExpectError([&] {
    RunFeeds({x, bad, sh}, [](Pipeline& p, auto& e) {
      return p.AddOperator(OperatorDef("slice").Input(e.at("x")).ArgInput("start", e.at("st")).ArgInput("shape", e.at("sh")));
    });
  }, {"slice", "start", "expected 2 values"});
}

// ---- pad ----

std::vector<int32_t> PadRow(std::vector<int32_t> v, size_t n, int32_t fill) {
  v.resize(std::max(n, v.size()), fill);
  return v;
}

TEST(PadOp, DalisDocumentedExamples) {
  const Feed x = MakeFeed<int32_t>("x", {{3, 4, 2, 5, 4}, {2, 2}, {3, 199, 5}}, {TensorShape{5}, TensorShape{2}, TensorShape{3}});
  auto pad = [&](OperatorDef op) { return RunOp(x, op.Arg("fill_value", -1.0).Arg("axes", std::vector<int64_t>{0}))[0]; };
  auto out = pad(OperatorDef("pad"));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out.shape(i), (TensorShape{5}));
  EXPECT_EQ(SampleData<int32_t>(out, 1), (std::vector<int32_t>{2, 2, -1, -1, -1}));
  out = pad(OperatorDef("pad").Arg("shape", std::vector<int64_t>{7}));
  EXPECT_EQ(SampleData<int32_t>(out, 0), PadRow({3, 4, 2, 5, 4}, 7, -1));
  out = pad(OperatorDef("pad").Arg("align", std::vector<int64_t>{4}));
  EXPECT_EQ(SampleData<int32_t>(out, 2), PadRow({3, 199, 5}, 8, -1));
  out = pad(OperatorDef("pad").Arg("shape", std::vector<int64_t>{1}).Arg("align", std::vector<int64_t>{2}));
  EXPECT_EQ(SampleData<int32_t>(out, 0), PadRow({3, 4, 2, 5, 4}, 6, -1));
  EXPECT_EQ(SampleData<int32_t>(out, 1), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(SampleData<int32_t>(out, 2), PadRow({3, 199, 5}, 4, -1));
  // 2-D: axes (0, 1), align (1, 2), shape (4, -1).
  const Feed m = MakeFeed<float>("x", {{1, 2, 3, 4, 5, 6}, {1, 2, 4, 5, 6, 7}}, {TensorShape{2, 3}, TensorShape{3, 2}});
  out = RunOp(m, OperatorDef("pad").Arg("axes", std::vector<int64_t>{0, 1}).Arg("align", std::vector<int64_t>{1, 2})
                     .Arg("shape", std::vector<int64_t>{4, -1}))[0];
  ASSERT_EQ(out.shape(0), (TensorShape{4, 4}));
  ASSERT_EQ(out.shape(1), (TensorShape{4, 4}));
  EXPECT_EQ(SampleData<float>(out, 0), (std::vector<float>{1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(SampleData<float>(out, 1), (std::vector<float>{1, 2, 0, 0, 4, 5, 0, 0, 6, 7, 0, 0, 0, 0, 0, 0}));
}

TEST(PadOp, AxisNamesOnImagesAndPerSampleShape) {
  const auto a = Ramp(3 * 4 * 3, 5), b = Ramp(5 * 2 * 3, 6);
  const Feed x = MakeFeed<uint8_t>("x", {a, b}, {TensorShape{3, 4, 3}, TensorShape{5, 2, 3}}, "HWC");
  auto out = RunOp(x, OperatorDef("pad").Arg("axis_names", std::string("HW")).Arg("fill_value", 7.0))[0];
  EXPECT_EQ(out.layout(), "HWC");
  EXPECT_EQ(SampleData<uint8_t>(out, 0), Crop(a, 3, 4, 3, 0, 0, 5, 4, {7}));
  EXPECT_EQ(SampleData<uint8_t>(out, 1), Crop(b, 5, 2, 3, 0, 0, 5, 4, {7}));
  const Feed sh = MakeFeed<int64_t>("sh", {{6, 6}, {-1, 3}}, {TensorShape{2}, TensorShape{2}});
  out = RunFeeds({x, sh}, [](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("pad").Input(e.at("x")).Arg("axis_names", std::string("HW")).ArgInput("shape", e.at("sh")));
  })[0];
  EXPECT_EQ(out.shape(0), (TensorShape{6, 6, 3}));
  EXPECT_EQ(out.shape(1), (TensorShape{5, 3, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out, 1), Crop(b, 5, 2, 3, 0, 0, 5, 3));
  // A per-sample fill value.
  const Feed fv = MakeFeed<float>("fv", {{3}, {250}}, {TensorShape{}, TensorShape{}});
  out = RunFeeds({x, fv}, [](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("pad").Input(e.at("x")).Arg("axis_names", std::string("HW")).ArgInput("fill_value", e.at("fv")));
  })[0];
  EXPECT_EQ(SampleData<uint8_t>(out, 0), Crop(a, 3, 4, 3, 0, 0, 5, 4, {3}));
  EXPECT_EQ(SampleData<uint8_t>(out, 1), Crop(b, 5, 2, 3, 0, 0, 5, 4, {250}));
}

// ---- paste ----

TEST(PasteOp, CanvasSizeAndPositionFollowDali) {
  const auto a = Ramp(10 * 20 * 3, 7);
  const Feed x = MakeFeed<uint8_t>("x", {a}, {TensorShape{10, 20, 3}}, "HWC");
  auto out = RunOp(x, OperatorDef("paste").Arg("ratio", 1.55).Arg("paste_x", 0.3).Arg("paste_y", 1.0)
                          .Arg("fill_value", std::vector<int64_t>{1, 2, 3}))[0];
  // canvas (int(15.5), int(31.0)) = (15, 31); paste at (int(1.0 * 5), int(0.3 * 11)) = (5, 3).
  ASSERT_EQ(out.shape(0), (TensorShape{15, 31, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out, 0), Crop(a, 10, 20, 3, -5, -3, 15, 31, {1, 2, 3}));
  out = RunOp(x, OperatorDef("paste").Arg("ratio", 1.0).Arg("min_canvas_size", 24.0).Arg("fill_value", std::vector<int64_t>{0}))[0];
  ASSERT_EQ(out.shape(0), (TensorShape{24, 24, 3}));
  EXPECT_EQ(SampleData<uint8_t>(out, 0), Crop(a, 10, 20, 3, -7, -2, 24, 24));
}

// ---- jitter ----

TEST(JitterOp, DeterministicAcrossThreadsAndMask) {
  std::vector<std::vector<uint8_t>> imgs;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < 4; ++i) {
    imgs.push_back(Ramp(16 * 20 * 3, i));
    shapes.push_back(TensorShape{16, 20, 3});
  }
  const Feed x = MakeFeed<uint8_t>("x", imgs, shapes, "HWC");
  auto run = [&](int threads) { return RunOp(x, OperatorDef("jitter").Arg("nDegree", 3), threads); };
  const auto a = run(1), b = run(2);
  EXPECT_EQ(AllBytes(a), AllBytes(b));
  EXPECT_NE(SampleData<uint8_t>(a[0], 0), imgs[0]);
  EXPECT_NE(SampleData<uint8_t>(a[0], 0), SampleData<uint8_t>(a[0], 1 /* same ramp family, other noise */));
  const Feed m = MakeFeed<int32_t>("m", {{0}, {1}, {0}, {1}}, {TensorShape{}, TensorShape{}, TensorShape{}, TensorShape{}});
  auto out = RunFeeds({x, m}, [](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("jitter").Input(e.at("x")).ArgInput("mask", e.at("m")));
  });
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), imgs[0]);
  EXPECT_NE(SampleData<uint8_t>(out[0], 1), imgs[1]);
}

// ---- random_resized_crop ----

// A uint8 image whose two channels are the pixel's x and y (W, H <= 256).
std::vector<uint8_t> CoordImage(int h, int w) {
  std::vector<uint8_t> v(static_cast<size_t>(h * w * 2));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      v[static_cast<size_t>((y * w + x) * 2)] = static_cast<uint8_t>(x);
      v[static_cast<size_t>((y * w + x) * 2 + 1)] = static_cast<uint8_t>(y);
    }
  return v;
}

// The windows random_resized_crop drew: resizing the coordinate image with NN to its own size
// (never downscaling) keeps the window's first and last pixel in the output's corners.
std::vector<std::array<int, 4>> Windows(int h, int w, int batch, int batches, int64_t seed, int threads = 2) {
  const Feed x = MakeFeed<uint8_t>("x", std::vector<std::vector<uint8_t>>(static_cast<size_t>(batch), CoordImage(h, w)),
                                   std::vector<TensorShape>(static_cast<size_t>(batch), TensorShape{h, w, 2}), "HWC");
  auto outs = RunFeeds({x}, [&](Pipeline& p, auto& e) {
    return p.AddOperator(OperatorDef("random_resized_crop").Input(e.at("x")).Arg("size", std::vector<int64_t>{h, w})
                             .Arg("interp_type", std::string("NN")));
  }, threads, seed, batches);
  std::vector<std::array<int, 4>> win;  // x, y, w, h
  for (const auto& b : outs)
    for (int i = 0; i < b.num_samples(); ++i) {
      const auto* p = static_cast<const uint8_t*>(b.data(i));
      const size_t last = static_cast<size_t>((h * w - 1) * 2);
      win.push_back({p[0], p[1], p[last] - p[0] + 1, p[last + 1] - p[1] + 1});
    }
  return win;
}

TEST(RandomResizedCropOp, WindowsFollowTheRandomCropDistribution) {
  const int H = 120, W = 160;
  const auto win = Windows(H, W, 100, 20, 42);
  ASSERT_EQ(win.size(), 2000u);
  double area = 0;
  for (const auto& r : win) {
    ASSERT_GE(r[0], 0);
    ASSERT_LE(r[0] + r[2], W);
    ASSERT_LE(r[1] + r[3], H);
    area += double(r[2]) * r[3] / (H * W);
    const double ratio = double(r[2]) / r[3];
    EXPECT_GT(ratio, 0.75 * 0.9);
    EXPECT_LT(ratio, 4.0 / 3 * 1.1);
  }
  EXPECT_GT(area / 2000, 0.40);
  EXPECT_LT(area / 2000, 0.56);
  // SLUICE_RRC_WINDOWS=path writes 10,000 windows (x y w h per line) for an offline comparison.
  if (const char* path = std::getenv("SLUICE_RRC_WINDOWS")) {
    std::ofstream f(path);
    for (const auto& r : Windows(H, W, 100, 100, 1)) f << r[0] << ' ' << r[1] << ' ' << r[2] << ' ' << r[3] << '\n';
  }
}

TEST(RandomResizedCropOp, EqualsTheResizeKernelOnTheSameWindowAndIsDeterministic) {
  const int H = 90, W = 120, N = 6;
  const auto w1 = Windows(H, W, N, 1, 5, 1), w2 = Windows(H, W, N, 1, 5, 2);
  EXPECT_EQ(w1, w2);
  std::vector<std::vector<uint8_t>> imgs;
  for (int i = 0; i < N; ++i) imgs.push_back(Ramp(size_t(H * W * 3), 10 + i));
  const Feed x = MakeFeed<uint8_t>("x", imgs, std::vector<TensorShape>(N, TensorShape{H, W, 3}), "HWC");
  for (bool as_float : {false, true}) {
    auto out = RunFeeds({x}, [&](Pipeline& p, auto& e) {
      // The filters do not touch the random stream: the windows are those of the NN run above.
      auto op = OperatorDef("random_resized_crop").Input(e.at("x")).Arg("size", std::vector<int64_t>{32, 48})
               .Arg("min_filter", std::string("CUBIC"));
      if (as_float) op.Arg("dtype", std::string("float32"));
      return p.AddOperator(op);
    }, 2, 5);
    for (int i = 0; i < N; ++i) {
      const auto& r = w1[size_t(i)];
      kernels::ResizeParams params;
      params.min_filter = kernels::ResizeFilter::kCubic;
      params.roi = kernels::ResizeRoi{float(r[0]), float(r[1]), float(r[0] + r[2]), float(r[1] + r[3])};
      ASSERT_EQ(out[0].shape(i), (TensorShape{32, 48, 3}));
      if (as_float) {
        std::vector<float> ref(32 * 48 * 3);
        kernels::Resize(imgs[size_t(i)].data(), H, W, 3, ref.data(), 32, 48, params);
        EXPECT_EQ(SampleData<float>(out[0], i), ref) << i;
      } else {
        std::vector<uint8_t> ref(32 * 48 * 3);
        kernels::Resize(imgs[size_t(i)].data(), H, W, 3, ref.data(), 32, 48, params);
        EXPECT_EQ(SampleData<uint8_t>(out[0], i), ref) << i;
      }
    }
  }
}

TEST(RandomResizedCropOp, ChwMatchesHwcPlaneByPlane) {
  const int H = 40, W = 50;
  const auto hwc = Ramp(size_t(H * W * 3), 3);
  std::vector<uint8_t> chw(hwc.size());
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < H * W; ++i) chw[size_t(c * H * W + i)] = hwc[size_t(i * 3 + c)];
  auto op = OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{20});
  const auto a = RunOp(MakeFeed<uint8_t>("x", {hwc}, {TensorShape{H, W, 3}}, "HWC"), op)[0];
  const auto b = RunOp(MakeFeed<uint8_t>("x", {chw}, {TensorShape{3, H, W}}, "CHW"), op)[0];
  ASSERT_EQ(b.shape(0), (TensorShape{3, 20, 20}));
  EXPECT_EQ(b.layout(), "CHW");
  const auto va = SampleData<uint8_t>(a, 0), vb = SampleData<uint8_t>(b, 0);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 400; ++i) ASSERT_EQ(vb[size_t(c * 400 + i)], va[size_t(i * 3 + c)]) << c << "," << i;
}

// ---- errors at the call site ----

TEST(CropPadErrors, NameTheOperatorAndArgument) {
  const Feed hwc = MakeFeed<uint8_t>("x", {Ramp(8 * 8 * 3, 1)}, {TensorShape{8, 8, 3}}, "HWC");
  const Feed chw = MakeFeed<uint8_t>("x", {Ramp(8 * 8 * 3, 1)}, {TensorShape{3, 8, 8}}, "CHW");
  const Feed dhwc = MakeFeed<uint8_t>("x", {Ramp(8 * 8 * 3, 1)}, {TensorShape{1, 8, 8, 3}}, "DHWC");
  struct Case {
    const Feed* in;
    OperatorDef op;
    std::vector<std::string> fragments;
  };
  const std::vector<Case> cases = {
      {&chw, OperatorDef("paste").Arg("ratio", 2.0).Arg("fill_value", std::vector<int64_t>{0}), {"paste", "HWC", "'CHW'"}},
      {&chw, OperatorDef("jitter"), {"jitter", "HWC", "'CHW'"}},
      {&dhwc, OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{4}), {"random_resized_crop", "'DHWC'"}},
      {&hwc, OperatorDef("paste").Arg("ratio", 0.5).Arg("fill_value", std::vector<int64_t>{0}), {"paste", "ratio"}},
      {&hwc, OperatorDef("paste").Arg("ratio", 2.0).Arg("paste_x", 1.5).Arg("fill_value", std::vector<int64_t>{0}), {"paste", "paste_x"}},
      {&hwc, OperatorDef("paste").Arg("ratio", 2.0).Arg("fill_value", std::vector<int64_t>{1, 2}), {"paste", "fill_value", "3 channels"}},
      {&hwc, OperatorDef("jitter").Arg("nDegree", 0), {"jitter", "nDegree"}},
      {&hwc, OperatorDef("jitter").Arg("interp_type", std::string("CUBIC")), {"jitter", "interp_type"}},
      {&hwc, OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{4}).Arg("random_area", std::vector<double>{0.5, 0.2}), {"random_resized_crop", "random_area"}},
      {&hwc, OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{4}).Arg("random_aspect_ratio", std::vector<double>{0, 1}), {"random_resized_crop", "random_aspect_ratio"}},
      {&hwc, OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{4, 4, 4}), {"random_resized_crop", "size"}},
      {&hwc, OperatorDef("random_resized_crop").Arg("size", std::vector<int64_t>{4}).Arg("num_attempts", 0), {"random_resized_crop", "num_attempts"}},
      {&hwc, OperatorDef("slice").Arg("start", std::vector<double>{1, 1}).Arg("rel_start", std::vector<double>{0, 0}), {"slice", "rel_start"}},
      {&hwc, OperatorDef("slice").Arg("start", std::vector<double>{1, 1, 1}), {"slice", "start", "expected 2 values"}},
      {&hwc, OperatorDef("slice").Arg("start", std::vector<double>{1, 1}).Arg("end", std::vector<double>{0, 4}), {"slice", "start", "before"}},
      {&hwc, OperatorDef("slice").Arg("axis_names", std::string("D")).Arg("start", std::vector<double>{1}), {"slice", "axis_names", "'D'"}},
      {&hwc, OperatorDef("slice").Arg("axes", std::vector<int64_t>{3}).Arg("start", std::vector<double>{1}), {"slice", "axes", "out of range"}},
      {&hwc, OperatorDef("slice").Arg("out_of_bounds_policy", std::string("clamp")).Arg("start", std::vector<double>{1, 1}), {"slice", "out_of_bounds_policy"}},
      {&hwc, OperatorDef("slice").Arg("start", std::vector<double>{1, 1}).Arg("out_of_bounds_policy", std::string("pad")).Arg("fill_values", std::vector<double>{1, 2}), {"slice", "fill_values"}},
      {&hwc, OperatorDef("slice"), {"slice", "window"}},
      {&hwc, OperatorDef("pad").Arg("axes", std::vector<int64_t>{0}).Arg("axis_names", std::string("H")), {"pad", "axis_names"}},
      {&hwc, OperatorDef("pad").Arg("axes", std::vector<int64_t>{0, 1}).Arg("shape", std::vector<int64_t>{3}), {"pad", "shape", "expected 2"}},
      {&hwc, OperatorDef("pad").Arg("align", std::vector<int64_t>{0}), {"pad", "align"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op.op);
    ExpectError([&] { RunOp(*c.in, c.op); }, c.fragments);
  }
}

}  // namespace
}  // namespace sluice
