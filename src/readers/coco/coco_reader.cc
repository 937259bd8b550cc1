#include "readers/coco/coco_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include <sluice/error.h>

#include "core/random.h"
#include "kernels/detection/coco_label_masks.h"
#include "kernels/detection/coco_mask.h"
#include "operators/registry.h"
#include "readers/common/shuffle.h"
#include "readers/storage/file_source.h"
#include "readers/storage/url.h"

namespace sluice {
namespace {

// DALI's deprecated argument names, each standing for its current one.
const std::pair<const char*, const char*> kDeprecated[] = {
    {"meta_files_path", "preprocessed_annotations"},
    {"dump_meta_files", "save_preprocessed_annotations"},
    {"dump_meta_files_path", "save_preprocessed_annotations_dir"},
    {"save_img_ids", "image_ids"},
};

bool SpecFlag(const OpSpec& s, const char* name) {
  auto it = s.args.find(name);
  if (it == s.args.end()) return false;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b;
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) return *i != 0;
  return false;
}

int CocoNumOutputs(const OpSpec& s) {
  const bool polygons = SpecFlag(s, "polygon_masks") || SpecFlag(s, "masks");
  return 3 + (polygons ? 2 : 0) + (SpecFlag(s, "pixelwise_masks") ? 1 : 0) +
         (SpecFlag(s, "image_ids") || SpecFlag(s, "save_img_ids") ? 1 : 0);
}

}  // namespace

template <typename T>
static T ArgOrDeprecated(const Operator& op, const char* name) {
  for (const auto& [old, now] : kDeprecated)
    if (std::strcmp(now, name) == 0 && op.HasArg(old)) return op.Arg<T>(old);
  return op.Arg<T>(name);
}

CocoReader::CocoReader(const OpSpec& spec)
    : ReaderOperator(spec),
      file_root_(Arg<std::string>("file_root")),
      annotations_file_(Arg<std::string>("annotations_file")),
      preprocessed_(ArgOrDeprecated<std::string>(*this, "preprocessed_annotations")),
      polygon_masks_(Arg<bool>("polygon_masks") || Arg<bool>("masks")),
      legacy_masks_(Arg<bool>("masks")),
      pixelwise_masks_(Arg<bool>("pixelwise_masks")),
      image_ids_(ArgOrDeprecated<bool>(*this, "image_ids")),
      shuffle_after_epoch_(Arg<bool>("shuffle_after_epoch")),
      save_(ArgOrDeprecated<bool>(*this, "save_preprocessed_annotations")),
      has_images_(HasArg("images")),
      save_dir_(ArgOrDeprecated<std::string>(*this, "save_preprocessed_annotations_dir")) {
  for (const auto& [old, now] : kDeprecated)
    if (HasArg(old) && HasArg(now)) ThrowArgError(old, std::string("is the deprecated name of ") + now + "; give only one");
  if (polygon_masks_ && pixelwise_masks_) ThrowArgError("pixelwise_masks", "cannot be combined with polygon_masks");
  if (annotations_file_.empty() == preprocessed_.empty())
    ThrowArgError("annotations_file", "give exactly one of annotations_file and preprocessed_annotations");
  if (file_root_.empty()) ThrowArgError("file_root", "is required (the folder the images' file_name are relative to)");
  if (has_images_ && !preprocessed_.empty()) ThrowArgError("images", "cannot be combined with preprocessed_annotations");
  if (save_ && save_dir_.empty())
    ThrowArgError("save_preprocessed_annotations_dir", "is required with save_preprocessed_annotations");
  if (shuffle_after_epoch_ && options().random_shuffle)
    ThrowArgError("shuffle_after_epoch", "cannot be combined with random_shuffle");
  if (options().skip_cached_images) ThrowArgError("skip_cached_images", "is not supported by readers.coco (as DALI)");
  options_.size_threshold = Arg<float>("size_threshold");
  options_.ltrb = Arg<bool>("ltrb");
  options_.ratio = Arg<bool>("ratio");
  options_.skip_empty = Arg<bool>("skip_empty");
  options_.include_iscrowd = Arg<bool>("include_iscrowd");
  options_.avoid_class_remapping = Arg<bool>("avoid_class_remapping");
  options_.polygons = polygon_masks_ || pixelwise_masks_;
  options_.rles = pixelwise_masks_;
  options_.has_images = has_images_;
  options_.images = Arg<std::vector<std::string>>("images");
  num_outputs_ = 3 + (polygon_masks_ ? 2 : 0) + (pixelwise_masks_ ? 1 : 0) + (image_ids_ ? 1 : 0);
  InitEagerly();
}

CocoReader::~CocoReader() { StopLoader(); }

std::string CocoReader::DatasetName() const {
  return preprocessed_.empty() ? "annotations_file '" + annotations_file_ + "'"
                               : "preprocessed_annotations '" + preprocessed_ + "'";
}

int64_t CocoReader::InitDataset() {
  dataset_ = preprocessed_.empty() ? ReadCocoAnnotations(annotations_file_, options_) : LoadCocoDataset(preprocessed_);
  if (!preprocessed_.empty()) {
    if (pixelwise_masks_ && dataset_.heights.size() == dataset_.files.size())
      for (size_t i = 0; i < dataset_.files.size(); ++i)
        if (dataset_.heights[i] <= 0 || dataset_.widths[i] <= 0)
          throw Error("preprocessed annotations '" + preprocessed_ + "' have no image sizes (needed by pixelwise_masks)");
  }
  if (save_) SaveCocoDataset(dataset_, save_dir_);
  if (dataset_.size() == 0) throw Error(DatasetName() + " has no image to read" + (options_.skip_empty ? " (skip_empty)" : ""));
  if (options().random_shuffle) {
    // As readers.file: one fixed shuffle of the sample order before sharding (identical on every
    // shard); here a permutation of the samples, applied to every per-sample array.
    std::vector<int64_t> perm(static_cast<size_t>(dataset_.size()));
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    RandomGenerator rng(kListShuffleSeed);
    PermuteElements(&perm, rng);
    order_ = std::move(perm);
  }
  return dataset_.size();
}

void CocoReader::AdjustSequencer(SequencerOptions& s) const {
  if (shuffle_after_epoch_) {
    s.shuffle_after_epoch = true;
    s.stick_to_shard = true;
  }
}

void CocoReader::PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) {
  const size_t bytes = std::max(static_cast<size_t>(options().tensor_init_bytes), HintFor(0));
  outs[0].Reserve(batch_size, bytes, cfg, false);
}

namespace {

// A vertex coordinate as DALI rasterises it: its float value, or with ratio the float normalised
// value scaled back in float. Kept out of line: with the same conversion written inline in the
// vertex loop, GCC 12.2 at -O3 left the last vertex of a triangle unrounded (seen by printing the
// coordinates; a print inside the loop made it correct), so the masks missed DALI's by a pixel.
[[gnu::noinline]] double DaliMaskCoordinate(double v, float extent, bool ratio) {
  float c = static_cast<float>(v);
  if (ratio) c = (c / extent) * extent;
  return static_cast<double>(c);
}

}  // namespace

void CocoReader::PaintMasks(int64_t s, int32_t* mask) const {
  const CocoDataset& d = dataset_;
  const int h = d.heights[static_cast<size_t>(s)], w = d.widths[static_cast<size_t>(s)];
  const int32_t* labels = d.labels.data() + d.obj_begin[s];
  const std::set<int32_t> label_set(labels, labels + d.num_objects(s));
  // DALI's rule (kernels/detection/coco_label_masks.h): per label the union of its polygons, else
  // its last RLE mask; labels merged in ascending order. The polygons are rasterised from DALI's
  // float vertices: float(x), or with ratio float(float(x) / w) * w in float (DALI normalises them
  // in float and scales them back for the mask), so that the 1/5-pixel grid rounding agrees.
  const float fw = static_cast<float>(w), fh = static_cast<float>(h);
  std::map<int32_t, std::vector<kernels::CocoRle>> polygons;
  std::map<int32_t, const kernels::CocoRle*> last_rle;
  std::vector<double> xy;
  for (int64_t p = d.poly_begin[s]; p < d.poly_begin[s + 1]; ++p) {
    const int32_t* q = &d.polygons[static_cast<size_t>(3 * p)];
    if (q[2] <= q[1]) continue;
    const double* v = d.vertices.data() + 2 * (d.vert_begin[s] + q[1]);
    const int64_t nv = q[2] - q[1];
    xy.resize(static_cast<size_t>(2 * nv));
    for (int64_t j = 0; j < nv; ++j) {
      xy[static_cast<size_t>(2 * j)] = DaliMaskCoordinate(v[2 * j], fw, d.ratio);
      xy[static_cast<size_t>(2 * j + 1)] = DaliMaskCoordinate(v[2 * j + 1], fh, d.ratio);
    }
    polygons[labels[q[0]]].push_back(kernels::RasterizeCocoPolygon(xy.data(), q[2] - q[1], h, w));
  }
  for (int64_t k = d.rle_begin[s]; k < d.rle_begin[s + 1]; ++k) {
    const kernels::CocoRle& r = d.rles[static_cast<size_t>(k)];
    uint64_t sum = 0;
    for (uint32_t c : r.counts) sum += c;
    if (r.height != h || r.width != w || sum != static_cast<uint64_t>(h) * static_cast<uint64_t>(w))
      throw Error("image '" + d.files[static_cast<size_t>(s)] + "': an RLE mask does not match the image size");
    last_rle[labels[d.rle_objects[static_cast<size_t>(k)]]] = &r;
  }
  std::vector<kernels::CocoRle> unions;
  unions.reserve(polygons.size());
  std::vector<kernels::LabelMask> masks;
  for (int32_t label : label_set) {
    const kernels::CocoRle* rle = nullptr;
    if (auto it = polygons.find(label); it != polygons.end()) {
      unions.push_back(kernels::UnionCocoRles(it->second));
      rle = &unions.back();
    } else if (auto jt = last_rle.find(label); jt != last_rle.end()) {
      rle = jt->second;
    }
    masks.push_back({label, rle});
  }
  kernels::ComposeCocoLabelMasks(masks, h, w, mask);
}

void CocoReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) {
  const CocoDataset& d = dataset_;
  const size_t n = indices.size();
  for (auto& s : shapes_) s.resize(n);
  paths_.resize(n);
  std::vector<WholeFile> files(n);
  std::vector<char> bad(n, 0);
  std::vector<int64_t> sample(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = order_.empty() ? indices[i] : order_[static_cast<size_t>(indices[i])];
    sample[i] = s;
    paths_[i] = JoinPath(file_root_, d.files[static_cast<size_t>(s)]);
    try {
      files[i] = WholeFile(paths_[i], options().read_ahead);
    } catch (const Error& e) {
      SourceInfo src;
      src.path = paths_[i];
      SampleReadFailed(static_cast<int>(i), src,
                       Error("image id " + std::to_string(d.image_ids[static_cast<size_t>(s)]) + " ('" +
                             d.files[static_cast<size_t>(s)] + "' under file_root '" + file_root_ + "'): " + e.message()));
      bad[i] = 1;
    }
    const int64_t m = d.num_objects(s);
    shapes_[0][i] = TensorShape{files[i].size()};
    shapes_[1][i] = TensorShape{m, 4};
    shapes_[2][i] = TensorShape{m};
    shapes_[3][i] = TensorShape{d.poly_begin[s + 1] - d.poly_begin[s], 3};
    shapes_[4][i] = TensorShape{d.vert_begin[s + 1] - d.vert_begin[s], 2};
    shapes_[5][i] = TensorShape{pixelwise_masks_ ? d.heights[static_cast<size_t>(s)] : 0,
                                pixelwise_masks_ ? d.widths[static_cast<size_t>(s)] : 0, 1};
    shapes_[6][i] = TensorShape{1};
  }
  int o = 0;
  TensorList& images = outs[o++];
  TensorList& boxes = outs[o++];
  TensorList& labels = outs[o++];
  TensorList* polygons = polygon_masks_ ? &outs[o++] : nullptr;
  TensorList* vertices = polygon_masks_ ? &outs[o++] : nullptr;
  TensorList* masks = pixelwise_masks_ ? &outs[o++] : nullptr;
  TensorList* ids = image_ids_ ? &outs[o++] : nullptr;
  images.Resize(shapes_[0], DType::kUInt8, cfg, false);
  boxes.Resize(shapes_[1], DType::kFloat32, cfg, false);
  labels.Resize(shapes_[2], DType::kInt32, cfg, false);
  if (polygons) polygons->Resize(shapes_[3], DType::kInt32, cfg, false);
  if (vertices) vertices->Resize(shapes_[4], DType::kFloat32, cfg, false);
  if (masks) masks->Resize(shapes_[5], DType::kInt32, cfg, false);
  if (ids) ids->Resize(shapes_[6], DType::kInt32, cfg, false);
  for (size_t i = 0; i < n; ++i) {
    const int si = static_cast<int>(i);
    const int64_t s = sample[i];
    SourceInfo src;
    src.path = paths_[i];
    for (int k = 0; k < num_outputs_; ++k) outs[static_cast<size_t>(k)].source(si) = src;
    if (!bad[i]) {
      try {
        files[i].ReadAll(images.raw_mutable_sample(si), false);
      } catch (const Error& e) {
        SampleReadFailed(si, src, e);
      }
    }
    const int64_t m = d.num_objects(s);
    std::memcpy(boxes.raw_mutable_sample(si), d.boxes.data() + 4 * d.obj_begin[s], static_cast<size_t>(m) * 4 * sizeof(float));
    std::memcpy(labels.raw_mutable_sample(si), d.labels.data() + d.obj_begin[s], static_cast<size_t>(m) * sizeof(int32_t));
    if (polygons) {
      const int64_t p0 = d.poly_begin[s], np = d.poly_begin[s + 1] - p0;
      int32_t* out = polygons->mutable_sample<int32_t>(si);
      std::memcpy(out, d.polygons.data() + 3 * p0, static_cast<size_t>(np) * 3 * sizeof(int32_t));
      if (legacy_masks_)  // DALI's deprecated `masks`: coordinate (not vertex) indices
        for (int64_t p = 0; p < np; ++p) out[3 * p + 1] *= 2, out[3 * p + 2] *= 2;
      const int64_t v0 = d.vert_begin[s], nv = d.vert_begin[s + 1] - v0;
      float* vo = vertices->mutable_sample<float>(si);
      const double* vi = d.vertices.data() + 2 * v0;
      // Float as DALI stores them; relative with ratio (divided in float, as DALI).
      const float w = d.ratio ? static_cast<float>(d.widths[static_cast<size_t>(s)]) : 1.f;
      const float h = d.ratio ? static_cast<float>(d.heights[static_cast<size_t>(s)]) : 1.f;
      for (int64_t v = 0; v < nv; ++v) {
        vo[2 * v] = static_cast<float>(vi[2 * v]) / w;
        vo[2 * v + 1] = static_cast<float>(vi[2 * v + 1]) / h;
      }
    }
    if (masks) {
      try {
        PaintMasks(s, masks->mutable_sample<int32_t>(si));
      } catch (const Error& e) {
        throw Error("image id " + std::to_string(d.image_ids[static_cast<size_t>(s)]) + " ('" +
                    d.files[static_cast<size_t>(s)] + "'): " + e.message());
      }
    }
    if (ids) *ids->mutable_sample<int32_t>(si) = static_cast<int32_t>(d.image_ids[static_cast<size_t>(s)]);
  }
  images.set_layout("");
  boxes.set_layout("");
  labels.set_layout("");
  if (masks) masks->set_layout("HWC");
}

SLUICE_REGISTER_OPERATORS(RegisterCocoReader) {
  OpSchema s("readers.coco");
  s.Doc("Reads a COCO dataset: the images listed in a COCO annotation file (instances_*.json, parsed with "
        "simdjson) from file_root, with their boxes and labels and, on request, their polygon or pixelwise "
        "masks and image ids. Outputs: images (encoded bytes), bboxes (float [M, 4]), labels (int32 [M]), then "
        "polygons and vertices (polygon_masks) or pixelwise_masks (pixelwise_masks), then image_ids (image_ids). "
        "Images come in id order (or in the order of `images`); an image's objects in the file's order. A "
        "malformed or inconsistent annotation file is an error naming the annotation.")
      .Output("images", "the image file's bytes (uint8, 1-D)")
      .Output("bboxes", "float [M, 4]: [x, y, w, h] per object, or [l, t, r, b] with ltrb; relative with ratio")
      .Output("labels", "int32 [M]: the category of each object (remapped to 1..C unless avoid_class_remapping)")
      .NumOutputsFn(CocoNumOutputs)
      .Arg("file_root", ArgType::kString, std::string(), "Folder the images' file_name are relative to.")
      .Arg("annotations_file", ArgType::kString, std::string(), "The COCO annotation file (JSON).")
      .Arg("preprocessed_annotations", ArgType::kString, std::string(),
           "Folder of annotations saved by save_preprocessed_annotations (Sluice's own binary layout), read instead "
           "of annotations_file; the options they were saved with apply.")
      .Arg("meta_files_path", ArgType::kString, std::string(), "Deprecated name of preprocessed_annotations.")
      .Arg("save_preprocessed_annotations", ArgType::kBool, false,
           "Save the dataset as built (options applied) to save_preprocessed_annotations_dir.")
      .Arg("dump_meta_files", ArgType::kBool, false, "Deprecated name of save_preprocessed_annotations.")
      .Arg("save_preprocessed_annotations_dir", ArgType::kString, std::string(),
           "Folder the preprocessed annotations are saved to (created if needed).")
      .Arg("dump_meta_files_path", ArgType::kString, std::string(), "Deprecated name of save_preprocessed_annotations_dir.")
      .Arg("ltrb", ArgType::kBool, false, "Boxes as [left, top, right, bottom] instead of [x, y, width, height].")
      .Arg("ratio", ArgType::kBool, false, "Box and polygon coordinates relative to the image's width and height.")
      .Arg("size_threshold", ArgType::kFloat, 0.1,
           "Objects whose box width or height (pixels) is below this are dropped (a negative width or height is an "
           "error naming the annotation).")
      .Arg("skip_empty", ArgType::kBool, false, "Skip images without any (kept) object.")
      .Arg("include_iscrowd", ArgType::kBool, true, "Keep the annotations marked iscrowd=1.")
      .Arg("avoid_class_remapping", ArgType::kBool, false,
           "Labels are the category ids as in the file; otherwise each category's position in \"categories\" + 1 "
           "(0 is left for the background).")
      .Arg("images", ArgType::kStringList, std::vector<std::string>{},
           "The images to read (file_name as in the annotation file), in this order, duplicates repeated; default: "
           "all images by id. A name not in the file is an error.")
      .Arg("image_ids", ArgType::kBool, false, "Add an output with each image's id (int32 [1]).")
      .Arg("save_img_ids", ArgType::kBool, false, "Deprecated name of image_ids.")
      .Arg("polygon_masks", ArgType::kBool, false,
           "Add the outputs polygons (int32 [P, 3]: object index, first vertex, end vertex) and vertices (float "
           "[V, 2]: x, y) of the objects' polygon segmentations.")
      .Arg("masks", ArgType::kBool, false,
           "Deprecated: polygon_masks with DALI's old polygon format (coordinate indices: 2x the vertex indices).")
      .Arg("pixelwise_masks", ArgType::kBool, false,
           "Add the output pixelwise_masks (int32 [H, W, 1]): each pixel the label of the object covering it (0: "
           "none; the higher label where objects of different labels overlap), polygons rasterised with COCO's rule "
           "(as pycocotools' annToMask) and RLE (iscrowd) masks decoded.")
      .Arg("shuffle_after_epoch", ArgType::kBool, false,
           "Reshuffle the whole dataset every epoch, identically on every shard (implies stick_to_shard).")
      .Exclusive({"polygon_masks", "pixelwise_masks"});
  AddCommonReaderArgs(s);
  s.Factory("cpu", MakeFactory<CocoReader>());
  r.Register(std::move(s));
}

}  // namespace sluice
