// Registration of the image operators.
#include "operators/registry.h"

namespace sluice {

void RegisterDecoders(OperatorRegistry& r);
void RegisterResize(OperatorRegistry& r);
void RegisterCropMirrorNormalize(OperatorRegistry& r);
void RegisterGeometryOperators(OperatorRegistry& r);

void RegisterImageOperators(OperatorRegistry& r) {
  RegisterDecoders(r);
  RegisterResize(r);
  RegisterCropMirrorNormalize(r);
  RegisterGeometryOperators(r);
}

}  // namespace sluice
