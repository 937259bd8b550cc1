// The TFRecord index writer (DALI's tfrecord2idx format: "offset size\n" per record), for
// sluice.tfrecord.write_index and `sluice tfrecord2idx`. Checks every record's CRCs while it scans.
// Registered by module.cc calling BindTfRecordIndex(m) (declared here until bindings.h lists it).
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "readers/storage/storage.h"
#include "readers/tfrecord_format.h"

namespace sluice::python {


namespace {

nb::bytes TfRecordIndex(const std::string& path, bool check_data) {
  std::string text;
  {
    nb::gil_scoped_release release;
    const std::unique_ptr<ByteSource> file = OpenByteSource(path, /*use_mmap=*/false, /*read_ahead=*/false);
    text = WriteTfRecordIndex(ScanTfRecords(*file, check_data));
  }
  return nb::bytes(text.data(), text.size());
}

}  // namespace

void BindTfRecordIndex(nb::module_& m) {
  m.def("tfrecord_index", &TfRecordIndex, nb::arg("path"), nb::arg("check_data") = true,
        "The index of a TFRecord file in DALI's tfrecord2idx format (\"offset size\\n\" per record), as bytes. "
        "Raises SluiceError naming the file and byte offset for a bad CRC or a truncated record.");
}

}  // namespace sluice::python
