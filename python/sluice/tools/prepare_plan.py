"""sluice prepare's plan, fixed before any image is decoded: the input's samples (a folder of class
folders, or WebDataset shards), their order, and the record of the plan written to prepare.json."""
import hashlib
import os
import re
import tarfile

IMAGE_EXTS = ("jpg", "jpeg", "png", "bmp", "webp", "tif", "tiff", "ppm")
PLAN_VERSION = 1


class PrepareError(Exception):
    """A problem with the input, the output folder or (--strict) an image: reported, exit status 1."""


def _key_of(rel):
    """The sample key of a file's path under the class root (c003/0042.jpg -> c003_0042)."""
    stem = rel.rsplit(".", 1)[0] if "." in os.path.basename(rel) else rel
    return re.sub(r"[\s./\\]", "_", stem)


def wds_key_ext(name):
    """A WebDataset member name's (key, extension), split at the first dot of its base name;
    (None, None) for a name without one."""
    slash = name.rfind("/") + 1
    dot = name.find(".", slash)
    if dot < 0 or dot == slash:
        return None, None
    return name[:dot], name[dot + 1:]


def _is_image(name):
    return os.path.splitext(name)[1][1:].lower() in IMAGE_EXTS


def plan_folder(root):
    """Returns (classes, samples, input_bytes); a sample is ("file", path, key, label)."""
    if os.path.isdir(os.path.join(root, "train")):
        root = os.path.join(root, "train")
    entries = sorted(os.listdir(root))
    classes = [d for d in entries if not d.startswith(".") and os.path.isdir(os.path.join(root, d))]
    files = []  # (rel path under root, label)
    if classes:
        for label, c in enumerate(classes):
            for dirpath, dirnames, filenames in os.walk(os.path.join(root, c)):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for f in sorted(filenames):
                    if not f.startswith(".") and _is_image(f):
                        files.append((os.path.relpath(os.path.join(dirpath, f), root), label))
    else:
        classes = [os.path.basename(os.path.abspath(root))]
        files = [(f, 0) for f in entries if not f.startswith(".") and _is_image(f)
                 and os.path.isfile(os.path.join(root, f))]
    samples, used, nbytes = [], set(), 0
    for rel, label in files:
        key = base = _key_of(rel)
        n = 1
        while key in used:  # a.jpg and a.png, or 'a b.jpg' and 'a_b.jpg': deterministic suffix
            n += 1
            key = f"{base}_{n}"
        used.add(key)
        path = os.path.join(root, rel)
        nbytes += os.path.getsize(path)
        samples.append(("file", path, key, label))
    return classes, samples, nbytes


def plan_wds(tars):
    """Returns samples ("wds", tar, key, [(name, offset, size)...]) in tar order, and input bytes."""
    samples, nbytes = [], 0
    for tar in tars:
        nbytes += os.path.getsize(tar)
        last = None
        try:
            with tarfile.open(tar, "r:") as tf:
                for m in tf:
                    if not m.isreg():
                        continue
                    key, ext = wds_key_ext(m.name)
                    if key is None:
                        continue
                    if key != last:
                        samples.append(["wds", tar, key, []])
                        last = key
                    samples[-1][3].append((m.name, m.offset_data, m.size))
        except (tarfile.TarError, OSError) as e:
            raise PrepareError(f"{tar}: cannot read the archive: {e}") from e
    return [tuple(s) for s in samples], nbytes


def _input_tars(inputs):
    """The .tar files the inputs name (files, or folders holding only them), or None if they are
    not WebDataset shards."""
    tars = []
    for p in inputs:
        if os.path.isfile(p) and p.endswith(".tar"):
            tars.append(p)
        elif os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".tar"))
            subdirs = [f for f in os.listdir(p) if os.path.isdir(os.path.join(p, f)) and not f.startswith(".")]
            if not found or subdirs:
                return None
            tars += found
        else:
            return None
    return tars


def _order(samples, seed):
    """The samples shuffled by a seeded hash of their keys (the same order on every run)."""
    return sorted(samples, key=lambda s: hashlib.sha256(f"sluice-prepare:{seed}:{s[2]}".encode()).digest())


def plan_input(inputs, shuffle_seed):
    """What the INPUT arguments hold: (kind, classes, samples, input bytes). kind "webdataset"
    (classes None, samples in tar order) or "folder" (samples in the order of `shuffle_seed`, sorted
    order when it is None)."""
    for p in inputs:
        if not os.path.exists(p):
            raise PrepareError(f"{p}: no such file or folder")
    tars = _input_tars(inputs)
    if tars is not None:
        kind, classes = "webdataset", None
        samples, in_bytes = plan_wds(tars)
    else:
        if len(inputs) != 1 or not os.path.isdir(inputs[0]):
            raise PrepareError("give one folder of class folders, or WebDataset .tar files / a folder of them")
        kind = "folder"
        classes, samples, in_bytes = plan_folder(inputs[0])
        if shuffle_seed is not None:
            samples = _order(samples, shuffle_seed)
    if not samples:
        raise PrepareError("no images found in " + " ".join(inputs))
    return kind, classes, samples, in_bytes


def plan_record(kind, classes, samples, shards, *, max_side, quality, shard_size, shuffle_seed):
    """prepare.json's content: the options, the class names and a fingerprint of what each of the
    `shards` shards holds, so that a rerun with other options or input is told apart."""
    fingerprint = hashlib.sha256()
    for s in samples:
        # Where the input lies is left out (a moved dataset resumes); what each shard holds is in.
        what = s[3] if kind == "folder" else " ".join(m[0] for m in s[3])
        fingerprint.update(f"{os.path.basename(s[1])}\0{s[2]}\0{what}\n".encode())
    return {"version": PLAN_VERSION, "input": kind, "max_side": max_side, "quality": quality,
            "shard_size": shard_size, "shuffle": shuffle_seed if kind == "folder" else None,
            "samples": len(samples), "shards": shards, "classes": classes,
            "plan_sha256": fingerprint.hexdigest()}
