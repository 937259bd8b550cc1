// The detection operators through a pipeline, with the shared harness (op_harness.h): a box follows
// its image through flip / bb_flip, paste / bbox_paste and rotate / bbox_rotate; random_bbox_crop
// and box_encoder give the same bytes for any thread count; bad arguments are rejected at the call
// and bad boxes when the batch runs. The arithmetic is checked against NumPy in
// python/tests/test_detection_ops.py and the kernels in tests/kernels/detection_kernels_test.cc.
#include <gtest/gtest.h>

#include "op_harness.h"

namespace sluice::testing {
namespace {

TEST(DetectionOps, BoxFollowsFlip) {
  for (auto [hz, vt] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
    ExpectBoxFollowsImage(OperatorDef("flip").Arg("horizontal", int64_t{hz}).Arg("vertical", int64_t{vt}),
                          OperatorDef("bb_flip").Arg("ltrb", true).Arg("horizontal", int64_t{hz}).Arg("vertical", int64_t{vt}),
                          40, 60, {5, 8, 20, 30}, 0.01);
  }
}

TEST(DetectionOps, BoxFollowsPaste) {
  ExpectBoxFollowsImage(OperatorDef("paste").Arg("ratio", 2.0).Arg("paste_x", 0.25).Arg("paste_y", 0.75).Arg("fill_value", std::vector<int64_t>{0}),
                        OperatorDef("bbox_paste").Arg("ltrb", true).Arg("ratio", 2.0).Arg("paste_x", 0.25).Arg("paste_y", 0.75),
                        40, 60, {5, 8, 20, 30}, 1.0);
}

TEST(DetectionOps, BoxFollowsRotate) {
  for (double angle : {90.0, 180.0, -90.0, 30.0}) {
    ExpectBoxFollowsImage(OperatorDef("rotate").Arg("angle", angle).Arg("fill_value", 0.0).Arg("interp_type", std::string("NN")),
                          OperatorDef("bbox_rotate").Arg("angle", angle).Arg("input_shape", std::vector<double>{40, 60}),
                          40, 60, {10, 12, 30, 26}, 1.0);
  }
  ExpectBoxFollowsImage(OperatorDef("rotate").Arg("angle", 90.0).Arg("keep_size", true).Arg("fill_value", 0.0)
                            .Arg("interp_type", std::string("NN")),
                        OperatorDef("bbox_rotate").Arg("angle", 90.0).Arg("keep_size", true).Arg("input_shape", std::vector<double>{40, 60}),
                        40, 60, {22, 15, 38, 25}, 1.0);
}

HostBatch Boxes() {
  return HostBatch::Of<float>({{0.1f, 0.1f, 0.4f, 0.5f, 0.5f, 0.5f, 0.9f, 0.8f}, {0.2f, 0.3f, 0.6f, 0.7f}, {}},
                              {TensorShape{2, 4}, TensorShape{1, 4}, TensorShape{0, 4}});
}

TEST(DetectionOps, SameBytesForAnyThreadCount) {
  ExpectSameForAnyThreadCount({OperatorDef("random_bbox_crop").Arg("thresholds", std::vector<double>{0.1, 0.3, 0.5})
                                   .Arg("scaling", std::vector<double>{0.3, 1.0}).Arg("aspect_ratio", std::vector<double>{0.5, 2.0})
                                   .Arg("num_attempts", int64_t{20}),
                               Boxes(), {}});
  ExpectSameForAnyThreadCount({OperatorDef("bb_flip").Arg("ltrb", true), Boxes(), {}});
}

TEST(DetectionOps, BadArgumentsAtTheCall) {
  ExpectCallError(OperatorDef("random_bbox_crop").Arg("threshold_type", std::string("area")), "threshold_type", "area");
  ExpectCallError(OperatorDef("bb_flip").Arg("horizontal", int64_t{2}), "horizontal", "2");
  ExpectCallError(OperatorDef("bbox_rotate").Arg("angle", 10.0).Arg("input_shape", std::vector<double>{4, 4})
                      .Arg("mode", std::string("shrink")), "mode", "shrink");
}

TEST(DetectionOps, BadBoxesWhenTheBatchRuns) {
  ExpectRunError({OperatorDef("bb_flip"), HostBatch::Of<float>({{0.f, 0.f, 1.f}}, {TensorShape{1, 3}}), {}}, "[N, 4]");
  ExpectRunError({OperatorDef("random_bbox_crop"), HostBatch::Of<float>({{0.f, 0.f, 1.f, 1.f}}, {TensorShape{4}}), {}}, "[N, 4]");
}

}  // namespace
}  // namespace sluice::testing
