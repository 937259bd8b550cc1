// Object storage for the Python tools and benchmarks: whole-file reads and writes of local, s3://
// and http(s):// paths (`sluice wds2idx -o s3://...`), and the process-wide request counters
// (requests per sample in benchmarks/object_storage.py). No logic here: sluice/storage.h.
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include <sluice/storage.h>

#include "bindings.h"

namespace sluice::python {

void BindStorage(nb::module_& m) {
  m.def(
      "storage_read",
      [](const std::string& path) {
        std::string data;
        {
          nb::gil_scoped_release release;
          data = storage::ReadFile(path);
        }
        return nb::bytes(data.data(), data.size());
      },
      nb::arg("path"), "The bytes of a local file, s3:// object or http(s):// URL (with retries).");
  m.def(
      "storage_write",
      [](const std::string& path, nb::bytes data) {
        std::string copy(static_cast<const char*>(data.data()), data.size());
        nb::gil_scoped_release release;
        storage::WriteFile(path, copy);
      },
      nb::arg("path"), nb::arg("data"), "Writes a local file or an s3:// object (PUT, with retries).");
  m.def("storage_counters", [] {
    const storage::RequestCounters c = storage::GetRequestCounters();
    return std::map<std::string, int64_t>{{"requests", c.requests}, {"retries", c.retries}, {"bytes", c.bytes}};
  }, "HTTP requests sent (retries included), retries, and body bytes received since the last reset.");
  m.def("reset_storage_counters", &storage::ResetRequestCounters);
  m.def("clear_storage_cache", &storage::ClearBlockCache, "Drops the blocks SLUICE_STORAGE_CACHE_BYTES's cache holds.");
}

}  // namespace sluice::python
