#!/usr/bin/env python3
"""Records real DALI's outputs for the cases in python/tests/dali_goldens/*_cases.py, so that the tests
compare Sluice with DALI itself without DALI installed (python/tests/test_dali_goldens_*.py).

Run with a Python that has DALI 2.4 (CPU mode needs no GPU; the wheel is on PyPI, ~420 MB):

    python3 -m venv --system-site-packages /tmp/dali-venv
    /tmp/dali-venv/bin/pip install nvidia-dali-cuda120==2.4.0 "numpy<2" optree makefun astunparse gast libcst nvtx
    /tmp/dali-venv/bin/python scripts/record_dali_goldens.py audio

Writes python/tests/dali_goldens/<family>.npz: the inputs ("input/<i>"), and each case's outputs
("<case>/<output>/<sample>"), plus "dali_version".
"""
import argparse
import importlib.util
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDENS = os.path.join(ROOT, "python", "tests", "dali_goldens")


def load_cases(family):
    spec = importlib.util.spec_from_file_location(f"{family}_cases", os.path.join(GOLDENS, f"{family}_cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_case(fn, types, Pipeline, build, inputs, layout=None):
    pipe = Pipeline(batch_size=len(inputs), num_threads=1, device_id=None, seed=7)
    with pipe:
        outs = build(fn, types, fn.external_source(source=lambda: list(inputs), batch=True, layout=layout))
        pipe.set_outputs(*outs)
    pipe.build()
    return [[np.array(t[i]) for i in range(len(inputs))] for t in pipe.run()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("family", choices=["audio", "image", "tensor", "detection"])
    args = ap.parse_args()
    import nvidia.dali
    from nvidia.dali import Pipeline, fn, types

    cases = load_cases(args.family)
    record = {"dali_version": np.array(nvidia.dali.__version__)}
    if args.family == "detection":
        xs = cases.inputs()
        for i, x in enumerate(xs):
            record[f"input/{i}"] = x
        for name, build in cases.CASES.items():
            record_outputs(record, name, run_case(fn, types, Pipeline, build, xs))
        save(args.family, record, nvidia.dali.__version__)
        return
    if args.family == "tensor":
        import nvidia.dali.math as math

        xs = cases.inputs()
        for i, x in enumerate(xs):
            record[f"input/{i}"] = x
        for name, build in cases.CASES.items():
            try:
                record_outputs(record, name, run_case(fn, types, Pipeline, lambda f, t, x: build(f, t, math, x), xs))
            except Exception as e:
                record[f"{name}/error"] = np.array(str(e)[-1500:])
                print(f"{name}: DALI error {e}"[:600], file=sys.stderr)
        save(args.family, record, nvidia.dali.__version__)
        return
    if args.family == "image":
        record_images(cases, record, fn, types, Pipeline)
        save(args.family, record, nvidia.dali.__version__)
        return
    sig = cases.signals()
    for i, x in enumerate(sig):
        record[f"input/{i}"] = x
    encoded = [np.fromfile(os.path.join(ROOT, "fuzz", "audio_seeds", f), dtype=np.uint8) for f in cases.ENCODED_FILES]
    arrays = cases.arrays()
    for kind, values in arrays.items():
        for i, a in enumerate(values):
            record[f"array/{kind}/{i}"] = a
    for name, (kind, layout, build) in cases.ARRAY_CASES.items():
        outs = run_case(fn, types, Pipeline, build, arrays[kind], layout)
        for o, samples in enumerate(outs):
            for s, value in enumerate(samples):
                record[f"{name}/{o}/{s}"] = value
        print(f"{name}: {len(outs)} outputs", file=sys.stderr)
    for groups, inputs in ((cases.SIGNAL_CASES, sig), (cases.ENCODED_CASES, encoded)):
        for name, build in groups.items():
            outs = run_case(fn, types, Pipeline, build, inputs)
            for o, samples in enumerate(outs):
                for s, value in enumerate(samples):
                    record[f"{name}/{o}/{s}"] = value
            print(f"{name}: {len(outs)} outputs", file=sys.stderr)
    save(args.family, record, nvidia.dali.__version__)


def record_outputs(record, name, outs):
    for o, samples in enumerate(outs):
        for s, value in enumerate(samples):
            record[f"{name}/{o}/{s}"] = value
    print(f"{name}: {len(outs)} outputs", file=sys.stderr)


def record_images(cases, record, fn, types, Pipeline):
    """The inputs are the lossless files decoded by DALI (any decoder gives these pixels); each
    decoder case runs on the encoded files, each pixel case on the stored arrays (layout HWC)."""
    images = os.path.join(ROOT, "tests", "data", "images")
    encoded = [np.fromfile(os.path.join(images, f), dtype=np.uint8) for f in cases.IMAGE_FILES]
    lossless = [np.fromfile(os.path.join(images, f), dtype=np.uint8) for f in cases.PIXEL_FILES]
    pixels = run_case(fn, types, Pipeline, lambda fn, types, x: [fn.decoders.image(x, output_type=types.RGB)],
                      lossless)[0]
    for i, p in enumerate(pixels):
        record[f"input/{i}"] = p
    for name, build in cases.PIXEL_CASES.items():
        try:
            record_outputs(record, name, run_case(fn, types, Pipeline, build, pixels, "HWC"))
        except Exception as e:  # a case DALI rejects is recorded as its error, and compared as such
            record[f"{name}/error"] = np.array(str(e).splitlines()[0][:300])
            print(f"{name}: DALI error {e}"[:300], file=sys.stderr)
    for name, build in cases.DECODER_CASES.items():
        record_outputs(record, name, run_case(fn, types, Pipeline, build, encoded))


def save(family, record, version):
    path = os.path.join(GOLDENS, f"{family}.npz")
    np.savez_compressed(path, **record)
    print(f"wrote {path} ({os.path.getsize(path) // 1024} KiB) with DALI {version}")


if __name__ == "__main__":
    main()
