"""The private-format corners CANN's own system tests use (issue 34): FRACTAL_Z made from a 2-D ND weight,
NC1HWC0 made from a rank-4 ND shape, FRACTAL_Z_3D, a one-element tensor in NDC1HWC0 and unknown (-1) dims, each as
CANN's shape transfer defines it (docs/formats.md)."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.core.formats import FORMAT_VALUES, FormatError, from_storage, storage_shape, to_storage

F = FORMAT_VALUES


def values(shape: tuple[int, ...], dtype: type = np.float16) -> np.ndarray:
    """Distinct non-zero values of shape."""
    return (np.arange(int(np.prod(shape))) % 97 + 1).astype(dtype).reshape(shape)


@pytest.mark.parametrize(("dtype", "expected"), [(np.float16, (4, 6, 16, 16)), (np.int8, (2, 6, 16, 32))])
def test_a_2d_nd_weight_in_fractal_z_blocks_its_first_dim_by_c0_and_its_second_by_16(dtype, expected) -> None:
    assert storage_shape((64, 96), F["ND"], F["FRACTAL_Z"], dtype) == expected
    x = values((40, 20), dtype)
    stored = to_storage(x, F["ND"], F["FRACTAL_Z"])
    block = 32 if dtype == np.int8 else 16
    assert stored[1, 1, 3, 7] == x[block + 7, 16 + 3]
    assert not stored[-1, 1, 4:].any()  # columns 20.. of the second column block are padding
    np.testing.assert_array_equal(from_storage(stored, F["FRACTAL_Z"], F["ND"], x.shape), x)


def test_a_rank_4_nd_shape_in_nc1hwc0_and_fractal_z_is_read_as_nchw() -> None:
    x = values((2, 20, 3, 5))
    for target in ("NC1HWC0", "FRACTAL_Z"):
        assert storage_shape(x.shape, F["ND"], F[target], x.dtype) == \
            storage_shape(x.shape, F["NCHW"], F[target], x.dtype)
        stored = to_storage(x, F["ND"], F[target])
        np.testing.assert_array_equal(stored, to_storage(x, F["NCHW"], F[target]))
        np.testing.assert_array_equal(from_storage(stored, F[target], F["ND"], x.shape), x)


@pytest.mark.parametrize(("shape", "target"), [((2, 3, 4), "NC1HWC0"), ((2, 3, 4, 5, 6), "FRACTAL_Z"),
                                                ((2, 3, 4, 5), "NDC1HWC0"), ((2, 3, 4, 5, 6), "FRACTAL_Z_3D")])
def test_nd_shapes_cann_gives_no_reading_for_are_refused(shape, target) -> None:
    with pytest.raises(FormatError):
        storage_shape(shape, F["ND"], F[target], np.float16)


def test_fractal_z_3d_has_the_shape_of_cann_slice_case_and_puts_d_before_c1() -> None:
    assert storage_shape((16, 7, 16, 16, 16), F["NDHWC"], F["FRACTAL_Z_3D"], np.float16) == (1792, 1, 16, 16)
    x = values((17, 18, 2, 3, 2))  # NCDHW: N=17, C=18, D=2, H=3, W=2
    stored = to_storage(x, F["NCDHW"], F["FRACTAL_Z_3D"])
    assert stored.shape == (2 * 2 * 3 * 2, 2, 16, 16)
    d, c1, h, w = 1, 1, 2, 1
    assert stored[((d * 2 + c1) * 3 + h) * 2 + w, 1, 0, 1] == x[16, 17, d, h, w]
    assert not stored[:, 1, 1:].any()  # N rows 17.. are padding
    np.testing.assert_array_equal(from_storage(stored, F["FRACTAL_Z_3D"], F["NCDHW"], x.shape), x)


def test_a_one_element_shape_below_rank_4_keeps_its_shape_in_a_channel_blocked_format() -> None:
    one = np.array([0.25], np.float32)
    assert storage_shape((1,), F["NCDHW"], F["NDC1HWC0"], np.float32) == (1,)
    np.testing.assert_array_equal(to_storage(one, F["NCDHW"], F["NDC1HWC0"]), one)
    np.testing.assert_array_equal(from_storage(one, F["NDC1HWC0"], F["NCDHW"], (1,)), one)
    with pytest.raises(FormatError, match="reshape type"):
        storage_shape((3,), F["NCHW"], F["NC1HWC0"], np.float32)


@pytest.mark.parametrize(("shape", "origin", "target", "expected"), [
    ((-1, 16, -1, -1), "NCHW", "NC1HWC0", (-1, 1, -1, -1, 16)),
    ((-1, -1, 32), "ND", "FRACTAL_NZ", (-1, 2, -1, 16, 16)),
    ((-1, 40, 3, 3), "NCHW", "FRACTAL_Z", (27, -1, 16, 16)),
    ((8, 40, -1, 3), "NCHW", "FRACTAL_Z", (-1, 1, 16, 16)),
])
def test_an_unknown_dim_stays_unknown_in_the_dims_made_from_it(shape, origin, target, expected) -> None:
    assert storage_shape(shape, F[origin], F[target], np.float16) == expected
