"""Loads the example operator library built against the installed package into the build tree's
Python module and runs its operator (run by tests/install/run_install_test.cmake)."""
import sys

import numpy as np

import sluice
from sluice import fn, plugin_manager

assert plugin_manager.load_library(sys.argv[1]) == ["custom.invert"]
image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
pipe = sluice.Pipeline(batch_size=1, num_threads=2, device_id=None)
with pipe:
    pipe.set_outputs(fn.custom.invert(fn.external_source(source=lambda: [image], layout="HWC"), max=20))
pipe.build()
out, = pipe.run()
np.testing.assert_array_equal(np.array(out.at(0)), np.clip(20 - image.astype(int), 0, None).astype(np.uint8))
assert out.layout() == "HWC"
print("load_operator_library: OK")
