// The WebDataset index writer (DALI's wds2idx v1.2 format), as tools/sluice_wds2idx.cc writes it:
// `sluice wds2idx` (python/sluice/tools/cli.py) calls it. Scans headers only; `progress`, when given, is
// called as progress(bytes_scanned, archive_size) every few thousand members and at the end.
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "readers/storage/storage.h"
#include "readers/tar_parser.h"
#include "readers/wds_index.h"

namespace sluice::python {
namespace {

nb::bytes WdsIndex(const std::string& tar_path, nb::object progress) {
  // A local file, or an s3:// / http(s):// object (read in blocks through RemoteSource's cache).
  const std::unique_ptr<ByteSource> source = OpenByteSource(tar_path, /*use_mmap=*/false, /*read_ahead=*/false);
  const ByteSource& tar = *source;
  // ScanTarSamples, one member at a time so that progress can be reported.
  TarReader reader(tar);
  WdsSampleGrouper grouper;
  TarEntry e;
  int64_t members = 0;
  while (reader.Next(&e)) {
    grouper.Add(e);
    if (!progress.is_none() && ++members % 4096 == 0) progress(reader.offset(), tar.size());
  }
  const std::string text = WriteWdsIndex(grouper.samples());
  if (!progress.is_none()) progress(tar.size(), tar.size());
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
