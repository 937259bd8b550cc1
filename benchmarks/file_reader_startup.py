"""Start-up of readers.file at ImageNet scale: the time to build a pipeline holding only
fn.readers.file(file_root=..., shard_id, num_shards, random_shuffle=True) and run its first batch,
and the peak resident memory, over trees of 200,000 and 1,281,000 files in 1,000 class folders.

    PYTHONPATH=python .venv/bin/python benchmarks/file_reader_startup.py [--sizes 200,1281]
        [--root /tmp/sluice_startup_tree] [--repeat 3] [--with-dali --dali-python PY]
        [--baseline PYTHONPATH]

The trees are generated once and kept under --root (delete them with --clean): class folders named
like ImageNet's (n01440764, ...) holding hard links to one real JPEG from sample_data/ named like
n01440764/n01440764_10026.JPEG. Every measurement runs in a fresh subprocess (the page cache is
warm, no Python state is shared) and reports, as medians of --repeat runs: the time from the
pipeline's definition to the end of its first batch (the import is not counted), and the child's
peak RSS (getrusage) after the first batch together with its RSS after the import, so the
difference is what listing the dataset cost. With --with-dali the same pipeline runs with DALI
(CPU only, device_id=None) from --dali-python, interleaved with Sluice's runs; --baseline runs a
second Sluice (another build's sluice package on that PYTHONPATH) the same way, to compare builds.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

CHILD = r"""
import json, resource, sys, time
framework, root, shard_id, num_shards, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
if framework == "dali":
    from nvidia.dali import fn
    from nvidia.dali.pipeline import Pipeline
else:
    from sluice import fn, Pipeline
rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
pipe = Pipeline(batch_size=batch, num_threads=2, device_id=None, seed=1)
with pipe:
    data, label = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards,
                                  random_shuffle=True, name="Reader")
    pipe.set_outputs(data, label)
pipe.build()
t1 = time.perf_counter()
out = pipe.run()
t2 = time.perf_counter()
meta = pipe.reader_meta("Reader")
print(json.dumps({"build_s": t1 - t0, "first_batch_s": t2 - t1, "total_s": t2 - t0,
                  "rss_import_mib": rss_import / 1024,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "epoch_size": meta["epoch_size"], "batch": len(out[0])}))
"""


def sample_jpeg():
    train = os.path.join(REPO, "sample_data", "train")
    for dirpath, _, names in sorted(os.walk(train)):
        for n in sorted(names):
            if n.lower().endswith((".jpg", ".jpeg")):
                return os.path.join(dirpath, n)
    sys.exit(f"no JPEG under {train}: build it with `bash scripts/make_sample_data.sh sample_data`")


def class_names(n):
    # ImageNet-like synset ids: 'n' + 8 digits, distinct, in no particular creation order.
    return [f"n{(1440764 + 7919 * i) % 10**8:08d}" for i in range(n)]


def make_tree(root, per_class, classes, src):
    """root/<per_class>/ with `classes` folders of `per_class` hard links each; cached."""
    tree = os.path.join(root, str(per_class))
    done = os.path.join(root, f"{per_class}.complete")
    if os.path.exists(done):
        return tree
    for old in (tree, os.path.join(root, f"{per_class}.sources")):
        if os.path.exists(old):
            shutil.rmtree(old)
    os.makedirs(tree)
    # ext4 allows 65,000 links to one inode: each run of classes links to its own copy of the JPEG.
    copies = os.path.join(root, f"{per_class}.sources")
    os.makedirs(copies, exist_ok=True)
    classes_per_copy = max(1, 60000 // per_class)
    t = time.perf_counter()
    for i, c in enumerate(class_names(classes)):
        copy = os.path.join(copies, f"{i // classes_per_copy}.jpg")
        if not os.path.exists(copy):
            shutil.copyfile(src, copy)
        d = os.path.join(tree, c)
        os.mkdir(d)
        for j in range(per_class):
            os.link(copy, os.path.join(d, f"{c}_{j * 37 + 10}.JPEG"))
    with open(done, "w") as f:
        f.write(f"{classes * per_class}\n")
    print(f"generated {tree}: {classes} x {per_class} files in {time.perf_counter() - t:.1f} s", flush=True)
    return tree


def run_child(python, framework, tree, shard_id, num_shards, batch, env=None):
    r = subprocess.run([python, "-c", CHILD, framework, tree, str(shard_id), str(num_shards), str(batch)],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{framework} child failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default="/tmp/sluice_startup_tree")
    ap.add_argument("--sizes", default="200,1281", help="files per class, comma separated (1000 classes)")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--shard-id", type=int, default=1)
    ap.add_argument("--num-shards", type=int, default=8)
    ap.add_argument("--with-dali", action="store_true")
    ap.add_argument("--dali-python", default=sys.executable, help="a Python that imports nvidia.dali")
    ap.add_argument("--baseline", help="PYTHONPATH of another Sluice build to compare with")
    ap.add_argument("--clean", action="store_true", help="delete the generated trees and exit")
    args = ap.parse_args()
    if args.clean:
        shutil.rmtree(args.root, ignore_errors=True)
        return
    src = sample_jpeg()
    os.makedirs(args.root, exist_ok=True)
    # (label, python, framework, environment)
    runs = [("sluice", sys.executable, "sluice", None)]
    if args.baseline:
        runs.insert(0, ("baseline", sys.executable, "sluice", dict(os.environ, PYTHONPATH=args.baseline)))
    if args.with_dali:
        runs.append(("dali", args.dali_python, "dali", None))
    print(f"readers.file(random_shuffle=True, shard_id={args.shard_id}, num_shards={args.num_shards}), "
          f"batch {args.batch_size}, medians of {args.repeat} fresh processes")
    for per_class in [int(s) for s in args.sizes.split(",")]:
        tree = make_tree(args.root, per_class, args.classes, src)
        results = {label: [] for label, *_ in runs}
        for _ in range(args.repeat):  # interleaved, so all see the same machine load
            for label, python, framework, env in runs:
                results[label].append(run_child(python, framework, tree, args.shard_id, args.num_shards,
                                                args.batch_size, env))
        n = args.classes * per_class
        for name, measured in results.items():
            med = {k: statistics.median(r[k] for r in measured) for k in measured[0]}
            print(f"{n:>9,} files  {name:<8}  build+first batch {med['total_s']:6.3f} s "
                  f"(build {med['build_s']:.3f} s, first batch {med['first_batch_s']:.3f} s)  "
                  f"peak RSS {med['peak_rss_mib']:7.1f} MiB (after import {med['rss_import_mib']:.1f})  "
                  f"epoch_size {measured[0]['epoch_size']}", flush=True)


if __name__ == "__main__":
    main()
