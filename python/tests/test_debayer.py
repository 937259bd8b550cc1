"""debayer against OpenCV's cv2.cvtColor, what DALI's CPU debayer calls for its algorithms:
bilinear_ocv (COLOR_Bayer**2RGB), edgeaware_ocv (**2RGB_EA), vng_ocv (**2RGB_VNG, uint8 only, as
OpenCV and DALI) and gray_ocv (**2GRAY, one channel). Tolerance: none, bit-exact for the four
patterns, uint8 and uint16, odd and tiny extents (below 3 or, for VNG, 8 rows or columns: OpenCV's
fallbacks), per-sample blue_position, and sequences; mosaics cut from the repository's photographs
(and one of noise, which drives VNG's gradient thresholds through every case).

DALI 2.4 links OpenCV 5.0, whose VNG differs from the OpenCV 4.6 installed here (it pads the mosaic
and computes every pixel around its own position; 4.6 shifts its result up two rows and copies the
borders): Sluice's vng_ocv is bit-exact with 5.0 (the DALI goldens, test_dali_goldens_image.py,
check it on several sizes), and here it is checked against 4.6 where the two must agree: 4.6's
computed interior, two rows down, within 1 level where 4.6 and 5.0 split a row differently between
OpenCV's SIMD and scalar code (their roundings of a 7-gradient average differ). OpenCV 5.0's uint8
gray_ocv computes its fixed-point formula exactly everywhere, where 4.x's SIMD path truncated each
product (1 level off on many pixels): it is checked against that formula in NumPy (gray_reference)."""
import os

import cv2
import numpy as np
import pytest
from PIL import Image

import sluice
from sluice import fn, pipeline_def

PHOTO = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "images", "photo_500x375.jpg")
CODES = {(0, 0): cv2.COLOR_BayerBG2RGB, (0, 1): cv2.COLOR_BayerGB2RGB, (1, 0): cv2.COLOR_BayerGR2RGB,
         (1, 1): cv2.COLOR_BayerRG2RGB}


def mosaic(rgb, by, bx):
    """A Bayer mosaic of `rgb` with blue at (1 + by, 1 + bx) mod 2 (OpenCV's pattern names)."""
    h, w, _ = rgb.shape
    yy, xx = np.mgrid[:h, :w]
    is_b = (yy % 2 == (1 + by) % 2) & (xx % 2 == (1 + bx) % 2)
    is_r = (yy % 2 == by % 2) & (xx % 2 == bx % 2)
    return np.where(is_r, rgb[..., 0], np.where(is_b, rgb[..., 2], rgb[..., 1]))


def run(samples, positions, layout="HW", threads=1, algorithm="bilinear_ocv"):
    @pipeline_def(batch_size=len(samples), num_threads=threads, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: samples, batch=True, layout=layout)
        pos = fn.external_source(source=lambda: [np.array(p, np.int32) for p in positions], batch=True)
        return fn.debayer(data, blue_position=pos, algorithm=algorithm)

    p = pipe()
    p.build()
    out = p.run()[0]
    return [out.at(i) for i in range(len(samples))], out.layout()


NAMES = {(0, 0): "BG", (0, 1): "GB", (1, 0): "GR", (1, 1): "RG"}
SUFFIX = {"bilinear_ocv": "2RGB", "edgeaware_ocv": "2RGB_EA", "vng_ocv": "2RGB_VNG", "gray_ocv": "2GRAY"}


def opencv(sample, pos, algorithm):
    out = cv2.cvtColor(sample, getattr(cv2, f"COLOR_Bayer{NAMES[pos]}{SUFFIX[algorithm]}"))
    return out[..., None] if algorithm == "gray_ocv" else out  # DALI's gray is HWC with one channel


def gray_reference(sample, pos):
    """OpenCV 5's Bayer-to-gray: (R * 4899 + G * 9617 + B * 1868) / 2^14 of the bilinear colours, in
    fixed point with the sums taken first (red or blue pixel: corners, cross, centre x 4, shifted by
    16; green: the two pairs and the centre x 2, shifted by 15), rounded; borders copied inwards."""
    h, w = sample.shape
    out = np.zeros((h, w), np.int64)
    if h > 2 and w > 2:
        m = sample.astype(np.int64)
        by, bx = pos
        yy, xx = np.mgrid[1:h - 1, 1:w - 1]
        red = (yy % 2 == by) & (xx % 2 == bx)
        blue = (yy % 2 == (1 + by) % 2) & (xx % 2 == (1 + bx) % 2)
        c, up, down, left, right = m[1:-1, 1:-1], m[:-2, 1:-1], m[2:, 1:-1], m[1:-1, :-2], m[1:-1, 2:]
        corners = m[:-2, :-2] + m[:-2, 2:] + m[2:, :-2] + m[2:, 2:]
        rgb_weight = {"r": 4899, "b": 1868}
        own = np.where(red, rgb_weight["r"], rgb_weight["b"])
        other = np.where(red, rgb_weight["b"], rgb_weight["r"])
        rb = (corners * other + (up + down + left + right) * 9617 + c * 4 * own + (1 << 15)) >> 16
        # At green: the vertical pair is red on red's rows' neighbours, i.e. where the row is blue's.
        vertical_red = (yy % 2 != by)
        kv = np.where(vertical_red, 4899, 1868)
        kh = np.where(vertical_red, 1868, 4899)
        g = ((up + down) * kv + (left + right) * kh + c * 2 * 9617 + (1 << 14)) >> 15
        out[1:-1, 1:-1] = np.where(red | blue, rb, g)
        out[:, 0], out[:, -1] = out[:, 1], out[:, -2]
        out[0], out[-1] = out[1], out[-2]
    return out.astype(sample.dtype)[..., None]


def check(out, sample, pos, algorithm):
    """out against OpenCV 4.6 (see the module's note for VNG), or OpenCV 5's gray formula."""
    h, w = sample.shape
    if algorithm == "gray_ocv":
        np.testing.assert_array_equal(out, gray_reference(sample, pos), err_msg=f"{sample.shape} {pos}")
    elif algorithm != "vng_ocv":
        np.testing.assert_array_equal(out, opencv(sample, pos, algorithm), err_msg=f"{sample.shape} {pos}")
    elif min(h, w) < 8:  # OpenCV 5's fallback: bilinear for the same pattern (4.6 took pattern BG)
        np.testing.assert_array_equal(out, opencv(sample, pos, "bilinear_ocv"), err_msg=f"{sample.shape} {pos}")
    else:
        if h < 9 or w < 5:
            return  # 4.6 computes no interior
        ref = opencv(sample, pos, algorithm)[2:h - 4, 2:w - 2].astype(int)
        diff = np.abs(out[4:h - 2, 2:w - 2].astype(int) - ref)
        assert diff.max() <= 1, f"{sample.shape} {pos}: {diff.max()}"
        assert (diff > 0).mean() < 0.02, f"{sample.shape} {pos}: {(diff > 0).mean()}"


@pytest.mark.parametrize("algorithm", list(SUFFIX))
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_bit_exact_with_opencv_for_every_pattern(dtype, algorithm):
    if algorithm == "vng_ocv" and dtype == np.uint16:
        pytest.skip("OpenCV's (and DALI's) VNG is uint8 only; the error is tested below")
    photo = np.asarray(Image.open(PHOTO).convert("RGB"))
    rng = np.random.default_rng(7)
    crops = [photo, photo[:121, :160], photo[100:233, 50:301], photo[7:10, 3:9], photo[:4, :5], photo[:2, :7],
             photo[:5, :2], photo[:8, :8], photo[:9, :31], photo[3:50, 1:8], photo[:20, :19],
             rng.integers(0, 256, (64, 77, 3)).astype(np.uint8)]
    samples, positions = [], []
    for k, crop in enumerate(crops):
        for pos in CODES:
            m = mosaic(crop, *pos).astype(np.uint32)
            if dtype == np.uint16:  # the full 16-bit range, low bits included
                m = m * 257 + rng.integers(0, 257, m.shape)
            samples.append(m.astype(dtype))
            positions.append(pos)
    outs, layout = run(samples, positions, threads=3, algorithm=algorithm)
    assert layout == "HWC"
    for out, sample, pos in zip(outs, samples, positions):
        check(out, sample, pos, algorithm)


@pytest.mark.parametrize("algorithm", list(SUFFIX))
def test_hwc_and_sequences(algorithm):
    photo = np.asarray(Image.open(PHOTO).convert("RGB"))
    frames = np.stack([mosaic(photo[k:k + 40, :60], 1, 0) for k in range(3)])
    outs, layout = run([frames[..., None]], [(1, 0)], layout="FHWC", algorithm=algorithm)
    assert layout == "FHWC"
    assert outs[0].shape == (3, 40, 60, 1 if algorithm == "gray_ocv" else 3)
    for f in range(3):
        check(outs[0][f], frames[f], (1, 0), algorithm)


def test_bad_input_and_arguments():
    with pytest.raises(sluice.SluiceError, match="blue_position"):
        run([np.zeros((4, 4), np.uint8)], [(2, 0)])
    with pytest.raises(sluice.SluiceError, match="one channel"):
        run([np.zeros((4, 4, 3), np.uint8)], [(0, 0)], layout="HWC")
    data = fn.external_source(source=lambda: [], batch=True)
    with pytest.raises(sluice.SluiceError, match="algorithm.*uint8"):
        run([np.zeros((16, 16), np.uint16)], [(0, 0)], algorithm="vng_ocv")
    with pytest.raises(sluice.ArgumentError, match="algorithm"):
        fn.debayer(data, blue_position=[0, 0], algorithm="default_npp")
    with pytest.raises(sluice.ArgumentError, match="blue_position"):
        fn.debayer(data)
