// The TFRecord index writer (DALI's tfrecord2idx format: "offset size\n" per record), for
// sluice.tfrecord.write_index and `sluice tfrecord2idx`: sluice/dataset_index.h.
#include <nanobind/stl/string.h>

#include <sluice/dataset_index.h>

#include "bindings.h"

namespace sluice::python {

void BindTfRecordIndex(nb::module_& m) {
  m.def(
      "tfrecord_index",
      [](const std::string& path, bool check_data) {
        std::string text;
        {
          nb::gil_scoped_release release;
          text = TfRecordIndex(path, check_data);
        }
        return nb::bytes(text.data(), text.size());
      },
      nb::arg("path"), nb::arg("check_data") = true,
      "The index of a TFRecord file in DALI's tfrecord2idx format (\"offset size\\n\" per record), as bytes. "
      "Raises SluiceError naming the file and byte offset for a bad CRC or a truncated record.");
}

}  // namespace sluice::python
