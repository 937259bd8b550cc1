"""fn.experimental.warp_perspective on the repository's photographs against OpenCV 4.6's
cv2.warpPerspective (WARP_INVERSE_MAP), for every interpolation and border mode:

- pixel_origin="center" is OpenCV's convention: the same matrix; "corner" (DALI's default) is
  OpenCV with T(-0.5) @ M @ T(0.5).
- Tolerances (uint8): OpenCV computes coordinates and weights in fixed point (1/32 pixel, 15-bit
  weights); Sluice in double / float32 (uint8 RGB linear: 1/2048 pixel, integer blend, within 1 of
  its float32 result; measured here: mean 0.05, as the CHW float path). Linear and cubic: mean |diff| < 0.1 and under 0.3% of the
  values off by more than 1 (DALI 2.4's CPU operator against OpenCV on this photograph: mean 0.05,
  0.03-0.1% off by more than 1, max 4). Nearest: under 0.05% of the pixels differ (coordinates on a
  rounding tie).
- inverse_map=False (the inverse matrix), `size`, fill_value per channel, the matrix as a second
  input and per sample, CHW and float32 inputs.
"""
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
M = np.array([[0.9, 0.1, 10], [-0.05, 1.1, 5], [0.0002, 0.0001, 1]], np.float64)
SHIFT = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
UNSHIFT = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])


def photo(name="photo_500x375.jpg"):
    Image = pytest.importorskip("PIL.Image")
    return np.asarray(Image.open(IMAGES / name).convert("RGB"))


def run(images, *extra, layout="HWC", **kwargs):
    pipe = sluice.Pipeline(batch_size=len(images), num_threads=2, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(images), layout=layout)
        ins = [fn.external_source(source=lambda e=e: list(e)) for e in extra]
        pipe.set_outputs(fn.experimental.warp_perspective(src, *ins, **kwargs))
    out = pipe.run()[0]
    return [np.array(out.at(i)) for i in range(len(images))]


def check_close(got, ref, interp):
    assert got.shape == ref.shape and got.dtype == ref.dtype
    d = np.abs(got.astype(np.int32) - ref.astype(np.int32))
    if interp == "NN":
        assert (d.max(axis=-1) > 0).mean() < 5e-4, (d > 0).mean()
    else:
        assert d.mean() < 0.1, d.mean()
        assert (d > 1).mean() < 3e-3, (d > 1).mean()


CV_INTERP = {"NN": "INTER_NEAREST", "LINEAR": "INTER_LINEAR", "CUBIC": "INTER_CUBIC"}
CV_BORDER = {"constant": "BORDER_CONSTANT", "replicate": "BORDER_REPLICATE", "reflect": "BORDER_REFLECT",
             "reflect_101": "BORDER_REFLECT_101", "wrap": "BORDER_WRAP"}


@pytest.mark.parametrize("interp", list(CV_INTERP))
@pytest.mark.parametrize("border", list(CV_BORDER))
@pytest.mark.parametrize("origin", ["corner", "center"])
def test_matches_cv2_warp_perspective(interp, border, origin):
    cv2 = pytest.importorskip("cv2")
    img = photo()
    h, w = img.shape[:2]
    got = run([img], matrix=M.flatten().tolist(), interp_type=getattr(types, "INTERP_" + interp),
              border_mode=border, pixel_origin=origin)[0]
    mm = M if origin == "center" else UNSHIFT @ M @ SHIFT
    ref = cv2.warpPerspective(img, mm, (w, h), flags=getattr(cv2, CV_INTERP[interp]) | cv2.WARP_INVERSE_MAP,
                              borderMode=getattr(cv2, CV_BORDER[border]))
    check_close(got, ref, interp)


def test_forward_map_size_fill_and_matrix_input():
    cv2 = pytest.importorskip("cv2")
    img = photo()
    fwd = np.linalg.inv(M)
    got = run([img], matrix=fwd.flatten().tolist(), inverse_map=False, size=[200, 300], fill_value=[10, 20, 30],
              pixel_origin="center")[0]
    ref = cv2.warpPerspective(img, M, (300, 200), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(10, 20, 30))
    check_close(got, ref, "LINEAR")
    # The matrix as a second input, one per sample; a CHW float32 batch.
    imgs = [img, photo("s444.jpg")]
    mats = [M.astype(np.float32), np.float32([[1.1, 0, -5], [0.05, 0.95, 3], [0, 0.0003, 1]])]
    got = run([np.ascontiguousarray(i.transpose(2, 0, 1)).astype(np.float32) for i in imgs], mats, layout="CHW",
              pixel_origin="center")
    for i, g, m in zip(imgs, got, mats):
        ref = cv2.warpPerspective(i.astype(np.float32), m.astype(np.float64), i.shape[1::-1],
                                  flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        # OpenCV rounds the coordinates to 1/32 pixel even for float32 images: at an edge of 255 levels
        # per pixel that is up to 8 levels; on average far less.
        d = np.abs(g.transpose(1, 2, 0) - ref)
        assert d.max() < 8 and d.mean() < 0.1, (d.max(), d.mean())


@pytest.mark.parametrize(
    "kw,arg",
    [
        (dict(), "matrix"),
        (dict(matrix=[1, 0, 0, 0, 1, 0]), "matrix"),
        (dict(matrix=[1, 0, 0, 0, 1, 0, 0, 0, 1], interp_type=types.INTERP_LANCZOS3), "interp_type"),
        (dict(matrix=[1, 0, 0, 0, 1, 0, 0, 0, 1], border_mode="mirror"), "border_mode"),
        (dict(matrix=[1, 0, 0, 0, 1, 0, 0, 0, 1], pixel_origin="middle"), "pixel_origin"),
        (dict(matrix=[1, 0, 0, 0, 1, 0, 0, 0, 1], size=[0, 4]), "size"),
    ],
)
def test_bad_arguments_rejected_at_the_call(kw, arg):
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pytest.raises(Exception, match=arg):
        with pipe:
            fn.experimental.warp_perspective(fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)]), **kw)
