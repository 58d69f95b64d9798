"""The layout conversions of aclcts.core.formats: round trips, zero padding, and the block sizes CANN states."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclcts.core.formats import (FORMAT_VALUES, PRIVATE_ORIGINS, FormatError, blocked_unknown_dims, described_tensor,
                                 from_storage, runtime_origin_shape, storage_shape, to_storage)

DTYPES = (np.float16, np.float32, np.int8, np.int32)
PLAIN_BY_RANK = {4: ("NCHW", "NHWC", "HWCN"), 5: ("NCDHW", "NDHWC", "DHWCN")}


@st.composite
def tensors(draw: st.DrawFn) -> tuple[np.ndarray, str, str]:
    """An array of random values, an origin format it may be in and a target format it may be laid out in."""
    target = draw(st.sampled_from(sorted(PRIVATE_ORIGINS) + ["NCHW", "HWCN", "NDHWC", "DHWCN"]))
    if target in PRIVATE_ORIGINS:
        origin = draw(st.sampled_from(PRIVATE_ORIGINS[target]))
    else:
        origin = draw(st.sampled_from(PLAIN_BY_RANK[len(target)] + ("ND",)))
    rank = draw(st.integers(1, 4)) if origin == "ND" and target == "FRACTAL_NZ" else len(origin if origin != "ND" else target)
    shape = draw(st.lists(st.integers(1, 40), min_size=rank, max_size=rank).filter(lambda s: np.prod(s) <= 4000))
    dtype = draw(st.sampled_from(DTYPES))
    values = np.arange(1, int(np.prod(shape)) + 1, dtype=np.int64) % 100 + 1
    return values.astype(dtype).reshape(shape), origin, target


@settings(max_examples=150, deadline=None)
@given(tensors())
def test_from_storage_inverts_to_storage(drawn: tuple[np.ndarray, str, str]) -> None:
    array, origin, target = drawn
    stored = to_storage(array, FORMAT_VALUES[origin], FORMAT_VALUES[target])
    assert stored.shape == storage_shape(array.shape, FORMAT_VALUES[origin], FORMAT_VALUES[target], array.dtype)
    back = from_storage(stored, FORMAT_VALUES[target], FORMAT_VALUES[origin], array.shape)
    assert back.dtype == array.dtype and np.array_equal(back, array)


@settings(max_examples=150, deadline=None)
@given(tensors())
def test_padding_is_zero_and_every_value_is_stored_once(drawn: tuple[np.ndarray, str, str]) -> None:
    array, origin, target = drawn
    stored = to_storage(array, FORMAT_VALUES[origin], FORMAT_VALUES[target])
    assert np.count_nonzero(stored) == array.size
    assert sorted(stored[stored != 0].tolist()) == sorted(array.ravel().tolist())


@pytest.mark.parametrize(("dtype", "block"), [(np.float16, 16), (np.float32, 16), (np.int8, 32), (np.uint8, 32)])
def test_block_size_is_32_bytes_of_one_byte_types_else_16(dtype: type, block: int) -> None:
    assert storage_shape((2, 3, 4, 5), FORMAT_VALUES["NCHW"], FORMAT_VALUES["NC1HWC0"], dtype) == (2, 1, 4, 5, block)
    assert storage_shape((33, 40), FORMAT_VALUES["ND"], FORMAT_VALUES["FRACTAL_NZ"], dtype) == \
        (-(-40 // block), 3, 16, block)


def test_fractal_nz_places_row_blocks_inside_column_blocks() -> None:
    matrix = np.arange(33 * 18, dtype=np.float32).reshape(33, 18)
    stored = to_storage(matrix, FORMAT_VALUES["ND"], FORMAT_VALUES["FRACTAL_NZ"])
    assert stored.shape == (2, 3, 16, 16)
    assert stored[1, 2, 0, 1] == matrix[32, 17] and stored[0, 1, 3, 5] == matrix[19, 5]
    assert not stored[1, 0, 0, 2:].any()


def test_nc1hwc0_splits_channels_into_blocks_of_c0() -> None:
    x = np.arange(1 * 20 * 2 * 3, dtype=np.float16).reshape(1, 20, 2, 3)
    stored = to_storage(x, FORMAT_VALUES["NCHW"], FORMAT_VALUES["NC1HWC0"])
    assert stored[0, 1, 1, 2, 3] == x[0, 19, 1, 2] and not stored[0, 1, :, :, 4:].any()


def test_fractal_z_puts_n_blocks_after_c1_h_w() -> None:
    w = np.arange(17 * 3 * 2 * 2, dtype=np.float16).reshape(17, 3, 2, 2) + 1
    stored = to_storage(w, FORMAT_VALUES["NCHW"], FORMAT_VALUES["FRACTAL_Z"])
    assert stored.shape == (4, 2, 16, 16)
    assert stored[1 * 2 + 1, 1, 0, 2] == w[16, 2, 1, 1]


@pytest.mark.parametrize(("shape", "origin", "target"), [((2, 3, 4), "NCHW", "NC1HWC0"), ((2, 3, 4, 5, 6), "ND", "NC1HWC0"),
                                                         ((2, 3, 4, 5), "NCHW", "NCDHW"), ((), "ND", "FRACTAL_NZ")])
def test_shapes_that_do_not_fit_the_format_are_refused(shape: tuple, origin: str, target: str) -> None:
    with pytest.raises(FormatError):
        storage_shape(shape, FORMAT_VALUES[origin], FORMAT_VALUES[target], np.float16)


@pytest.mark.parametrize(("described", "expected"), [
    (("FRACTAL_NZ", "NHWC", (32, 48, 13, 16, 16), (32, 197, 768)), (29, 1, (32, 197, 768))),
    (("FRACTAL_NZ", "FRACTAL_NZ", (32, 96), (32, 96)), (29, 2, (32, 96))),
    (("NC1HWC0", "NCHW", (1, 2, 64, 64, 16), (1, 32, 64, 64)), (3, 0, (1, 32, 64, 64))),
    (("ND", "ND", (7, 3), ()), (None, 2, (7, 3))),
], ids=["layer-norm-st", "gemm-st-output", "msopst-doc-nc1hwc0", "plain"])
def test_msopst_descriptions_give_the_storage_format_and_origin(described: tuple, expected: tuple) -> None:
    assert described_tensor(*described, np.float16) == expected


def test_a_described_shape_that_fits_neither_form_is_refused() -> None:
    with pytest.raises(FormatError, match=r"neither \[3, 2, 16, 16\]"):
        described_tensor("FRACTAL_NZ", "ND", (2, 2, 16, 16), (32, 48), np.float16)


@pytest.mark.parametrize("origin_shape, origin, target, dtype, blocked", [
    ((-1, 16, -1, -1), "NCHW", "NC1HWC0", np.float16, ()),     # N, H, W are stored dims as they are
    ((2, -1, 3, 3), "NCHW", "NC1HWC0", np.float16, (1,)),      # C lies behind C1 = ceil(C / 16)
    ((3, 3, -1, -1), "HWCN", "NC1HWC0", np.int8, (2,)),        # HWCN's C, blocked by 32 for int8; N is kept
    ((-1, -1, 3, 3), "NHWC", "NC1HWC0", np.float16, ()),
    ((-1, 2, -1, 4, 5), "NCDHW", "NDC1HWC0", np.float32, ()),
    ((32, 32, -1), "ND", "FRACTAL_NZ", np.float16, (2,)),       # the last dim is behind N1
    ((-1, -1, 32, 48), "ND", "FRACTAL_NZ", np.float16, ()),     # batch dims are kept
    ((-1, -1, 32, 48), "ND", "FRACTAL_NZ", np.float16, ()),
    ((16, 16, -1, 3), "NCHW", "FRACTAL_Z", np.float16, (2,)),   # H is merged into C1*H*W
    ((-1, 16, 1, 1), "NCHW", "FRACTAL_Z", np.float16, (0,)),    # N lies behind N1
])
def test_unknown_dims_a_format_blocks_or_merges_are_named(origin_shape, origin, target, dtype, blocked) -> None:
    found = blocked_unknown_dims(origin_shape, FORMAT_VALUES[origin], FORMAT_VALUES[target], dtype)
    assert found == blocked


@pytest.mark.parametrize("model_shape, origin, target, dtype, runtime", [
    ((-1, 5, -1, 4), "NCHW", "NC1HWC0", np.float16, (3, 5, 7, 4)),
    ((-1, -1, 3, 20), "NHWC", "NC1HWC0", np.float16, (2, 6, 3, 20)),
    ((3, 3, 40, -1), "HWCN", "NC1HWC0", np.int8, (3, 3, 40, 9)),
    ((-1, 2, -1, 4, 5), "NCDHW", "NDC1HWC0", np.float32, (4, 2, 6, 4, 5)),
    ((-1, 32, 48), "ND", "FRACTAL_NZ", np.float16, (5, 32, 48)),
])
def test_the_stored_dims_of_a_runtime_desc_give_back_each_unknown_dim_the_format_keeps(
        model_shape, origin, target, dtype, runtime) -> None:
    stored = storage_shape(runtime, FORMAT_VALUES[origin], FORMAT_VALUES[target], dtype)
    assert runtime_origin_shape(stored, model_shape, FORMAT_VALUES[origin], FORMAT_VALUES[target], dtype) == runtime


def test_stored_dims_cannot_give_back_an_unknown_dim_behind_a_block() -> None:
    with pytest.raises(FormatError, match=r"stored dims \[2, 1, 3, 3, 16\] of NC1HWC0 do not give back origin shape"):
        runtime_origin_shape((2, 1, 3, 3, 16), (2, -1, 3, 3), FORMAT_VALUES["NCHW"], FORMAT_VALUES["NC1HWC0"],
                             np.float16)
