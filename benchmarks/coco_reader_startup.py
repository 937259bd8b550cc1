"""Start-up of readers.coco on an annotation file the size of COCO 2017 train (118,287 images,
860,001 boxes with polygon segmentations, 80 categories, about 450 MB of JSON), side by side with
pycocotools' COCO() load of the same file, and DALI 2.4's readers.coco when --dali-python names a
Python that imports nvidia.dali.

    PYTHONPATH=python .venv/bin/python benchmarks/coco_reader_startup.py [--file /tmp/coco_train_synth.json]
        [--images 118287 --boxes 860001] [--repeat 3] [--dali-python PY]

The file is generated once (seeded; cached at --file): images with COCO's size distribution, per
image a Poisson number of objects (mean 7.3), each a polygon of 8..60 vertices inside its box, 1% of
objects crowd regions with an uncompressed RLE, ids and category ids as sparse as COCO's. Every
measurement runs in a fresh subprocess (warm page cache; the import is not counted):

- sluice:      Pipeline with fn.readers.coco(file_root, annotations_file, polygon_masks=True,
               image_ids=True) built (the reader parses and indexes the file at build; no image is read);
- pycocotools: COCO(annotations_file) (json.load + createIndex).

Reported per contender: the median over --repeat of the seconds to load, and of the peak RSS of the
child (getrusage) minus its RSS after the import, i.e. what loading cost in memory; then the ratios.
The contenders alternate, so load on the shared machine hits both alike.
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, resource, sys, time
who, path = sys.argv[1], sys.argv[2]
if who == "pycocotools":
    from pycocotools.coco import COCO
    import contextlib, io
elif who == "dali":
    from nvidia.dali import fn
    from nvidia.dali.pipeline import Pipeline
else:
    from sluice import fn, Pipeline
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
if who == "pycocotools":
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(path)
    n = len(coco.getImgIds())
else:
    pipe = Pipeline(batch_size=32, num_threads=2, device_id=None, seed=1)
    with pipe:
        outs = fn.readers.coco(file_root="/nonexistent", annotations_file=path, polygon_masks=True, image_ids=True,
                               name="Reader")
        pipe.set_outputs(*outs)
    pipe.build()
    n = pipe.epoch_size("Reader")
t1 = time.perf_counter()
print(json.dumps({"load_s": t1 - t0, "rss_import_mib": rss0 / 1024,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "images": n}))
"""


def generate(path, n_images, n_boxes, seed=0):
    rng = random.Random(seed)
    cats = sorted(rng.sample(range(1, 91), 80))
    images, anns = [], []
    mean = n_boxes / n_images
    ann_id = 1
    for i in range(n_images):
        w, h = rng.choice([(640, 480), (640, 427), (480, 640), (640, 424), (500, 375), (427, 640)])
        image_id = 1 + i * 7 + rng.randrange(7)
        images.append({"license": 1, "file_name": f"{image_id:012d}.jpg", "coco_url": "", "height": h, "width": w,
                       "date_captured": "2013-11-14 11:18:45", "flickr_url": "", "id": image_id})
        # Poisson(mean), Knuth's product of uniforms.
        lam, p, k = math.exp(-mean), 1.0, 0
        while True:
            p *= rng.random()
            if p <= lam:
                break
            k += 1
        for _ in range(k):
            bw, bh = rng.uniform(4, w * 0.6), rng.uniform(4, h * 0.6)
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            if rng.random() < 0.01:
                seg = {"counts": [int(x) * h + int(y), int(bh), h * w - int(x) * h - int(y) - int(bh)], "size": [h, w]}
                crowd = 1
            else:
                nv = rng.randint(8, 60)
                pts = []
                for v in range(nv):
                    a = 2 * math.pi * v / nv
                    pts += [round(x + bw / 2 * (1 + 0.9 * math.cos(a)), 2), round(y + bh / 2 * (1 + 0.9 * math.sin(a)), 2)]
                seg, crowd = [pts], 0
            anns.append({"segmentation": seg, "area": round(bw * bh, 4), "iscrowd": crowd, "image_id": image_id,
                         "bbox": [round(x, 2), round(y, 2), round(bw, 2), round(bh, 2)],
                         "category_id": rng.choice(cats), "id": ann_id})
            ann_id += 1 + rng.randrange(3)
    data = {"info": {"description": "synthetic COCO-2017-train-sized annotations"}, "licenses": [],
            "images": images, "annotations": anns,
            "categories": [{"supercategory": "x", "id": c, "name": f"c{c}"} for c in cats]}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    os.replace(tmp, path)
    return len(images), len(anns)


def run_child(python, who, path, env=None):
    r = subprocess.run([python, "-c", CHILD, who, path], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{who} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", default="/tmp/coco_train_synth.json")
    ap.add_argument("--images", type=int, default=118287)
    ap.add_argument("--boxes", type=int, default=860001)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dali-python", help="a Python that imports nvidia.dali (DALI 2.4) to run as a third contender")
    a = ap.parse_args()
    if not os.path.exists(a.file):
        t = time.perf_counter()
        ni, nb = generate(a.file, a.images, a.boxes)
        print(f"generated {a.file}: {ni} images, {nb} annotations, {os.path.getsize(a.file) / 2**20:.0f} MiB "
              f"in {time.perf_counter() - t:.0f} s", flush=True)
    print(f"annotation file {a.file}: {os.path.getsize(a.file) / 2**20:.0f} MiB")
    contenders = [("sluice", sys.executable), ("pycocotools", sys.executable)]
    if a.dali_python:
        contenders.append(("dali", a.dali_python))
    else:
        print("DALI: not measured (no --dali-python; DALI is not installed in this environment)")
    env = {**os.environ, "PYTHONPATH": os.path.join(REPO, "python") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = {who: [] for who, _ in contenders}
    for r in range(a.repeat):
        for who, py in contenders:
            out = run_child(py, who, a.file, env)
            res[who].append(out)
            print(f"  run {r + 1} {who:12s} {out['load_s']:7.2f} s  peak RSS {out['peak_rss_mib']:7.0f} MiB "
                  f"(+{out['peak_rss_mib'] - out['rss_import_mib']:.0f} after import), {out['images']} images", flush=True)
    med = {who: (statistics.median(x["load_s"] for x in v),
                 statistics.median(x["peak_rss_mib"] - x["rss_import_mib"] for x in v)) for who, v in res.items()}
    print("\nmedian over %d runs:" % a.repeat)
    for who, (s, m) in med.items():
        print(f"  {who:12s} load {s:7.2f} s   memory {m:7.0f} MiB")
    s, m = med["sluice"]
    for who, (s2, m2) in med.items():
        if who != "sluice":
            print(f"  sluice vs {who}: {s2 / s:.1f}x faster to load, {m2 / m:.1f}x less memory")


if __name__ == "__main__":
    main()
