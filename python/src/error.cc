// sluice::Error -> sluice.SluiceError (defined in python/sluice/errors.py), keeping the context
// fields as attributes: op, argument, source, sample, iteration, and message (without context).
// A CallError (an operator call rejected where it is made) -> sluice.ArgumentError, a SluiceError.
#include <nanobind/stl/string.h>

#include <sluice/error.h>

#include "bindings.h"

namespace sluice::python {

void BindError(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    auto raise = [](const Error& e, const char* type) {
      const Error::Context& c = e.context();
      nb::object cls = nb::module_::import_("sluice.errors").attr(type);
      nb::object exc = cls(e.what(), nb::arg("op") = c.op, nb::arg("argument") = c.argument,
                           nb::arg("source") = c.source, nb::arg("sample") = c.sample,
                           nb::arg("iteration") = c.iteration, nb::arg("message") = e.message());
      PyErr_SetObject(cls.ptr(), exc.ptr());
    };
    try {
      std::rethrow_exception(p);
    } catch (const CallError& e) {
      raise(e, "ArgumentError");
    } catch (const Error& e) {
      raise(e, "SluiceError");
    }
  });
  (void)m;
}

}  // namespace sluice::python
