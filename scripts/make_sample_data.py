#!/usr/bin/python3
"""Build Sluice's deterministic ImageNet-like sample dataset from real photographs.

Usage: make_sample_data.py [options] DIR   (normally run through make_sample_data.sh,
which installs the Debian packages below first)

Output, all under DIR:
  train/cNNN/NNNN.jpg   CLASSES x PER_CLASS JPEGs; class c's images are random crops of
                        its own subset of the photos, so the classes are learnable
  file_list.txt         "train/c000/0000.jpg 0" lines (DALI readers.file file_list)
  wds/shard-NNNNN.tar   the same samples as WebDataset shards: KEY.jpg + KEY.cls (class
                        index as ASCII), in a seeded shuffled order, fixed tar headers
  wds/shard-NNNNN.idx   DALI wds2idx v1.2 index beside each shard
  manifest.tsv          path, class, width, height, mode, subsampling, quality,
                        progressive, bytes, sha256 (written last: it marks a complete set)

--hires makes a high-resolution set instead (4 classes x 16 by default): 12-megapixel
photographs as phones and crawls hold them, 4000x3000 (a quarter 3000x4000), JPEG
quality 90..94, 80% 4:2:0, finer grain, no odd files; each is a random crop of one
photo resampled (Lanczos) to that size. Same layout and determinism; about 3 MB per image.

The images look like ImageNet's to a decoder: sides 150..800 px (mean about 404x354),
JPEG quality 95..97, 80% of the RGB files 4:4:4 and the rest 4:2:0, seeded Gaussian
grain so entropy lands at 4-5 bits per pixel (about 4.6, 90 KB per image), and 4% odd
files (grayscale, CMYK, progressive), all plain JPEGs that libjpeg-turbo decodes.
The default 2,000 images take about 25 s on 2 cores.

Determinism: every image is a function of (seed, index) only (per-image seeds come from
SHA-256, never from global random state), so the same seed, options and Debian packages
(python3-pil on libjpeg-turbo, python3-numpy, the photo packages) give byte-identical
files, shards and manifest whatever --jobs is. The fingerprint printed at the end is the
SHA-256 of manifest.tsv, which holds every image's SHA-256.

Only photographs shipped by Debian packages are used; nothing is downloaded here.
"""

import argparse
import hashlib
import io
import math
import os
import random
import shutil
import sys
import tarfile
import time

PROG = "make_sample_data"

# (Debian package, path, sha256 prefix). Real photographs only: the packages' abstract
# gradients and textures (umang, analogpattern) are left out.
_BG = "/usr/share/backgrounds/"
_LX = "/usr/share/lxqt/wallpapers/"
_MATE = "/usr/share/backgrounds/mate/nature/"
PHOTOS = [
    ("lomiri-wallpapers-16.04", _BG + "Bridge_by_Sander_Klootwijk.jpg", "bd86b081f9975e2b"),
    ("lomiri-wallpapers-16.04", _BG + "Dragonfly_by_Bolly.jpg", "af5af17841009732"),
    ("lomiri-wallpapers-16.04", _BG + "Picture_0B_by_freespace.jpg", "c8c0ab18e48d9e04"),
    ("lomiri-wallpapers-16.04", _BG + "Picture_1A_by_freespace.jpg", "89e86af38d04daae"),
    ("lomiri-wallpapers-16.04", _BG + "Wine_by_Jakkub_Mede.jpg", "d2e96e6d4da40dd8"),
    ("lomiri-wallpapers-16.04", _BG + "aitzgorri_by_Aitzol_Berasategi.jpg", "66268e7b48f8854d"),
    ("lomiri-wallpapers-16.04", _BG + "free_by_Peter_Nerlich.jpg", "85a5453c2fed514c"),
    ("lomiri-wallpapers-16.04", _BG + "friends_by_Aitzol_Berasategi.jpg", "cc40e313c74e421e"),
    ("lomiri-wallpapers-16.04", _BG + "greentock_by_Peter_Nerlich.jpg", "e7b20e2db9dcd6e2"),
    ("lomiri-wallpapers-16.04", _BG + "life_by_Aitzol_Berasategi.jpg", "4c119350ead80201"),
    ("lomiri-wallpapers-16.04", _BG + "picosdeeuropa_by_Aitzol_Berasategi.jpg", "414d0072b2f6f2c5"),
    ("lomiri-wallpapers-16.04", _BG + "seeding_by_Clements_Engelhardt.jpg", "a5634d1ab5e41a35"),
    ("lomiri-wallpapers-16.04", _BG + "sunset_by_Aitzol_Berasategi.jpg", "474dab6a4b9f94dc"),
    ("lxqt-themes", _LX + "Butterfly-Kenneth-Wimer.jpg", "c237c26f6f0b18db"),
    ("lxqt-themes", _LX + "Valendas.png", "f2d275c51d116942"),
    ("lxqt-themes", _LX + "after-the-rain.jpg", "e6cb8b3e09b904cc"),
    ("lxqt-themes", _LX + "appleflower.png", "bae8a8eb8274b295"),
    ("lxqt-themes", _LX + "beam.png", "3d199194b048cb79"),
    ("lxqt-themes", _LX + "butterfly.png", "13175434d99075e0"),
    ("lxqt-themes", _LX + "cloud.png", "522dbf79dfaff751"),
    ("lxqt-themes", _LX + "drop.png", "3b726aea9a6f8af3"),
    ("lxqt-themes", _LX + "flowers.png", "3a935d8be4d6c978"),
    ("lxqt-themes", _LX + "fog.jpg", "a8235344ee6b5ab1"),
    ("lxqt-themes", _LX + "this-is-not-windows.jpg", "2d885e0438c0ab24"),
    ("mate-backgrounds", _MATE + "Aqua.jpg", "5c30118205982da4"),
    ("mate-backgrounds", _MATE + "Blinds.jpg", "f7aac0dcc2e06d04"),
    ("mate-backgrounds", _MATE + "Dune.jpg", "8a67c2cb0be8c46b"),
    ("mate-backgrounds", _MATE + "FreshFlower.jpg", "972b0a0c4e5e3fa9"),
    ("mate-backgrounds", _MATE + "Garden.jpg", "d3095ee09d425ef2"),
    ("mate-backgrounds", _MATE + "GreenMeadow.jpg", "8fa0de0aa4089f73"),
    ("mate-backgrounds", _MATE + "LadyBird.jpg", "e35a9a4126ef969c"),
    ("mate-backgrounds", _MATE + "RainDrops.jpg", "3e4ea9671c28c90a"),
    ("mate-backgrounds", _MATE + "Storm.jpg", "77ca53077831d323"),
    ("mate-backgrounds", _MATE + "TwoWings.jpg", "665e5abf8a539907"),
    ("mate-backgrounds", _MATE + "Wood.jpg", "19c78500ac00a622"),
    ("mate-backgrounds", _MATE + "YellowFlower.jpg", "254da96256acb7ad"),
]
PACKAGES = sorted({pkg for pkg, _, _ in PHOTOS})

# Encoding mix. Quality uniform in Q_RANGE; RGB files are 4:4:4 with P_444, else 4:2:0.
Q_RANGE = (95, 97)
P_444 = 0.8
GRAIN = 3.0            # luma grain sigma (0..255 units); chroma grain is GRAIN / 2
MIN_SIDE, MAX_SIDE = 150, 800
# Odd files, as fractions of the set (at least one of each once the set has >= 16 images).
ODD = (("L", 0.015), ("CMYK", 0.010), ("progressive", 0.015))
MANIFEST_HEADER = ("path", "class", "width", "height", "mode", "subsampling", "quality",
                   "progressive", "bytes", "sha256")
OUTPUTS = ("train", "wds", "manifest.tsv", "file_list.txt")
# --hires: 12 MP, as phone photographs (mostly 4:2:0, quality in the low 90s).
HIRES_SIZE = (4000, 3000)
HIRES_Q_RANGE = (90, 94)
HIRES_P_444 = 0.2
HIRES_P_PORTRAIT = 0.25
HIRES_GRAIN = 2.0


def fail(msg):
    sys.exit("%s: error: %s" % (PROG, msg))


def seed_int(*parts):
    """A 256-bit integer seed from the parts; the same on every platform and Python."""
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest(), "big")


def default_jobs():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def parse_args(argv):
    paragraphs = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(
        prog="make_sample_data", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="\n\n".join(paragraphs[:1] + paragraphs[2:]),
        epilog="Defaults: 10 classes x 200 images, 500 samples per shard; --small: "
               "4 x 16 and 20 per shard. Run through scripts/make_sample_data.sh.")
    ap.add_argument("dir", nargs="?", help="output folder (created if missing)")
    ap.add_argument("-c", "--classes", type=int, help="number of classes (default 10)")
    ap.add_argument("-m", "--per-class", type=int, help="images per class (default 200)")
    ap.add_argument("-s", "--seed", default="0", help="seed, any string (default 0)")
    ap.add_argument("-j", "--jobs", type=int, default=default_jobs(),
                    help="worker processes (default: nproc = %(default)s)")
    ap.add_argument("--shard-size", type=int, help="samples per WebDataset shard (default 500)")
    ap.add_argument("--small", action="store_true",
                    help="tiny set for tests: 4 classes x 16, 20 samples per shard")
    ap.add_argument("--hires", action="store_true",
                    help="high-resolution set: 12 MP (4000x3000) photographs, 4 classes x 16 "
                         "and 32 per shard unless given")
    ap.add_argument("--force", action="store_true",
                    help="replace an existing dataset in DIR")
    ap.add_argument("--print-packages", action="store_true",
                    help="print the Debian photo packages needed and exit")
    a = ap.parse_args(argv)
    if a.print_packages:
        return a
    if not a.dir:
        ap.error("missing DIR")
    if a.small and a.hires:
        ap.error("--small and --hires are exclusive")
    small = (4, 16, 20) if a.small else (4, 16, 32) if a.hires else (10, 200, 500)
    a.classes = small[0] if a.classes is None else a.classes
    a.per_class = small[1] if a.per_class is None else a.per_class
    a.shard_size = small[2] if a.shard_size is None else a.shard_size
    for name in ("classes", "per_class", "jobs", "shard_size"):
        if getattr(a, name) < 1:
            ap.error("--%s must be >= 1" % name.replace("_", "-"))
    if a.per_class > 10000 or a.classes > 1000:
        ap.error("at most 1000 classes of 10000 images")
    return a


# ---------------------------------------------------------------- photos and classes

def check_photos():
    """Fails with a clear message when a photo package is missing; returns changed paths."""
    missing = sorted({pkg for pkg, path, _ in PHOTOS if not os.path.isfile(path)})
    if missing:
        fail("the photo package(s) %s are not installed (their photographs are the source "
             "of every image).\nInstall them with scripts/make_sample_data.sh, or: "
             "apt-get install --no-install-recommends %s\n(Only Debian packages are used; "
             "this script downloads nothing else.)" % (", ".join(missing), " ".join(missing)))
    changed = []
    for _, path, sha in PHOTOS:
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest()[:len(sha)] != sha:
                changed.append(path)
    return changed


def class_sources(classes):
    """Per class, a list of (photo index, region index, region count).

    With classes <= photos, class c owns photos c, c + C, c + 2C, ... (disjoint subsets).
    With more classes than photos, classes sharing a photo own different strips of it.
    """
    n = len(PHOTOS)
    if classes <= n:
        return [[(p, 0, 1) for p in range(c, n, classes)] for c in range(classes)]
    regions = -(-classes // n)
    return [[(c % n, c // n, regions)] for c in range(classes)]


def load_photo(i):
    from PIL import Image
    im = Image.open(PHOTOS[i][1])
    im.load()
    return im if im.mode == "RGB" else im.convert("RGB")


# ---------------------------------------------------------------- one sample

def sample_size(rng):
    """An ImageNet-like (width, height): a third have a 500 px long side (Flickr's medium
    size), the rest a log-uniform long side; mostly 4:3 or 3:2, a quarter portrait."""
    if rng.random() < 0.35:
        long_side = 500
    else:
        long_side = round(math.exp(rng.uniform(math.log(170), math.log(MAX_SIDE))))
    u = rng.random()
    if u < 0.5:
        aspect = 4 / 3
    elif u < 0.7:
        aspect = 3 / 2
    elif u < 0.8:
        aspect = 1.0
    elif u < 0.85:
        aspect = 16 / 9
    else:
        aspect = rng.uniform(1.0, 2.0)
    short_side = max(MIN_SIDE, round(long_side / aspect))
    return (long_side, short_side) if rng.random() < 0.75 else (short_side, long_side)


def crop_box(rng, src_size, region, w, h):
    """A random crop of aspect w/h inside the region, at least 1.25x the target (never
    upscaled); shrinks the target when the region is too small. Returns (box, w, h)."""
    sw, sh = src_size
    r, nr = region
    if sw >= sh:
        rx0, ry0, rw, rh = sw * r / nr, 0.0, sw / nr, float(sh)
    else:
        rx0, ry0, rw, rh = 0.0, sh * r / nr, float(sw), sh / nr
    max_w = min(rw, rh * w / h)
    if max_w < 1.25 * w:
        k = max_w / (1.25 * w)
        w, h = max(1, int(w * k)), max(1, int(h * k))
    fmin = min(1.0, max(1.25 * w / max_w, 0.35))
    f = math.exp(math.log(fmin) * rng.random())      # log-uniform in fmin..1
    cw, ch = max_w * f, max_w * f * h / w
    x0 = rx0 + (rw - cw) * rng.random()
    y0 = ry0 + (rh - ch) * rng.random()
    return (x0, y0, x0 + cw, y0 + ch), w, h


def add_grain(img, seed, grain=GRAIN):
    """Seeded Gaussian grain: one luma field for all channels plus half as strong
    per-channel chroma noise. Raises entropy to ImageNet's level."""
    import numpy as np
    from PIL import Image
    gen = np.random.Generator(np.random.PCG64(seed))
    a = np.asarray(img, dtype=np.float32)
    noise = gen.standard_normal(a.shape, dtype=np.float32)
    noise *= grain / 2
    noise += grain * gen.standard_normal(a.shape[:2] + (1,), dtype=np.float32)
    a += noise
    np.rint(a, out=a)
    np.clip(a, 0, 255, out=a)
    return Image.fromarray(a.astype(np.uint8), "RGB")


# Set in the parent before the worker pool forks, so workers share the decoded photos.
_PHOTO_IMAGES = {}


def make_sample(job):
    """Creates one image from (seed, index) alone, writes it, returns its manifest row."""
    from PIL import Image, JpegImagePlugin
    out, seed, idx, per_class, sources, kind = job
    if kind == "hires":
        return make_hires_sample(job)
    cls, n = divmod(idx, per_class)
    rng = random.Random(seed_int("sluice-sample", seed, "image", idx))
    photo, region, nregions = sources[rng.randrange(len(sources))]
    src = _PHOTO_IMAGES[photo]
    w, h = sample_size(rng)
    box, w, h = crop_box(rng, src.size, (region, nregions), w, h)
    flip = rng.random() < 0.5
    quality = rng.randint(*Q_RANGE)
    sub444 = rng.random() < P_444
    grain_seed = seed_int("sluice-sample", seed, "grain", idx)

    img = src.resize((w, h), Image.LANCZOS, box=box, reducing_gap=2.0)
    if flip:
        img = img.transpose(Image.FLIP_LEFT_RIGHT)
    img = add_grain(img, grain_seed)
    return write_sample(out, idx, per_class, img, kind, quality, sub444, (w, h))


def make_hires_sample(job):
    """--hires: one 12 MP image from (seed, index) alone (its own seed namespace, so the
    default set is untouched): a random crop of the photo's region at 4:3 (or 3:4) that
    keeps at least 60% of its width, resampled to 4000x3000, grain, JPEG."""
    from PIL import Image
    out, seed, idx, per_class, sources, _ = job
    rng = random.Random(seed_int("sluice-hires", seed, "image", idx))
    photo, region, nregions = sources[rng.randrange(len(sources))]
    src = _PHOTO_IMAGES[photo]
    w, h = HIRES_SIZE if rng.random() >= HIRES_P_PORTRAIT else HIRES_SIZE[::-1]
    sw, sh = src.size
    r, nr = region, nregions
    if sw >= sh:
        rx0, ry0, rw, rh = sw * r / nr, 0.0, sw / nr, float(sh)
    else:
        rx0, ry0, rw, rh = 0.0, sh * r / nr, float(sw), sh / nr
    max_w = min(rw, rh * w / h)
    cw = max_w * rng.uniform(0.6, 1.0)
    ch = cw * h / w
    x0 = rx0 + (rw - cw) * rng.random()
    y0 = ry0 + (rh - ch) * rng.random()
    flip = rng.random() < 0.5
    quality = rng.randint(*HIRES_Q_RANGE)
    sub444 = rng.random() < HIRES_P_444
    img = src.resize((w, h), Image.LANCZOS, box=(x0, y0, x0 + cw, y0 + ch))
    if flip:
        img = img.transpose(Image.FLIP_LEFT_RIGHT)
    img = add_grain(img, seed_int("sluice-hires", seed, "grain", idx), HIRES_GRAIN)
    return write_sample(out, idx, per_class, img, "", quality, sub444, (w, h))


def write_sample(out, idx, per_class, img, kind, quality, sub444, size):
    """Encodes and writes one image; returns (index, manifest row)."""
    from PIL import Image, JpegImagePlugin
    cls, n = divmod(idx, per_class)
    w, h = size
    options = dict(quality=quality, optimize=False, progressive=(kind == "progressive"),
                   subsampling=0 if sub444 else 2)
    if kind in ("L", "CMYK"):
        img = img.convert(kind)
        options["subsampling"] = -1          # libjpeg's default: no chroma subsampling
    buf = io.BytesIO()
    img.save(buf, "JPEG", **options)
    data = buf.getvalue()

    # Describe the file from its own bytes.
    check = Image.open(io.BytesIO(data))
    sampling = JpegImagePlugin.get_sampling(check)
    subsampling = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(sampling, "-")
    progressive = int(bool(check.info.get("progressive")))
    if check.size != (w, h) or check.mode != img.mode:
        raise RuntimeError("image %d: encoded %s %s, expected %s %s"
                           % (idx, check.size, check.mode, (w, h), img.mode))
    rel = "train/c%03d/%04d.jpg" % (cls, n)
    with open(os.path.join(out, rel), "wb") as f:
        f.write(data)
    return idx, (rel, str(cls), str(w), str(h), check.mode, subsampling, str(quality),
                 str(progressive), str(len(data)), hashlib.sha256(data).hexdigest())


def odd_kinds(seed, total):
    """Which indices are grayscale, CMYK or progressive: a seeded choice of a fixed count."""
    order = sorted(range(total), key=lambda i: seed_int("sluice-sample", seed, "odd", i))
    kinds, pos = {}, 0
    for kind, frac in ODD:
        count = round(frac * total)
        if total >= 16:
            count = max(1, count)
        for i in order[pos:pos + count]:
            kinds[i] = kind
        pos += count
    return kinds


# ---------------------------------------------------------------- WebDataset shards

def tar_member(name, size):
    ti = tarfile.TarInfo(name)
    ti.size, ti.mtime, ti.mode = size, 0, 0o644
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    ti.type = tarfile.REGTYPE
    return ti


def write_shards(out, seed, rows, shard_size):
    """Writes wds/shard-NNNNN.tar + .idx; returns (shards, bytes, sha256 of all shards)."""
    wds = os.path.join(out, "wds")
    os.makedirs(wds)
    order = sorted(range(len(rows)), key=lambda i: seed_int("sluice-sample", seed, "wds", i))
    digest = hashlib.sha256()
    nbytes = 0
    nshards = -(-len(order) // shard_size)
    for s in range(nshards):
        tar_path = os.path.join(wds, "shard-%05d.tar" % s)
        with tarfile.open(tar_path, "w", format=tarfile.USTAR_FORMAT) as tf:
            for i in order[s * shard_size:(s + 1) * shard_size]:
                rel, cls = rows[i][0], rows[i][1]
                key = rel[len("train/"):-len(".jpg")].replace("/", "_")    # c003_0042
                with open(os.path.join(out, rel), "rb") as f:
                    jpg = f.read()
                for name, payload in ((key + ".jpg", jpg), (key + ".cls", cls.encode())):
                    tf.addfile(tar_member(name, len(payload)), io.BytesIO(payload))
        write_index(tar_path, tar_path[:-len(".tar")] + ".idx")
        with open(tar_path, "rb") as f:
            data = f.read()
        digest.update(hashlib.sha256(data).digest())
        nbytes += len(data)
    return nshards, nbytes, digest.hexdigest()


def write_index(tar_path, idx_path):
    """DALI wds2idx v1.2: 'v1.2 N', then per sample '<ext> <offset> <size> <name>' for
    each component, the sample's members in tar order."""
    samples = []
    last_key = None
    with tarfile.open(tar_path, "r") as tf:
        for m in tf.getmembers():
            if not m.isreg():
                continue
            base = m.name[m.name.rfind("/") + 1:]
            dot = m.name.find(".", m.name.rfind("/") + 1)
            if not base or base.startswith(".") or dot < 0:
                continue
            key, ext = m.name[:dot], m.name[dot + 1:]
            if m.offset_data % 512:
                raise RuntimeError("%s: %s data at offset %d" % (tar_path, m.name, m.offset_data))
            entry = "%s %d %d %s" % (ext, m.offset_data, m.size, m.name)
            if key != last_key:
                samples.append([entry])
                last_key = key
            else:
                samples[-1].append(entry)
    with open(idx_path, "w", newline="\n") as f:
        f.write("v1.2 %d\n" % len(samples))
        for entries in samples:
            f.write(" ".join(entries) + "\n")


# ---------------------------------------------------------------- driver

def prepare_dir(out, force):
    present = [p for p in OUTPUTS if os.path.lexists(os.path.join(out, p))]
    if present and not force:
        fail("%s already holds a dataset (%s); use --force to replace it"
             % (out, ", ".join(present)))
    for p in present:
        path = os.path.join(out, p)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def generate(a, out, sources):
    """Runs make_sample over every index; returns the manifest rows in index order."""
    total = a.classes * a.per_class
    kinds = {i: "hires" for i in range(total)} if a.hires else odd_kinds(a.seed, total)
    jobs = [(out, a.seed, i, a.per_class, sources[i // a.per_class], kinds.get(i, ""))
            for i in range(total)]
    rows = [None] * total
    if a.jobs > 1 and total > 1:
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(a.jobs, total)) as pool:
            for idx, row in pool.imap_unordered(make_sample, jobs, chunksize=4):
                rows[idx] = row
    else:
        for job in jobs:
            idx, row = make_sample(job)
            rows[idx] = row
    return rows


def main(argv):
    a = parse_args(argv)
    if a.print_packages:
        print(" ".join(PACKAGES))
        return 0
    t0 = time.time()
    try:
        from PIL import Image, features
        import numpy  # noqa: F401
    except ImportError as e:
        fail("%s; install python3-pil and python3-numpy (scripts/make_sample_data.sh does) "
             "and run with /usr/bin/python3" % e)
    Image.MAX_IMAGE_PIXELS = None
    changed = check_photos()
    for path in changed:
        print("%s: warning: %s differs from the pinned photo; output will differ from "
              "other machines" % (PROG, path), file=sys.stderr)
    if not features.check_feature("libjpeg_turbo"):
        print("%s: warning: Pillow is not built on libjpeg-turbo; bytes will differ"
              % PROG, file=sys.stderr)

    out = os.path.abspath(a.dir)
    os.makedirs(out, exist_ok=True)
    prepare_dir(out, a.force)
    for c in range(a.classes):
        os.makedirs(os.path.join(out, "train", "c%03d" % c))

    sources = class_sources(a.classes)
    used = sorted({p for pool in sources for p, _, _ in pool})
    from concurrent.futures import ThreadPoolExecutor   # Pillow decodes without the GIL
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        _PHOTO_IMAGES.update(zip(used, ex.map(load_photo, used)))
    t1 = time.time()

    rows = generate(a, out, sources)
    t2 = time.time()

    with open(os.path.join(out, "file_list.txt"), "w", newline="\n") as f:
        f.writelines("%s %s\n" % (r[0], r[1]) for r in rows)
    nshards, shard_bytes, wds_fp = write_shards(out, a.seed, rows, a.shard_size)
    manifest = ("\t".join(MANIFEST_HEADER) + "\n"
                + "".join("\t".join(r) + "\n" for r in rows)).encode()
    with open(os.path.join(out, "manifest.tsv"), "wb") as f:
        f.write(manifest)
    fingerprint = hashlib.sha256(manifest).hexdigest()
    t3 = time.time()

    total = len(rows)
    ws = [int(r[2]) for r in rows]
    hs = [int(r[3]) for r in rows]
    pixels = sum(w * h for w, h in zip(ws, hs))
    nbytes = sum(int(r[8]) for r in rows)
    mix = {}
    for r in rows:
        k = "RGB " + r[5] if r[4] == "RGB" else r[4]
        k += " progressive" if r[7] == "1" else ""
        mix[k] = mix.get(k, 0) + 1
    print("dataset:     %s" % out)
    print("images:      %d (%d classes x %d), seed %s, from %d photos (%s)"
          % (total, a.classes, a.per_class, a.seed, len(used), ", ".join(PACKAGES)))
    print("size:        %.1f MB, %.1f KB/image, %.2f bits/pixel"
          % (nbytes / 1e6, nbytes / 1e3 / total, 8.0 * nbytes / pixels))
    print("resolution:  mean %.0fx%.0f, min %dx%d, max %dx%d (width x height)"
          % (sum(ws) / total, sum(hs) / total, min(ws), min(hs), max(ws), max(hs)))
    print("encoding:    %s; quality %d..%d"
          % (", ".join("%s %d" % kv for kv in sorted(mix.items())),
             *(HIRES_Q_RANGE if a.hires else Q_RANGE)))
    print("wds:         %d shards of <= %d samples, %.1f MB, sha256 %s"
          % (nshards, a.shard_size, shard_bytes / 1e6, wds_fp))
    print("time:        %.1f s (photos %.1f s, images %.1f s, shards %.1f s; %d jobs)"
          % (t3 - t0, t1 - t0, t2 - t1, t3 - t2, a.jobs))
    print("fingerprint: %s" % fingerprint)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
