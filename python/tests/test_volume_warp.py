"""fn.warp_affine on DHWC volumes with 3x4 matrices, fn.rotate about an axis (DALI's 3-D canvas and
mapping), and the 3-D fn.transforms.* builders, against
independent references: scipy.ndimage.affine_transform (trilinear and nearest sampling) and
matrices written out with NumPy (Rodrigues' rotation, shear, scale about a centre, crop mapping,
composition).

Sluice (DALI's convention) samples output voxel (x, y, z) at M (x + 0.5, y + 0.5, z + 0.5) in
coordinates where voxel centres are at half-integers; SciPy maps output index o to input index
A o + offset on (z, y, x) arrays. So SciPy's matrix is A with the axes reversed and its offset
A (0.5, 0.5, 0.5) + t - 0.5 (reversed). Border: without fill_value the edge repeats (SciPy
mode="nearest"); with it, taps outside read the fill (mode="grid-constant"). Tolerances: float32
within 1e-5; uint8 within 1 level (one rounding); nearest exact away from ties.
"""
import numpy as np
import pytest

import sluice
from sluice import fn, types

ndi = pytest.importorskip("scipy.ndimage")
RNG = np.random.default_rng(264)
REV = np.eye(3)[::-1]


def run(build, samples, layout="DHWC", threads=2):
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=threads, seed=5)
    with pipe:
        x = fn.external_source(source=lambda: list(samples), layout=layout)
        outs = build(x)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(*outs)
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in res]


def scipy_warp(v, m34, shape=None, fill=None, order=1):
    """The reference: SciPy's affine_transform of each channel with DALI's convention."""
    A, t = m34[:, :3].astype(np.float64), m34[:, 3].astype(np.float64)
    mat, off = REV @ A @ REV, REV @ (A @ np.full(3, 0.5) + t - 0.5)
    mode, cval = ("nearest", 0.0) if fill is None else ("grid-constant", fill)
    return np.stack([ndi.affine_transform(v[..., c].astype(np.float64), mat, off, output_shape=shape or v.shape[:3],
                                          order=order, mode=mode, cval=cval) for c in range(v.shape[3])], -1)


def random_matrix():
    A = np.eye(3) + RNG.uniform(-0.2, 0.2, (3, 3))
    return np.concatenate([A, RNG.uniform(-1.5, 1.5, (3, 1))], 1).astype(np.float32)


def test_trilinear_matches_scipy_affine_transform():
    vols = [RNG.normal(size=s).astype(np.float32) for s in [(6, 8, 10, 2), (5, 7, 9, 1), (7, 5, 6, 3)]]
    m = random_matrix()
    clamp, filled, sized = run(lambda x: (fn.warp_affine(x, matrix=m.ravel().tolist()),
                                          fn.warp_affine(x, matrix=m.ravel().tolist(), fill_value=2.5),
                                          fn.warp_affine(x, matrix=m.ravel().tolist(), size=(4, 9, 5))), vols)
    for v, a, b, c in zip(vols, clamp, filled, sized):
        np.testing.assert_allclose(a, scipy_warp(v, m), atol=1e-5)
        np.testing.assert_allclose(b, scipy_warp(v, m, fill=2.5), atol=1e-5)
        assert c.shape == (4, 9, 5, v.shape[3])
        np.testing.assert_allclose(c, scipy_warp(v, m, shape=(4, 9, 5)), atol=1e-5)


def test_uint8_nearest_inverse_map_and_matrix_input():
    vols = [RNG.integers(0, 256, (6, 7, 8, 2)).astype(np.uint8) for _ in range(2)]
    m = random_matrix()
    mats = [m, m * np.float32([[1], [1], [1]])]
    pipe = sluice.Pipeline(batch_size=2, num_threads=2, seed=1)
    with pipe:
        x = fn.external_source(source=lambda: list(vols), layout="DHWC")
        mt = fn.external_source(source=lambda: list(mats))
        inv = np.linalg.inv(np.vstack([m, [0, 0, 0, 1]]))[:3].astype(np.float32)
        pipe.set_outputs(fn.warp_affine(x, mt), fn.warp_affine(x, matrix=inv.ravel().tolist(), inverse_map=False),
                         fn.warp_affine(x, matrix=m.ravel().tolist(), interp_type=types.INTERP_NN, dtype=types.FLOAT))
    lin, inverted, nn = [[np.array(o.at(i)) for i in range(2)] for o in pipe.run()]
    for v, a, b, c in zip(vols, lin, inverted, nn):
        ref = scipy_warp(v, m)
        assert a.dtype == np.uint8 and np.abs(a - ref).max() <= 1.0
        assert np.abs(b.astype(np.float64) - ref).max() <= 1.0
        np.testing.assert_array_equal(c, scipy_warp(v, m, order=0))


def rodrigues(axis, deg):
    u = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    r = np.deg2rad(deg)
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + np.sin(r) * K + (1 - np.cos(r)) * K @ K


def affine(A, t=(0, 0, 0)):
    return np.vstack([np.concatenate([A, np.reshape(t, (3, 1))], 1), [0, 0, 0, 1]])


def test_3d_transform_builders_match_numpy():
    dummy = [np.zeros((2, 2, 2, 1), np.uint8)]
    c = np.array([1.0, 2.0, 3.0])
    outs = run(lambda x: (
        fn.transforms.rotation(angle=30, axis=(1, 2, 2)),
        fn.transforms.rotation(angle=-45, axis=(0, 0, 5), center=tuple(c)),
        fn.transforms.scale(scale=(2, 3, 4), center=tuple(c)),
        fn.transforms.scale(scale=(1.5,), ndim=3),
        fn.transforms.shear(shear=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6)),
        fn.transforms.shear(angles=(10, 0, 0, 20, 0, -30)),
        fn.transforms.translation(offset=(1, -2, 3)),
        fn.transforms.crop(from_start=(0, 0, 0), from_end=(10, 20, 40), to_start=(0, 0, 0), to_end=(1, 1, 1)),
        fn.transforms.combine(fn.transforms.translation(offset=(1, 2, 3)), fn.transforms.scale(scale=(2, 2, 2))),
        fn.transforms.rotation(fn.transforms.translation(offset=(1, 0, 0)), angle=90, axis=(0, 0, 1)),
    ), dummy)
    got = [o[0] for o in outs]
    for g in got:
        assert g.shape == (3, 4) and g.dtype == np.float32
    R = rodrigues((1, 2, 2), 30)
    S = np.array([[1, .1, .2], [.3, 1, .4], [.5, .6, 1]])
    T = np.tan(np.deg2rad([10, 0, 0, 20, 0, -30]))
    want = [
        affine(R),
        affine(rodrigues((0, 0, 1), -45), c - rodrigues((0, 0, 1), -45) @ c),
        affine(np.diag([2, 3, 4]), c - np.diag([2, 3, 4]) @ c),
        affine(np.diag([1.5] * 3)),
        affine(S),
        affine(np.array([[1, T[0], T[1]], [T[2], 1, T[3]], [T[4], T[5], 1]])),
        affine(np.eye(3), (1, -2, 3)),
        affine(np.diag([1 / 10, 1 / 20, 1 / 40])),
        affine(np.diag([2.0] * 3)) @ affine(np.eye(3), (1, 2, 3)),
        affine(rodrigues((0, 0, 1), 90)) @ affine(np.eye(3), (1, 0, 0)),
    ]
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w[:3], atol=1e-6, err_msg=f"transform {k}")
    # A right-handed rotation by 90 degrees about z takes x to y.
    np.testing.assert_allclose(got[9][:, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-6)


def test_rotation_warp_of_a_volume_about_its_centre():
    v = RNG.normal(size=(8, 9, 10, 1)).astype(np.float32)
    centre = (5.0, 4.5, 4.0)  # (x, y, z) of the volume's centre
    (out, mtx) = run(lambda x: (lambda m: (fn.warp_affine(x, m, fill_value=0), m))(
        fn.transforms.rotation(angle=25, axis=(1, 1, 0), center=centre)), [v])
    np.testing.assert_allclose(out[0], scipy_warp(v, mtx[0], fill=0.0), atol=1e-5)


def test_2d_transforms_are_unchanged_and_mixing_dimensions_is_an_error():
    dummy = [np.zeros((2, 2, 3), np.uint8)]
    (a, b, c) = run(lambda x: (fn.transforms.rotation(angle=30), fn.transforms.scale(scale=(2,)),
                               fn.transforms.crop(from_end=(2, 4))), dummy, layout="HWC")
    r = np.deg2rad(30)
    np.testing.assert_allclose(a[0], [[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0]], atol=1e-7)
    np.testing.assert_allclose(b[0], [[2, 0, 0], [0, 2, 0]])
    np.testing.assert_allclose(c[0], [[0.5, 0, 0], [0, 0.25, 0]])
    with pytest.raises(Exception, match="center"):
        run(lambda x: fn.transforms.scale(scale=(2, 2), center=(1, 1, 1)), dummy, layout="HWC")
    with pytest.raises(Exception, match="axis"):
        run(lambda x: fn.transforms.rotation(angle=3, axis=(0, 0, 0)), dummy, layout="HWC")
    with pytest.raises(Exception, match="matrix"):
        run(lambda x: fn.warp_affine(x, matrix=[1, 0, 0, 0, 1, 0]), [np.zeros((2, 2, 2, 1), np.uint8)])
    with pytest.raises(Exception, match="size"):
        run(lambda x: fn.warp_affine(x, matrix=list(np.eye(3, 4).ravel()), size=(2, 2)),
            [np.zeros((2, 2, 2, 1), np.uint8)])


def test_volume_warp_is_the_same_for_any_thread_count():
    vols = [RNG.integers(0, 256, (5, 6, 7, 2)).astype(np.uint8) for _ in range(4)]
    build = lambda x: fn.warp_affine(x, fn.transforms.rotation(angle=fn.random.uniform(range=(-30, 30)), axis=(0, 1, 1)))
    (a,) = run(build, vols, threads=1)
    (b,) = run(build, vols, threads=3)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def rotation_np(axis, degrees):
    """Rodrigues' right-handed rotation about `axis` (x, y, z), written out independently."""
    u = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    r = np.deg2rad(degrees)
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + np.sin(r) * K + (1 - np.cos(r)) * (K @ K)


def dali_rotated_canvas(dhw, axis, degrees):
    """DALI's 3-D rotate output size (rotate_params.h): ceil(|R| (w, h, d) - 0.01) per axis, then the
    parity of the input extent with the largest |R| entry of that row (the diagonal on ties)."""
    R = np.abs(rotation_np(axis, degrees))
    size_xyz = np.array(dhw[::-1], np.float64)
    out = np.ceil(R @ size_xyz - 0.01).astype(int)
    for i in range(3):
        dom = i
        for j in range(3):
            if R[i, j] > R[i, dom]:
                dom = j
        if out[i] % 2 != int(size_xyz[dom]) % 2:
            out[i] += 1
    return tuple(int(v) for v in out[::-1])


@pytest.mark.parametrize("axis,angle,keep", [((0, 0, 1), 30.0, False), ((1, 1, 0), -50.0, False),
                                             ((0.3, -1, 2), 115.0, False), ((1, 0, 0), 20.0, True)])
def test_rotate_volumes_about_an_axis_matches_scipy(axis, angle, keep):
    """rotate on DHWC volumes (DALI takes them, with `axis`): the output canvas by DALI's rule and
    the mapping T(in / 2) R(axis, -angle) T(-out / 2), checked against scipy.ndimage.affine_transform."""
    vols = [RNG.normal(size=(6, 9, 11, 2)).astype(np.float32), RNG.normal(size=(9, 5, 7, 1)).astype(np.float32)]
    out = run(lambda x: (fn.rotate(x, angle=angle, axis=axis, keep_size=keep, fill_value=0.0),
                         fn.rotate(x, angle=angle, axis=axis, keep_size=keep, interp_type=types.INTERP_NN)), vols)
    for v, lin, nn in zip(vols, *out):
        shape = v.shape[:3] if keep else dali_rotated_canvas(v.shape[:3], axis, angle)
        assert lin.shape == shape + v.shape[3:] and nn.shape == lin.shape
        in_c = np.array(v.shape[:3][::-1], np.float64) / 2
        out_c = np.array(shape[::-1], np.float64) / 2
        A = rotation_np(axis, -angle)
        m34 = np.concatenate([A, (in_c - A @ out_c)[:, None]], 1)
        np.testing.assert_allclose(lin, scipy_warp(v, m34, shape=shape, fill=0.0), atol=1e-5)
        # Nearest: exact away from ties (a source coordinate on a voxel boundary, which the centred
        # canvases make common and each rounds its own way).
        z, y, x = np.meshgrid(*(np.arange(e) + 0.5 for e in shape), indexing="ij")
        src = np.einsum("ij,jzyx->izyx", m34, np.stack([x, y, z, np.ones_like(x)]))
        clear = np.all(np.abs(src - np.round(src)) > 1e-4, axis=0)
        assert clear.mean() > 0.5
        ref = scipy_warp(v, m34, shape=shape, order=0)
        np.testing.assert_array_equal(nn[clear], ref[clear])


def test_rotate_volume_size_and_errors():
    vols = [RNG.integers(0, 256, (4, 6, 8, 1)).astype(np.uint8)]
    (a,) = run(lambda x: fn.rotate(x, angle=10, axis=(0, 1, 0), size=(3, 5, 7)), vols)
    assert a[0].shape == (3, 5, 7, 1) and a[0].dtype == np.uint8
    # 90 degrees about z: x and y swap extents; the depth stays.
    (b,) = run(lambda x: fn.rotate(x, angle=90, axis=(0, 0, 1)), vols)
    assert b[0].shape == (4, 8, 6, 1)
    with pytest.raises(Exception, match="axis"):
        run(lambda x: fn.rotate(x, angle=10), vols)
    with pytest.raises(Exception, match="axis"):
        run(lambda x: fn.rotate(x, angle=10, axis=(0, 0, 0)), vols)
    with pytest.raises(Exception, match="size"):
        run(lambda x: fn.rotate(x, angle=10, axis=(0, 0, 1), size=(3, 3)), vols)
