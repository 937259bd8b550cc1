// Batch: a shared-ownership, read-only view of one pipeline output. Samples are exported as
// nanobind ndarrays (buffer protocol + DLPack) whose owner keeps a copy of the Batch, so the
// buffers live as long as any exported view does.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sluice/pipeline.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "bindings.h"

namespace sluice::python {
namespace {

// array_api: a nanobind.nb_ndarray, which has the buffer protocol and __dlpack__.
using ROArray = nb::ndarray<nb::ro, nb::array_api>;

void CheckIndex(const Batch& b, int i) {
  if (i < 0 || i >= b.num_samples())
    throw nb::index_error(("sample index " + std::to_string(i) + " out of range for a batch of " +
                           std::to_string(b.num_samples()))
                              .c_str());
}

// The owner of every exported view: a copy of the Batch and, for a GPU view handed to a consumer
// stream, that stream. When the consumer frees its tensor (work reading it may still be queued on
// its stream), the pipeline's next writes into the buffer are made to wait for that stream.
struct ViewOwner {
  Batch batch;
  std::optional<uintptr_t> release_stream;
};

nb::capsule Owner(const Batch& b, std::optional<uintptr_t> release_stream) {
  return nb::capsule(new ViewOwner{b, release_stream}, [](void* p) noexcept {
    std::unique_ptr<ViewOwner> owner(static_cast<ViewOwner*>(p));
    if (owner->release_stream) {
      try {
        owner->batch.ReleaseOn(reinterpret_cast<void*>(*owner->release_stream));
      } catch (...) {  // CUDA already torn down (interpreter exit): nothing left to order
      }
    }
  });
}

// `device_id`: the CUDA device of a "gpu" batch (the pipeline's device_id); ignored on the host.
ROArray View(const Batch& b, const void* data, const std::vector<size_t>& shape, int device_id,
             std::optional<uintptr_t> release_stream) {
  const bool gpu = b.device() == "gpu";
  return ROArray(data, shape.size(), shape.data(), Owner(b, gpu ? release_stream : std::nullopt), nullptr,
                 ToDLPack(b.dtype()), gpu ? nb::device::cuda::value : nb::device::cpu::value, gpu ? device_id : 0);
}

std::vector<size_t> Dims(const TensorShape& s) { return {s.dims().begin(), s.dims().end()}; }

nb::tuple ShapeTuple(const TensorShape& s) {
  nb::list l;
  for (int64_t d : s.dims()) l.append(d);
  return nb::tuple(l);
}

}  // namespace

void BindBatch(nb::module_& m) {
  nb::class_<SourceInfo>(m, "SourceInfo")
      .def_ro("path", &SourceInfo::path)
      .def_ro("member", &SourceInfo::member)
      .def_ro("offset", &SourceInfo::offset)
      .def("__str__", &SourceInfo::ToString)
      .def("__repr__", [](const SourceInfo& s) { return "SourceInfo('" + s.ToString() + "')"; });

  nb::class_<Batch>(m, "Batch")
      .def("__len__", &Batch::num_samples)
      .def_prop_ro("num_samples", &Batch::num_samples)
      .def_prop_ro("dtype", [](const Batch& b) { return std::string(ToString(b.dtype())); })
      .def_prop_ro("layout", &Batch::layout)
      .def_prop_ro("device", &Batch::device)
      .def("shape", [](const Batch& b, int i) { CheckIndex(b, i); return ShapeTuple(b.shape(i)); })
      .def("shapes", [](const Batch& b) {
        nb::list l;
        for (const auto& s : b.shapes()) l.append(ShapeTuple(s));
        return l;
      })
      .def("nbytes", [](const Batch& b, int i) { CheckIndex(b, i); return b.nbytes(i); })
      .def("source", [](const Batch& b, int i) { CheckIndex(b, i); return b.source(i); })
      .def("is_dense", &Batch::is_dense)
      .def("is_contiguous", &Batch::is_contiguous)
      .def("is_single_tensor", &Batch::is_single_tensor)
      .def_prop_ro("device_id", &Batch::device_id)
      .def("wait_on", [](const Batch& b, uintptr_t stream) { b.WaitOn(reinterpret_cast<void*>(stream)); },
           nb::arg("stream"), nb::call_guard<nb::gil_scoped_release>(),
           "Makes a CUDA stream (a handle; 1 and 2: the legacy and per-thread default streams) wait for "
           "this GPU batch, without blocking the host.")
      .def("synchronize", &Batch::Synchronize, nb::call_guard<nb::gil_scoped_release>(),
           "Blocks until this GPU batch is complete.")
      .def("to_host", &Batch::ToHost, nb::call_guard<nb::gil_scoped_release>(),
           "A host copy of a GPU batch (the batch itself for a CPU batch); waits for the batch.")
      .def("sample", [](const Batch& b, int i, int device_id, std::optional<uintptr_t> release_stream) {
        CheckIndex(b, i);
        return View(b, b.data(i), Dims(b.shape(i)), device_id, release_stream);
      }, nb::arg("i"), nb::arg("device_id") = 0, nb::arg("release_stream") = nb::none(),
         "Zero-copy read-only view of sample i. For a GPU batch read on `release_stream`, the "
         "pipeline's later writes into the buffer wait for that stream once the view is freed.")
      .def("single_tensor", [](const Batch& b, int device_id, std::optional<uintptr_t> release_stream) {
        if (!b.is_single_tensor()) throw nb::value_error("the batch is not one contiguous tensor");
        std::vector<size_t> dims{static_cast<size_t>(b.num_samples())};
        if (b.num_samples() > 0) {
          auto s = Dims(b.shape(0));
          dims.insert(dims.end(), s.begin(), s.end());
        }
        return View(b, b.num_samples() ? b.data(0) : nullptr, dims, device_id, release_stream);
      }, nb::arg("device_id") = 0, nb::arg("release_stream") = nb::none(), "Zero-copy read-only (N, ...) view of a batch for which is_single_tensor() holds.");
}

}  // namespace sluice::python
