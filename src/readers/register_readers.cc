// Registration of the readers (readers.file, readers.webdataset).
#include "operators/registry.h"
#include "readers/file_reader.h"
#include "readers/webdataset_reader.h"

namespace sluice {

void RegisterReaderOperators(OperatorRegistry& r) {
  RegisterFileReader(r);
  RegisterWebdatasetReader(r);
}

}  // namespace sluice
