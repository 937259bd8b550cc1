// Registration of the readers (readers.file, readers.webdataset).
#include "operators/registry.h"

namespace sluice {

void RegisterReaderOperators(OperatorRegistry& r) { (void)r; }

}  // namespace sluice
