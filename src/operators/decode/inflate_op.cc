// decoders.inflate: LZ4-compressed samples back to tensors (DALI's fn.decoders.inflate, which DALI
// runs only on the GPU, with nvCOMP; this is its CPU counterpart, with liblz4). Each input sample is
// one LZ4 block (the raw block format nvCOMP reads: lz4.block.compress(x, store_size=False)) or,
// with chunk_offsets and/or chunk_sizes, several blocks that each inflate to `shape`; then the
// output gains an outer extent, the number of chunks, named sequence_axis_name in the layout.
#include <string>
#include <vector>

#include "kernels/compression/lz4_block.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

struct Chunk {
  int64_t offset = 0, size = 0;
};

class Inflate : public Operator {
 public:
  explicit Inflate(const OpSpec& spec)
      : Operator(spec), dtype_(Arg<DType>("dtype")), layout_(Arg<std::string>("layout")),
        sequence_axis_(Arg<std::string>("sequence_axis_name")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    const auto shapes = PerSampleListArg<int64_t>(ws, "shape");
    const bool chunked = HasArg("chunk_offsets") || HasArg("chunk_sizes");
    const auto offsets = HasArg("chunk_offsets") ? PerSampleListArg<int64_t>(ws, "chunk_offsets")
                                                 : std::vector<std::vector<int64_t>>(static_cast<size_t>(n));
    const auto sizes = HasArg("chunk_sizes") ? PerSampleListArg<int64_t>(ws, "chunk_sizes")
                                             : std::vector<std::vector<int64_t>>(static_cast<size_t>(n));
    chunks_.assign(static_cast<size_t>(n), {});
    OutputDesc d;
    d.dtype = dtype_;
    for (int i = 0; i < n; ++i) {
      if (in.shape(i).ndim() != 1)
        throw Error("input sample " + std::to_string(i) + " must be 1-D compressed bytes, got shape " + in.shape(i).ToString());
      for (int64_t e : shapes[static_cast<size_t>(i)])
        if (e < 0) ThrowArgError("shape", "sample " + std::to_string(i) + ": negative extent " + std::to_string(e));
      const int64_t bytes = in.shape(i).num_elements();
      auto& c = chunks_[static_cast<size_t>(i)];
      if (!chunked) {
        c.push_back({0, bytes});
      } else {
        c = Chunks(offsets[static_cast<size_t>(i)], sizes[static_cast<size_t>(i)], bytes, i);
      }
      TensorShape s(shapes[static_cast<size_t>(i)]);
      if (chunked) {
        std::vector<int64_t> dims{static_cast<int64_t>(c.size())};
        dims.insert(dims.end(), s.dims().begin(), s.dims().end());
        s = TensorShape(dims);
      }
      d.shapes.push_back(s);
    }
    if (!layout_.empty()) {
      const size_t rank = shapes.empty() ? 0 : shapes[0].size();
      if (layout_.size() != rank)
        ThrowArgError("layout", "'" + layout_ + "' has " + std::to_string(layout_.size()) + " dimensions, `shape` " +
                                    std::to_string(rank));
      d.layout = chunked ? sequence_axis_ + layout_ : layout_;
    }
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const auto& c = chunks_[static_cast<size_t>(i)];
    const size_t chunk_bytes = c.empty() ? 0 : out.sample_bytes(i) / c.size();
    const auto* src = in.sample<uint8_t>(i);
    auto* dst = static_cast<uint8_t*>(out.raw_mutable_sample(i));
    for (size_t k = 0; k < c.size(); ++k) {
      try {
        kernels::InflateLz4Block(src + c[k].offset, static_cast<size_t>(c[k].size), dst + k * chunk_bytes, chunk_bytes);
      } catch (const Error& e) {
        if (c.size() == 1) throw;
        throw Error("chunk " + std::to_string(k) + " (bytes " + std::to_string(c[k].offset) + ".." +
                    std::to_string(c[k].offset + c[k].size) + "): " + e.message());
      }
    }
    out.source(i) = in.source(i);
  }

 private:
  // DALI's rules: offsets alone -> each chunk runs to the next offset (the last to the sample's end);
  // sizes alone -> densely packed from 0; both -> as given. Every chunk must lie inside the sample.
  std::vector<Chunk> Chunks(const std::vector<int64_t>& offsets, const std::vector<int64_t>& sizes, int64_t bytes,
                            int i) const {
    const std::string where = "sample " + std::to_string(i) + ": ";
    if (!offsets.empty() && !sizes.empty() && offsets.size() != sizes.size())
      ThrowArgError("chunk_sizes", where + std::to_string(sizes.size()) + " sizes for " + std::to_string(offsets.size()) +
                                       " chunk_offsets");
    std::vector<Chunk> c(std::max(offsets.size(), sizes.size()));
    int64_t next = 0;
    for (size_t k = 0; k < c.size(); ++k) {
      c[k].offset = offsets.empty() ? next : offsets[k];
      c[k].size = !sizes.empty() ? sizes[k] : (k + 1 < offsets.size() ? offsets[k + 1] : bytes) - c[k].offset;
      next = c[k].offset + c[k].size;
      if (c[k].offset < 0 || c[k].size < 0 || next > bytes)
        ThrowArgError(sizes.empty() ? "chunk_offsets" : "chunk_sizes",
                      where + "chunk " + std::to_string(k) + " spans bytes " + std::to_string(c[k].offset) + ".." +
                          std::to_string(next) + " of a sample of " + std::to_string(bytes) + " bytes");
    }
    return c;
  }

  DType dtype_;
  std::string layout_, sequence_axis_;
  std::vector<std::vector<Chunk>> chunks_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterInflate) {
  r.Register(OpSchema("decoders.inflate")
                 .Doc("Decompresses LZ4 blocks into tensors of the given shape and dtype (DALI's decoders.inflate, which "
                      "DALI runs on the GPU only). Each input sample is one block, or with chunk_offsets/chunk_sizes several "
                      "blocks of one inflated shape each, stacked along a new outer axis (sequence_axis_name).")
                 .Input("input", "Compressed bytes, one 1-D uint8 tensor per sample.", {DType::kUInt8})
                 .Output("output", "The inflated tensors.")
                 .Arg("shape", ArgType::kIntList, std::nullopt, "The shape of one inflated sample (or chunk).", true)
                 .Arg("dtype", ArgType::kDType, std::string("uint8"), "The inflated data's type.")
                 .Arg("algorithm", ArgType::kString, std::string("LZ4"), "Only LZ4 (the raw block format).")
                 .Enum({"LZ4"})
                 .Arg("chunk_offsets", ArgType::kIntList, std::vector<int64_t>{},
                      "Where each chunk starts in the sample; without chunk_sizes the chunks are packed, the last running "
                      "to the sample's end.", true)
                 .Arg("chunk_sizes", ArgType::kIntList, std::vector<int64_t>{},
                      "The compressed size of each chunk; without chunk_offsets the chunks are packed from the start.", true)
                 .Arg("layout", ArgType::kString, std::string(""), "Layout of the inflated sample (or chunk).")
                 .Arg("sequence_axis_name", ArgType::kString, std::string("F"),
                      "Name of the outer axis added for chunked samples, when `layout` is given.")
                 .Arg("check_output_size", ArgType::kBool, false,
                      "Accepted for compatibility: the CPU decoder always checks that each block inflates to exactly the "
                      "requested size.")
                 .Factory("cpu", MakeFactory<Inflate>()));
}

}  // namespace sluice
