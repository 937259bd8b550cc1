// sluice::Error -> sluice.SluiceError (defined in python/sluice/errors.py), keeping the context
// fields as attributes: op, argument, source, sample, iteration, and message (without context).
#include <nanobind/stl/string.h>

#include <sluice/error.h>

#include "bindings.h"

namespace sluice::python {

void BindError(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      const Error::Context& c = e.context();
      nb::object cls = nb::module_::import_("sluice.errors").attr("SluiceError");
      nb::object exc = cls(e.what(), nb::arg("op") = c.op, nb::arg("argument") = c.argument,
                           nb::arg("source") = c.source, nb::arg("sample") = c.sample,
                           nb::arg("iteration") = c.iteration, nb::arg("message") = e.message());
      PyErr_SetObject(cls.ptr(), exc.ptr());
    }
  });
  (void)m;
}

}  // namespace sluice::python
