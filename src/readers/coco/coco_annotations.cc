#include "readers/coco/coco_annotations.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include <simdjson.h>

#include <sluice/error.h>

namespace sluice {
namespace {

namespace od = simdjson::ondemand;

struct RawImage {
  std::string file;
  int64_t id = 0;
  int64_t height = -1, width = -1;
};

struct RawAnnotation {
  int64_t id = 0, image_id = 0, category_id = 0, iscrowd = 0;
  float box[4] = {0, 0, 0, 0};
  int64_t coord_begin = 0, coord_end = 0;  // into coords_
  int64_t poly_begin = 0, poly_end = 0;    // into poly_sizes_
  int32_t rle = -1;                        // into rles_
};

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

constexpr int64_t kMaxMaskPixels = int64_t{1} << 28;  // as the decoders' max_pixels default

class CocoParser {
 public:
  CocoParser(const std::string& name, const CocoReadOptions& opt) : name_(name), opt_(opt) {}

  // Reads the file's content; then Build() makes the samples (the text may be freed in between).
  void Parse(const simdjson::padded_string& json) {
    try {
      ParseRoot(json);
    } catch (const simdjson::simdjson_error& e) {
      Fail("not valid JSON " + where_ + " (" + e.what() + ")");
    }
  }
  CocoDataset Build();

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error("annotations file '" + name_ + "': " + what);
  }

  static int64_t Int(od::value v, const char* what, const CocoParser& p, const std::string& owner) {
    int64_t x = 0;
    if (v.get_int64().get(x) != simdjson::SUCCESS) p.Fail(owner + ": " + Quote(what) + " is not an integer");
    return x;
  }

  void ParseRoot(const simdjson::padded_string& json) {
    od::parser parser;
    od::document doc = parser.iterate(json);
    od::object root;
    if (doc.get_object().get(root) != simdjson::SUCCESS) Fail("the top level is not a JSON object");
    bool seen_images = false, seen_annotations = false;
    for (auto item : root) {
      od::field field = std::move(item);
      const std::string_view key = field.unescaped_key();
      if (key == "images") {
        seen_images = true;
        ParseImages(field.value());
      } else if (key == "categories") {
        seen_categories_ = true;
        ParseCategories(field.value());
      } else if (key == "annotations") {
        seen_annotations = true;
        ParseAnnotations(field.value());
      }
    }
    if (!seen_images) Fail("no \"images\" array");
    if (!seen_annotations) Fail("no \"annotations\" array");
  }

  void ParseImages(od::value v) {
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) Fail("\"images\" is not an array");
    int64_t k = 0;
    for (auto item : arr) {
      where_ = "in \"images\" entry #" + std::to_string(k);
      const std::string owner = "\"images\" entry #" + std::to_string(k);
      od::object o;
      if (item.get_object().get(o) != simdjson::SUCCESS) Fail(owner + " is not an object");
      RawImage im;
      bool has_id = false, has_file = false;
      for (auto f : o) {
        od::field field = std::move(f);
        const std::string_view key = field.unescaped_key();
        if (key == "id") {
          im.id = Int(field.value(), "id", *this, owner);
          has_id = true;
        } else if (key == "file_name") {
          std::string_view s;
          if (field.value().get_string().get(s) != simdjson::SUCCESS) Fail(owner + ": \"file_name\" is not a string");
          im.file = s;
          has_file = true;
        } else if (key == "width") {
          im.width = Int(field.value(), "width", *this, owner);
        } else if (key == "height") {
          im.height = Int(field.value(), "height", *this, owner);
        }
      }
      if (!has_id) Fail(owner + " has no \"id\"");
      if (!has_file || im.file.empty()) Fail("image id " + std::to_string(im.id) + " has no \"file_name\"");
      images_.push_back(std::move(im));
      ++k;
    }
  }

  void ParseCategories(od::value v) {
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) Fail("\"categories\" is not an array");
    int64_t k = 0;
    for (auto item : arr) {
      where_ = "in \"categories\" entry #" + std::to_string(k);
      const std::string owner = "\"categories\" entry #" + std::to_string(k);
      od::object o;
      if (item.get_object().get(o) != simdjson::SUCCESS) Fail(owner + " is not an object");
      bool has_id = false;
      int64_t id = 0;
      for (auto f : o) {
        od::field field = std::move(f);
        if (field.unescaped_key().value() == "id") {
          id = Int(field.value(), "id", *this, owner);
          has_id = true;
        }
      }
      if (!has_id) Fail(owner + " has no \"id\"");
      if (!categories_.emplace(id, static_cast<int32_t>(k + 1)).second)
        Fail("category id " + std::to_string(id) + " is listed twice in \"categories\"");
      ++k;
    }
  }

  void ParseAnnotations(od::value v) {
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) Fail("\"annotations\" is not an array");
    int64_t k = 0;
    for (auto item : arr) {
      where_ = "in \"annotations\" entry #" + std::to_string(k);
      const std::string owner = "\"annotations\" entry #" + std::to_string(k);
      od::object o;
      if (item.get_object().get(o) != simdjson::SUCCESS) Fail(owner + " is not an object");
      RawAnnotation a;
      bool has_id = false, has_image = false, has_category = false, has_box = false;
      std::string problem;  // reported with the annotation's id once the whole object is read
      a.coord_begin = a.coord_end = static_cast<int64_t>(coords_.size());
      a.poly_begin = a.poly_end = static_cast<int64_t>(poly_sizes_.size());
      for (auto f : o) {
        od::field field = std::move(f);
        const std::string_view key = field.unescaped_key();
        if (key == "id") {
          a.id = Int(field.value(), "id", *this, owner);
          has_id = true;
        } else if (key == "image_id") {
          a.image_id = Int(field.value(), "image_id", *this, owner);
          has_image = true;
        } else if (key == "category_id") {
          a.category_id = Int(field.value(), "category_id", *this, owner);
          has_category = true;
        } else if (key == "iscrowd") {
          a.iscrowd = Int(field.value(), "iscrowd", *this, owner);
        } else if (key == "bbox") {
          has_box = true;
          ParseBox(field.value(), a, problem);
        } else if (key == "segmentation" && (opt_.polygons || opt_.rles)) {
          ParseSegmentation(field.value(), a, problem);
        }
      }
      if (!has_id) Fail(owner + " has no \"id\"");
      const std::string ann = "annotation id " + std::to_string(a.id);
      if (!problem.empty()) Fail(ann + ": " + problem);
      if (!has_image) Fail(ann + " has no \"image_id\"");
      if (!has_category) Fail(ann + " has no \"category_id\"");
      if (!has_box) Fail(ann + " has no \"bbox\"");
      annotations_.push_back(a);
      ++k;
    }
  }

  void ParseBox(od::value v, RawAnnotation& a, std::string& problem) {
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) {
      problem = "\"bbox\" is not an array";
      return;
    }
    int n = 0;
    for (auto item : arr) {
      double x = 0;
      if (item.get_double().get(x) != simdjson::SUCCESS) {
        if (problem.empty()) problem = "\"bbox\" holds a value that is not a number";
        continue;
      }
      if (!std::isfinite(x) && problem.empty()) problem = "\"bbox\" holds a value that is not finite";
      if (n < 4) a.box[n] = static_cast<float>(x);
      ++n;
    }
    if (n != 4 && problem.empty()) problem = "\"bbox\" has " + std::to_string(n) + " values, expected 4 [x, y, width, height]";
    if (n == 4 && problem.empty() && (a.box[2] < 0 || a.box[3] < 0))
      problem = "\"bbox\" [" + std::to_string(a.box[0]) + ", " + std::to_string(a.box[1]) + ", " + std::to_string(a.box[2]) +
                ", " + std::to_string(a.box[3]) + "] has a negative width or height";
  }

  void ParseSegmentation(od::value v, RawAnnotation& a, std::string& problem) {
    od::json_type type = v.type();
    if (type == od::json_type::array && opt_.polygons) {
      for (auto poly_item : v.get_array()) {
        od::array poly;
        if (poly_item.get_array().get(poly) != simdjson::SUCCESS) {
          if (problem.empty()) problem = "a polygon of \"segmentation\" is not an array";
          continue;
        }
        int64_t n = 0;
        for (auto c : poly) {
          double x = 0;
          if (c.get_double().get(x) != simdjson::SUCCESS || !std::isfinite(x)) {
            if (problem.empty()) problem = "a polygon of \"segmentation\" holds a value that is not a finite number";
            continue;
          }
          coords_.push_back(x);
          ++n;
        }
        const int64_t index = a.poly_end - a.poly_begin;
        if (problem.empty() && n % 2 != 0)
          problem = "polygon " + std::to_string(index) + " of \"segmentation\" has an odd number of coordinates (" +
                    std::to_string(n) + ")";
        if (problem.empty() && n < 6)
          problem = "polygon " + std::to_string(index) + " of \"segmentation\" has " + std::to_string(n / 2) +
                    " points (a polygon needs at least 3)";
        poly_sizes_.push_back(n);
        ++a.poly_end;
      }
      a.coord_end = static_cast<int64_t>(coords_.size());
    } else if (type == od::json_type::object && opt_.rles) {
      kernels::CocoRle rle;
      bool has_size = false, has_counts = false;
      for (auto f : v.get_object()) {
        od::field field = std::move(f);
        const std::string_view key = field.unescaped_key();
        if (key == "size") {
          std::vector<int64_t> size;
          for (auto s : field.value().get_array()) {
            int64_t x = -1;
            if (s.get_int64().get(x) != simdjson::SUCCESS) x = -1;
            size.push_back(x);
          }
          if (size.size() != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > INT32_MAX || size[1] > INT32_MAX) {
            if (problem.empty()) problem = "the RLE \"size\" is not [height, width] with positive integers";
          } else {
            rle.height = static_cast<int>(size[0]);
            rle.width = static_cast<int>(size[1]);
            has_size = true;
          }
        } else if (key == "counts") {
          has_counts = true;
          od::value c = field.value();
          if (c.type() == od::json_type::string) {
            if (!kernels::DecodeCocoRleString(c.get_string().value(), &rle.counts) && problem.empty())
              problem = "the compressed RLE \"counts\" string is malformed";
          } else {
            for (auto x : c.get_array()) {
              int64_t n = -1;
              if (x.get_int64().get(n) != simdjson::SUCCESS || n < 0 || n > UINT32_MAX) {
                if (problem.empty()) problem = "the RLE \"counts\" holds a value that is not a count";
                continue;
              }
              rle.counts.push_back(static_cast<uint32_t>(n));
            }
          }
        }
      }
      if (problem.empty() && (!has_size || !has_counts)) problem = "the RLE \"segmentation\" needs \"size\" and \"counts\"";
      if (problem.empty()) {
        uint64_t total = 0;
        for (uint32_t c : rle.counts) total += c;
        if (total != static_cast<uint64_t>(rle.height) * static_cast<uint64_t>(rle.width))
          problem = "the RLE counts sum to " + std::to_string(total) + ", not height * width = " +
                    std::to_string(static_cast<int64_t>(rle.height) * rle.width);
      }
      if (problem.empty()) {
        a.rle = static_cast<int32_t>(rles_.size());
        rles_.push_back(std::move(rle));
      }
    }
  }

  const std::string name_;
  const CocoReadOptions& opt_;
  std::string where_ = "at the start";
  bool seen_categories_ = false;
  std::vector<RawImage> images_;
  std::unordered_map<int64_t, int32_t> categories_;  // id -> position + 1
  std::vector<RawAnnotation> annotations_;
  std::vector<double> coords_;
  std::vector<int64_t> poly_sizes_;
  std::vector<kernels::CocoRle> rles_;
};

CocoDataset CocoParser::Build() {
  std::unordered_map<int64_t, int32_t> image_index;
  image_index.reserve(images_.size());
  for (size_t i = 0; i < images_.size(); ++i)
    if (!image_index.emplace(images_[i].id, static_cast<int32_t>(i)).second)
      Fail("image id " + std::to_string(images_[i].id) + " is listed twice in \"images\"");
  // Every annotation must point at a listed image and category (also those filtered out later).
  std::vector<int64_t> per_image(images_.size() + 1, 0);
  for (const RawAnnotation& a : annotations_) {
    const std::string ann = "annotation id " + std::to_string(a.id);
    auto im = image_index.find(a.image_id);
    if (im == image_index.end()) Fail(ann + ": image_id " + std::to_string(a.image_id) + " is not in \"images\"");
    if (!categories_.count(a.category_id))
      Fail(ann + ": category_id " + std::to_string(a.category_id) + " is not in \"categories\"" +
           (seen_categories_ ? "" : " (the file has no \"categories\")"));
    if (a.rle >= 0) {
      const RawImage& img = images_[static_cast<size_t>(im->second)];
      const kernels::CocoRle& r = rles_[static_cast<size_t>(a.rle)];
      if (r.height != img.height || r.width != img.width)
        Fail(ann + ": the RLE mask is " + std::to_string(r.height) + "x" + std::to_string(r.width) + " but image id " +
             std::to_string(img.id) + " is " + std::to_string(img.height) + "x" + std::to_string(img.width));
    }
    ++per_image[static_cast<size_t>(im->second) + 1];
  }
  // Annotations grouped by image, each group in the file's order.
  std::partial_sum(per_image.begin(), per_image.end(), per_image.begin());
  std::vector<int64_t> grouped(annotations_.size());
  {
    std::vector<int64_t> fill(per_image.begin(), per_image.end() - 1);
    for (size_t k = 0; k < annotations_.size(); ++k)
      grouped[static_cast<size_t>(fill[static_cast<size_t>(image_index[annotations_[k].image_id])]++)] = static_cast<int64_t>(k);
  }
  // The samples' images.
  std::vector<int32_t> order;
  if (opt_.has_images) {
    std::unordered_map<std::string_view, int32_t> by_file;
    for (size_t i = 0; i < images_.size(); ++i) by_file.emplace(images_[i].file, static_cast<int32_t>(i));
    for (size_t k = 0; k < opt_.images.size(); ++k) {
      auto it = by_file.find(opt_.images[k]);
      if (it == by_file.end())
        Fail("images[" + std::to_string(k) + "] '" + opt_.images[k] + "' is not a \"file_name\" of the file's \"images\"");
      order.push_back(it->second);
    }
  } else {
    order.resize(images_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return images_[a].id < images_[b].id; });
  }

  CocoDataset d;
  d.ratio = opt_.ratio;
  d.obj_begin.push_back(0);
  d.poly_begin.push_back(0);
  d.vert_begin.push_back(0);
  d.rle_begin.push_back(0);
  const bool remap = !opt_.avoid_class_remapping;
  for (int32_t idx : order) {
    const RawImage& img = images_[static_cast<size_t>(idx)];
    const std::string image = "image id " + std::to_string(img.id);
    if ((opt_.ratio || opt_.rles) && (img.width <= 0 || img.height <= 0))
      Fail(image + " has no positive \"width\" and \"height\" (needed by " + (opt_.ratio ? "ratio" : "pixelwise_masks") + ")");
    if (opt_.rles && (img.width > INT32_MAX || img.height > INT32_MAX || img.width * img.height > kMaxMaskPixels))
      Fail(image + " is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
           ": its pixelwise mask would exceed 2^28 pixels");
    const size_t boxes0 = d.boxes.size(), labels0 = d.labels.size(), polys0 = d.polygons.size(),
                 verts0 = d.vertices.size(), rles0 = d.rles.size();
    int32_t objects = 0;
    for (int64_t g = per_image[static_cast<size_t>(idx)]; g < per_image[static_cast<size_t>(idx) + 1]; ++g) {
      RawAnnotation& a = annotations_[static_cast<size_t>(grouped[static_cast<size_t>(g)])];
      if (a.iscrowd != 0 && !opt_.include_iscrowd) continue;
      if (!(a.box[2] >= opt_.size_threshold && a.box[3] >= opt_.size_threshold)) continue;
      float b[4] = {a.box[0], a.box[1], a.box[2], a.box[3]};
      if (opt_.ltrb) {
        b[2] += b[0];
        b[3] += b[1];
      }
      if (opt_.ratio) {
        const float w = static_cast<float>(img.width), h = static_cast<float>(img.height);
        b[0] /= w, b[1] /= h, b[2] /= w, b[3] /= h;
      }
      d.boxes.insert(d.boxes.end(), b, b + 4);
      d.labels.push_back(remap ? categories_[a.category_id] : static_cast<int32_t>(a.category_id));
      if (opt_.polygons) {
        int64_t c = a.coord_begin;
        for (int64_t p = a.poly_begin; p < a.poly_end; ++p) {
          const int64_t n = poly_sizes_[static_cast<size_t>(p)];
          const auto first = static_cast<int32_t>((d.vertices.size() - verts0) / 2);
          d.vertices.insert(d.vertices.end(), coords_.begin() + c, coords_.begin() + c + n);
          c += n;
          d.polygons.insert(d.polygons.end(), {objects, first, first + static_cast<int32_t>(n / 2)});
        }
      }
      if (a.rle >= 0) {
        d.rle_objects.push_back(objects);
        d.rles.push_back(rles_[static_cast<size_t>(a.rle)]);  // copied: `images` may repeat the image
      }
      ++objects;
    }
    if (objects == 0 && opt_.skip_empty) {
      d.boxes.resize(boxes0);
      d.labels.resize(labels0);
      d.polygons.resize(polys0);
      d.vertices.resize(verts0);
      d.rles.resize(rles0);
      d.rle_objects.resize(rles0);
      continue;
    }
    d.files.push_back(img.file);
    d.image_ids.push_back(img.id);
    d.heights.push_back(static_cast<int32_t>(img.height));
    d.widths.push_back(static_cast<int32_t>(img.width));
    d.obj_begin.push_back(static_cast<int64_t>(d.labels.size()));
    d.poly_begin.push_back(static_cast<int64_t>(d.polygons.size() / 3));
    d.vert_begin.push_back(static_cast<int64_t>(d.vertices.size() / 2));
    d.rle_begin.push_back(static_cast<int64_t>(d.rles.size()));
  }
  return d;
}

}  // namespace

CocoDataset ParseCocoAnnotations(std::string_view text, const std::string& name, const CocoReadOptions& opt) {
  CocoParser parser(name, opt);
  parser.Parse(simdjson::padded_string(text));
  return parser.Build();
}

CocoDataset ReadCocoAnnotations(const std::string& path, const CocoReadOptions& opt) {
  CocoParser parser(path, opt);
  {  // the text (and simdjson's index, freed by Parse) go before the samples are built
    simdjson::padded_string json;
    if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS)
      throw Error("cannot read annotations file '" + path + "': " + std::strerror(errno));
    parser.Parse(json);
  }
  return parser.Build();
}

}  // namespace sluice
