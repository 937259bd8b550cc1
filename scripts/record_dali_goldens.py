#!/usr/bin/env python3
"""Records real DALI's outputs for the cases in python/tests/dali_goldens/*_cases.py, so that the tests
compare Sluice with DALI itself without DALI installed (python/tests/test_dali_goldens_*.py).

Run with a Python that has DALI 2.4 (CPU mode needs no GPU; the wheel is on PyPI, ~420 MB):

    python3 -m venv --system-site-packages /tmp/dali-venv
    /tmp/dali-venv/bin/pip install nvidia-dali-cuda120==2.4.0 "numpy<2" optree makefun astunparse gast libcst nvtx
    /tmp/dali-venv/bin/python scripts/record_dali_goldens.py audio

The `plugins` family also needs PyTorch and Numba importable by that Python: `--extra-path DIR`
(repeatable) appends their directories to sys.path, after DALI's venv (PYTHONPATH would put them
first and mix another NumPy/cffi into DALI's), e.g.

    /tmp/dali-venv/bin/python scripts/record_dali_goldens.py plugins \
        --extra-path .venv/lib/python3.11/site-packages --extra-path /usr/lib/python3/dist-packages

Writes python/tests/dali_goldens/<family>.npz: the inputs ("input/<i>"), and each case's outputs
("<case>/<output>/<sample>"), plus "dali_version". The `names` family writes dali_goldens/ops_names.tsv
instead: every DALI operator's fn and ops names; the `schema` family writes dali_goldens/dali_cpu_schema.json:
every CPU operator's arguments (the list scripts/gen_golden_coverage.py measures the goldens against).
"""
import json
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
    ap.add_argument("family", help="audio, image, tensor, detection, plugins, video, names, schema, or a coverage "
                    "family cov_<name> (dali_goldens/cov_<name>_cases.py)")
    ap.add_argument("--extra-path", action="append", default=[],
                    help="a directory appended to sys.path (where PyTorch and Numba are, for `plugins`)")
    args = ap.parse_args()
    sys.path.extend(os.path.abspath(p) for p in args.extra_path)
    import nvidia.dali
    from nvidia.dali import Pipeline, fn, types

    if args.family == "names":
        record_names(nvidia.dali)
        return
    if args.family == "schema":
        record_cpu_schema(nvidia.dali)
        return
    cases = load_cases(args.family)
    record = {"dali_version": np.array(nvidia.dali.__version__)}
    if args.family.startswith("cov_"):
        record_coverage(cases, record, fn, types, Pipeline)
        save(args.family, record, nvidia.dali.__version__)
        return
    if args.family == "detection":
        record_detection(cases, record, fn, types, Pipeline)
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
    if args.family == "plugins":
        record_plugins(cases, record, fn, types, Pipeline)
        save(args.family, record, nvidia.dali.__version__)
        return
    if args.family == "video":
        record_video(cases, record, fn, types, Pipeline)
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


def record_detection(cases, record, fn, types, Pipeline):
    """The box cases on the stored boxes; the decoder cases on ENCODED_FILES; the reader cases on the
    COCO set write_coco writes (to a temporary directory: the test writes its own, the same)."""
    import tempfile

    xs = cases.inputs()
    for i, x in enumerate(xs):
        record[f"input/{i}"] = x
    for name, build in cases.CASES.items():
        record_outputs(record, name, run_case(fn, types, Pipeline, build, xs))
    images = os.path.join(ROOT, "tests", "data", "images")
    encoded = [np.fromfile(os.path.join(images, f), dtype=np.uint8) for f in cases.ENCODED_FILES]
    for name, build in cases.DECODER_CASES.items():
        try:
            record_outputs(record, name, run_case(fn, types, Pipeline, build, encoded))
        except Exception as e:  # a case DALI rejects is recorded as its error, and compared as such
            lines = [ln for ln in str(e).splitlines() if ln.strip() and "Critical error" not in ln]
            record[f"{name}/error"] = np.array(next((ln for ln in lines if "not valid" in ln), lines[0] if lines else str(e))[:300])
            print(f"{name}: DALI error {record[f'{name}/error']}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as root:
        cases.write_coco(root)
        for name, build in cases.READER_CASES.items():
            pipe = Pipeline(batch_size=cases.COCO_IMAGES, num_threads=1, device_id=None, seed=7)
            with pipe:
                pipe.set_outputs(*build(fn, root))
            pipe.build()
            record_outputs(record, name, [[np.array(t[i]) for i in range(cases.COCO_IMAGES)] for t in pipe.run()])


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


def record_coverage(cases, record, fn, types, Pipeline):
    """A coverage family: inputs() gives {kind: (layout, [arrays])}, stored as "input/<kind>/<i>";
    CASES {name: (kind, build)} runs build(fn, types, x) on that kind's batch fed by external_source
    (kind None: no input, x is None, batch size cases.BATCH). A case DALI rejects is recorded as its error."""
    kinds = cases.inputs()
    for kind, (_, arrays) in kinds.items():
        for i, a in enumerate(arrays):
            record[f"input/{kind}/{i}"] = a
    for name, (kind, build) in cases.CASES.items():
        try:
            if kind is None:
                pipe = Pipeline(batch_size=cases.BATCH, num_threads=1, device_id=None, seed=7)
                with pipe:
                    pipe.set_outputs(*build(fn, types, None))
                pipe.build()
                outs = [[np.array(t[i]) for i in range(cases.BATCH)] for t in pipe.run()]
            else:
                layout, arrays = kinds[kind]
                outs = run_case(fn, types, Pipeline, build, arrays, layout)
            record_outputs(record, name, outs)
        except Exception as e:
            message = [line for line in str(e).splitlines() if line.strip() and "no longer valid" not in line
                       and not line.startswith("C++ context")]
            record[f"{name}/error"] = np.array(message[-1][:300] if message else type(e).__name__)
            print(f"{name}: DALI error {record[f'{name}/error']}", file=sys.stderr)


def record_video(cases, record, fn, types, Pipeline):
    """The videos are encoded here (cases.make_videos) and stored as the inputs; decoder cases run DALI's
    CPU decoders.video on one video's bytes, reader cases DALI's CPU experimental.readers.video over one
    epoch (batch_size 1, in order), each clip's outputs recorded as "<case>/<output>/<clip>"."""
    import tempfile

    videos = cases.make_videos()
    for name, data in videos.items():
        record[f"input/{name}"] = np.frombuffer(data, np.uint8)
    for name, (video, kw) in cases.DECODER_CASES.items():
        data = np.frombuffer(videos[video], np.uint8)
        record_outputs(record, name, run_case(fn, None, Pipeline,
                                              lambda fn, types, x: [fn.experimental.decoders.video(x, **kw)], [data]))
    with tempfile.TemporaryDirectory() as folder:
        for name, kw in cases.READER_CASES.items():
            kw = cases.materialize(kw, videos, folder)
            if "image_type" in kw:  # the cases name it; DALI takes its enum
                kw["image_type"] = getattr(types, kw["image_type"])
            pipe = Pipeline(batch_size=1, num_threads=1, device_id=None, seed=7)
            with pipe:
                outs = fn.experimental.readers.video(device="cpu", name="Reader", **kw)
                pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
            try:
                pipe.build()
                clips = pipe.epoch_size("Reader")
                for c in range(clips):
                    for o, t in enumerate(pipe.run()):
                        value = np.array(t[0])  # the frames of a range case: their shape only
                        record[f"{name}/{o}/{c}"] = np.array(value.shape) if o == 0 and name in cases.SHAPE_ONLY else value
                record[f"{name}/clips"] = np.array(clips)
                print(f"{name}: {clips} clips", file=sys.stderr)
            except RuntimeError as e:  # recorded, and compared as such
                record[f"{name}/error"] = np.array(str(e)[-600:])
                print(f"{name}: DALI error {e}"[-400:], file=sys.stderr)


def record_plugins(cases, record, fn, types, Pipeline):
    """The lossless files decoded by DALI are the inputs; each case runs DALI's plugin functions on them."""
    import nvidia.dali.plugin.numba
    import nvidia.dali.plugin.pytorch
    import torch

    if not torch.cuda.is_available():
        # DALI's TorchPythonFunction makes a CUDA stream when called, also for device="cpu", where it
        # never uses it; a torch without CUDA cannot make one, so it gets a placeholder here.
        torch.cuda.Stream = lambda *args, **kwargs: None

    class plugins:
        dl_tensor_python_function = fn.dl_tensor_python_function
        torch_python_function = nvidia.dali.plugin.pytorch.fn.torch_python_function
        numba_function = nvidia.dali.plugin.numba.fn.experimental.numba_function

    images = os.path.join(ROOT, "tests", "data", "images")
    lossless = [np.fromfile(os.path.join(images, f), dtype=np.uint8) for f in cases.PIXEL_FILES]
    pixels = run_case(fn, types, Pipeline, lambda fn, types, x: [fn.decoders.image(x, output_type=types.RGB)],
                      lossless)[0]
    for i, p in enumerate(pixels):
        record[f"input/{i}"] = p
    for name, build in cases.CASES.items():
        record_outputs(record, name, run_case(fn, types, Pipeline, lambda f, t, x: build(f, t, plugins, x),
                                              pixels, "HWC"))


def record_names(dali):
    """dali_goldens/ops_names.tsv: every operator DALI registers (CPU, GPU or mixed), as its fn name,
    its ops class name (module path included) and whether it is deprecated, from DALI's schemas
    (test_ops_class_names.py compares sluice.fn and sluice.ops with it)."""
    from nvidia.dali import backend as b
    from nvidia.dali.ops._names import _op_name

    schemas = sorted(set(b.RegisteredCPUOps()) | set(b.RegisteredGPUOps()) | set(b.RegisteredMixedOps()))
    rows = []
    for s in schemas:
        if s.startswith("_"):
            continue
        backends = "".join(k for k, reg in (("c", b.RegisteredCPUOps()), ("g", b.RegisteredGPUOps()),
                                            ("m", b.RegisteredMixedOps())) if s in reg)
        rows.append(f"{_op_name(s, 'fn')}\t{_op_name(s, 'ops')}\t{int(b.GetSchema(s).IsDeprecated())}\t{backends}")
    path = os.path.join(GOLDENS, "ops_names.tsv")
    with open(path, "w") as f:
        f.write(f"# fn name, ops class name, deprecated, backends (c: CPU, g: GPU, m: mixed); DALI {dali.__version__}\n")
        f.write("\n".join(rows) + "\n")
    print(f"wrote {path} ({len(rows)} operators) with DALI {dali.__version__}")


def record_cpu_schema(dali):
    """dali_goldens/dali_cpu_schema.json: every operator DALI runs on the CPU (internal ones, named
    with a leading underscore, left out), by fn name: its schema name, whether it is deprecated (and
    in favour of which fn name), its inputs' layouts, whether it takes sequences and volumes, and each
    argument's type, default (DALI's string for it, null when it has none), whether it may be a
    tensor and, for deprecated arguments, what replaced them. Checked in so that the golden coverage
    table (scripts/gen_golden_coverage.py) is computed without DALI."""
    from nvidia.dali import backend as b
    from nvidia.dali.ops._names import _op_name

    ops = {}
    for s in sorted(n for n in b.RegisteredCPUOps() if not n.startswith("_")):
        sc = b.GetSchema(s)
        args = {}
        for a in sc.GetArgumentNames():
            info = sc.DeprecatedArgInfo(a) if sc.IsDeprecatedArg(a) else None
            args[a] = {"type": str(sc.GetArgumentType(a)).replace("DALIDataType.", ""),
                       "default": sc.GetArgumentDefaultValueString(a) if sc.HasArgumentDefaultValue(a) else None,
                       "tensor": bool(sc.IsTensorArgument(a)),
                       "deprecated": None if info is None else {"renamed_to": info["renamed_to"],
                                                                "removed": bool(info["removed"])}}
        favour = sc.DeprecatedInFavorOf() if sc.IsDeprecated() else ""
        ops[_op_name(s, "fn")] = {
            "schema": s, "deprecated": bool(sc.IsDeprecated()),
            "in_favor_of": _op_name(favour, "fn") if favour else "",
            "layouts": [[str(layout) for layout in sc.GetSupportedLayouts(i)] for i in range(sc.MaxNumInput())]
            if sc.MaxNumInput() < 16 else [],
            "sequences": bool(sc.AllowsSequences()), "volumes": bool(sc.SupportsVolumetric()),
            "args": args}
    path = os.path.join(GOLDENS, "dali_cpu_schema.json")
    with open(path, "w") as f:
        json.dump({"dali_version": dali.__version__, "operators": ops}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path} ({len(ops)} operators) with DALI {dali.__version__}")


def save(family, record, version):
    path = os.path.join(GOLDENS, f"{family}.npz")
    np.savez_compressed(path, **record)
    print(f"wrote {path} ({os.path.getsize(path) // 1024} KiB) with DALI {version}")


if __name__ == "__main__":
    main()
