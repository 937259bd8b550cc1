// The WebDataset index writer (DALI's wds2idx v1.2 format) for `sluice wds2idx`
// (python/sluice/tools/cli.py): sluice/dataset_index.h, with a Python progress callback.
#include <nanobind/stl/string.h>

#include <sluice/dataset_index.h>

#include "bindings.h"

namespace sluice::python {
namespace {

nb::bytes WdsIndex(const std::string& tar_path, nb::object progress) {
  // The GIL stays held: `progress` is Python, called every few thousand members.
  std::function<void(int64_t, int64_t)> report;
  if (!progress.is_none()) report = [&progress](int64_t done, int64_t total) { progress(done, total); };
  const std::string text = WebDatasetIndex(tar_path, report);
  return nb::bytes(text.data(), text.size());
}

}  // namespace

void BindWdsIndex(nb::module_& m) {
  m.def("wds_index", &WdsIndex, nb::arg("tar_path"), nb::arg("progress") = nb::none(),
        "The WebDataset index (DALI wds2idx v1.2) of a tar archive, as bytes: the text "
        "tools/sluice_wds2idx.cc writes. Raises SluiceError for an unreadable or malformed archive "
        "or a member name the format cannot represent.");
}

}  // namespace sluice::python
