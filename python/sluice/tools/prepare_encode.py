"""sluice prepare's re-encoding of one image: upright, RGB (grayscale stays L), the longer side capped
with LANCZOS, a baseline 4:2:0 JPEG with optimized Huffman tables and no metadata."""
import io


def reencode(data, max_side, quality):
    """Bytes of an image file -> bytes of the prepared JPEG (raises on an unreadable image)."""
    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(data)) as im:
        im.load()
        im = ImageOps.exif_transpose(im)
        if im.mode in ("L", "1", "LA", "I", "I;16", "I;16B", "I;16L", "F"):
            im = im.convert("L") if im.mode in ("1", "LA") else (im if im.mode == "L" else _to_l(im))
        elif im.mode != "RGB":
            im = im.convert("RGB")
        w, h = im.size
        long_side = max(w, h)
        if long_side > max_side:
            s = max_side / long_side
            size = (max_side, max(1, round(h * s))) if w >= h else (max(1, round(w * s)), max_side)
            im = im.resize(size, Image.LANCZOS)
        out = io.BytesIO()
        im.save(out, "JPEG", quality=quality, subsampling=2, optimize=True, progressive=False)
        return out.getvalue()


def _to_l(im):
    # 16-bit / float grayscale: scale to 8 bits by the type's range, as Pillow does not.
    import numpy as np
    from PIL import Image

    a = np.asarray(im)
    if a.dtype.kind == "f":
        a = np.clip(a, 0, 1) * 255 if a.max(initial=0) <= 1.0 else np.clip(a, 0, 255)
    elif a.dtype.itemsize > 1:
        a = a.astype(np.float64) / 257.0 if a.max(initial=0) > 255 else a
    return Image.fromarray(np.rint(a).astype(np.uint8), "L")
