"""sluice prepare's shards: one shard's tar (fixed GNU headers, so the bytes are the same on every
run) and its index, written under temporary names and renamed when complete; and the check that
lets a rerun keep a finished shard."""
import io
import os
import tarfile

from .. import _sluice
from .prepare_encode import reencode
from .prepare_plan import IMAGE_EXTS, PrepareError, wds_key_ext


def _member(name, size):
    """The tar header of a member: regular file, mode 0644, mtime 0, uid/gid 0, no user names."""
    ti = tarfile.TarInfo(name)
    ti.size, ti.mtime, ti.mode = size, 0, 0o644
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    ti.type = tarfile.REGTYPE
    return ti


def shard_paths(out, s):
    """Shard s's (.tar, .idx) paths in `out`."""
    base = os.path.join(out, "shard-%06d" % s)
    return base + ".tar", base + ".idx"


def write_shard(job, progress):
    """Writes shard `s` from its planned samples; returns (s, images, errors, bytes). Errors are
    (path, reason); with strict, the first one raises PrepareError (no shard is left behind).
    `progress(1)` is called for each sample, written or skipped."""
    s, samples, out, max_side, quality, strict = job
    tar_path, idx_path = shard_paths(out, s)
    tmp_tar, tmp_idx = tar_path + ".tmp", idx_path + ".tmp"
    errors, images = [], 0
    try:
        with tarfile.open(tmp_tar, "w", format=tarfile.GNU_FORMAT) as tf:
            fh, fh_path = None, None
            for sample in samples:
                kind, src, key = sample[0], sample[1], sample[2]
                members, failed = [], None
                if kind == "file":
                    try:
                        with open(src, "rb") as f:
                            data = f.read()
                        members = [(key + ".jpg", reencode(data, max_side, quality)),
                                   (key + ".cls", str(sample[3]).encode())]
                    except Exception as e:  # OSError, PIL.UnidentifiedImageError, DecompressionBombError...
                        failed = (src, _reason(e))
                else:
                    if fh_path != src:
                        if fh:
                            fh.close()
                        fh, fh_path = open(src, "rb"), src
                    names = {m[0] for m in sample[3]}
                    for name, offset, size in sample[3]:
                        fh.seek(offset)
                        data = fh.read(size)
                        k, ext = wds_key_ext(name)
                        last = ext.rsplit(".", 1)[-1].lower()  # 'png' of 'left.png' too
                        if last in IMAGE_EXTS:
                            try:
                                data = reencode(data, max_side, quality)
                            except Exception as e:
                                failed = (f"{src}:{name}", _reason(e))
                                break
                            if last not in ("jpg", "jpeg"):
                                renamed = name[:len(name) - len(last)] + "jpg"
                                if renamed not in names:  # a sample with both x.png and x.jpg keeps x.png
                                    name = renamed
                        members.append((name, data))
                progress(1)
                if failed:
                    if strict:
                        raise PrepareError(f"{failed[0]}: {failed[1]}")
                    errors.append(failed)
                    continue
                images += 1
                for name, data in members:
                    tf.addfile(_member(name, len(data)), io.BytesIO(data))
            if fh:
                fh.close()
        index = _sluice.wds_index(tmp_tar)
        with open(tmp_idx, "wb") as f:
            f.write(index)
        os.replace(tmp_tar, tar_path)
        os.replace(tmp_idx, idx_path)  # last: a finished shard is one whose .idx exists
    except BaseException:
        for p in (tmp_tar, tmp_idx):
            if os.path.exists(p):
                os.remove(p)
        raise
    return s, images, errors, os.path.getsize(tar_path) + os.path.getsize(idx_path)


def _reason(e):
    """An exception as a skipped image's reason: its message, led by its type unless the message names it."""
    msg = str(e) or type(e).__name__
    return f"{type(e).__name__}: {msg}" if type(e).__name__ not in msg else msg


def shard_is_complete(out, s, planned_keys):
    """True when shard s's .tar and .idx exist, the .idx is the tar's index and names planned keys."""
    tar_path, idx_path = shard_paths(out, s)
    if not (os.path.isfile(tar_path) and os.path.isfile(idx_path)):
        return False
    try:
        with open(idx_path, "rb") as f:
            idx = f.read()
        if _sluice.wds_index(tar_path) != idx:
            return False
    except Exception:
        return False
    lines = idx.decode("utf-8", "replace").splitlines()[1:]
    keys = set()
    for line in lines:
        parts = line.split(" ")
        if len(parts) >= 4:
            keys.add(wds_key_ext(parts[3])[0])
    return keys <= set(planned_keys)
