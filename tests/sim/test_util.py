"""Utilities acl.util (pyacl-api.md §1.9, §8)."""

import ctypes
import warnings

import numpy as np
import pytest

import aclcts.sim


def _buffer_address(data: bytes) -> int:
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value


def _fresh_bytes(text: str) -> bytes:
    return bytes(bytearray(text.encode()))


def _call_recording_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w.category for w in caught]


def test_bytes_to_ptr_returns_address_of_bytes_buffer(acl):
    data = _fresh_bytes("address of the internal buffer")
    ptr = acl.util.bytes_to_ptr(data)
    assert type(ptr) is int
    assert ptr == _buffer_address(data)


def test_bytes_to_ptr_does_not_copy(acl):
    data = _fresh_bytes("written through the pointer")
    ctypes.memmove(acl.util.bytes_to_ptr(data), b"W", 1)
    assert data == b"Written through the pointer"


def test_bytes_to_ptr_same_object_same_address(acl):
    data = _fresh_bytes("stable")
    assert acl.util.bytes_to_ptr(data) == acl.util.bytes_to_ptr(data)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(bytearray(b"abc"), id="bytearray_rejected"),
        pytest.param(memoryview(b"abc"), id="memoryview_rejected"),
        pytest.param("abc", id="str_rejected"),
        pytest.param(np.frombuffer(b"abc", dtype=np.uint8), id="ndarray_rejected"),
        pytest.param(None, id="none_rejected"),
        pytest.param(5, id="int_rejected"),
    ],
)
def test_bytes_to_ptr_needs_bytes(acl, value):
    with pytest.raises(ValueError) as raised:
        acl.util.bytes_to_ptr(value)
    assert type(raised.value) is ValueError
    assert str(raised.value) == "needs an byte as argument"


@pytest.mark.parametrize(
    ("size", "expected"),
    [pytest.param(5, b"hello", id="ptr_to_bytes_prefix"), pytest.param(11, b"hello world", id="ptr_to_bytes_whole")],
)
def test_ptr_to_bytes_reads_host_memory(acl, size, expected):
    data = _fresh_bytes("hello world")
    out = acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), size)
    assert type(out) is bytes and out == expected


def test_ptr_to_bytes_copies(acl):
    data = _fresh_bytes("copied at call time")
    out = acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), len(data))
    ctypes.memmove(acl.util.bytes_to_ptr(data), b"XXXXXX", 6)
    assert out == b"copied at call time"
    assert _buffer_address(out) != _buffer_address(data)


def test_ptr_to_bytes_reads_numpy_memory(acl):
    arr = np.arange(4, dtype=np.int32)
    assert acl.util.ptr_to_bytes(arr.ctypes.data, arr.nbytes) == arr.tobytes()


def test_malloc_host_is_real_memory_readable_by_ptr_to_bytes(acl, session):
    host, ret = acl.rt.malloc_host(64)
    assert ret == 0
    ctypes.memmove(host, b"real host memory", 16)
    assert acl.util.ptr_to_bytes(host, 16) == b"real host memory"
    assert acl.rt.free_host(host) == 0


def test_recommended_idiom_round_trip_through_device(acl, session):
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    n = arr.nbytes
    dev, ret = acl.rt.malloc(n, 0)
    assert ret == 0
    assert acl.rt.memcpy(dev, n, acl.util.bytes_to_ptr(arr.tobytes()), n, 1) == 0
    host, ret = acl.rt.malloc_host(n)
    assert ret == 0
    assert acl.rt.memcpy(host, n, dev, n, 2) == 0
    back = np.frombuffer(acl.util.ptr_to_bytes(host, n), np.float32).reshape(3, 4)
    assert np.array_equal(back, arr)
    assert acl.rt.free_host(host) == 0
    assert acl.rt.free(dev) == 0


def test_ptr_to_bytes_of_device_pointer_in_host_mode_is_misuse(acl, session):
    dev, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    with pytest.raises(aclcts.sim.SimMisuseError):
        acl.util.ptr_to_bytes(dev, 16)


def test_ptr_to_bytes_of_device_pointer_in_device_mode_reads_device_memory(acl):
    aclcts.sim.configure(run_mode="device")
    aclcts.sim.reset()
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    dev, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    assert acl.rt.memset(dev, 64, 5, 64) == 0
    assert acl.util.ptr_to_bytes(dev, 8) == b"\x05" * 8
    assert acl.rt.free(dev) == 0


def test_numpy_to_ptr_returns_data_address_and_warns(acl):
    arr = np.arange(8, dtype=np.int16)
    ptr, categories = _call_recording_warnings(lambda: acl.util.numpy_to_ptr(arr))
    assert ptr == arr.ctypes.data
    assert categories == [Warning]


def test_numpy_to_ptr_does_not_copy(acl):
    arr = np.zeros(4, dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ptr = acl.util.numpy_to_ptr(arr)
    ctypes.memmove(ptr, b"\x01\x02", 2)
    assert arr.tolist() == [1, 2, 0, 0]


def test_numpy_to_ptr_non_contiguous_warns_twice_and_points_at_strided_memory(acl):
    base = np.arange(16, dtype=np.float32).reshape(4, 4)
    view = base[:, ::2]
    ptr, categories = _call_recording_warnings(lambda: acl.util.numpy_to_ptr(view))
    assert ptr == view.ctypes.data
    assert len(categories) == 2 and categories[0] is Warning


def test_numpy_to_ptr_warning_escalates_when_errors(acl):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Warning):
            acl.util.numpy_to_ptr(np.zeros(2))


@pytest.mark.parametrize(
    "value",
    [pytest.param([1, 2], id="list_rejected"), pytest.param(b"ab", id="bytes_rejected"), pytest.param(3, id="int_rejected")],
)
def test_numpy_to_ptr_needs_ndarray(acl, value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as raised:
            acl.util.numpy_to_ptr(value)
    assert str(raised.value) == "needs an ndarray as argument"


def test_numpy_contiguous_to_ptr_contiguous_input_is_not_copied(acl):
    arr = np.arange(6, dtype=np.int32).reshape(2, 3)
    (ptr, out), categories = _call_recording_warnings(lambda: acl.util.numpy_contiguous_to_ptr(arr))
    assert categories == [Warning]
    assert isinstance(out, np.ndarray)
    assert ptr == out.ctypes.data == arr.ctypes.data
    assert np.shares_memory(out, arr)


def test_numpy_contiguous_to_ptr_non_contiguous_input_is_copied(acl):
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    view = base[:, 1::2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ptr, out = acl.util.numpy_contiguous_to_ptr(view)
    assert out.flags.c_contiguous
    assert ptr == out.ctypes.data
    assert np.array_equal(out, view)
    assert not np.shares_memory(out, base)
    assert acl.util.ptr_to_bytes(ptr, out.nbytes) == np.ascontiguousarray(view).tobytes()


NPY_TYPES = [
    pytest.param(0, np.bool_, id="npy_type_0_is_bool"),
    pytest.param(1, np.int8, id="npy_type_1_is_int8"),
    pytest.param(2, np.uint8, id="npy_type_2_is_uint8"),
    pytest.param(3, np.int16, id="npy_type_3_is_int16"),
    pytest.param(4, np.uint16, id="npy_type_4_is_uint16"),
    pytest.param(5, np.int32, id="npy_type_5_is_int32"),
    pytest.param(6, np.uint32, id="npy_type_6_is_uint32"),
    pytest.param(7, np.dtype("l"), id="npy_type_7_is_long_int64"),
    pytest.param(8, np.dtype("L"), id="npy_type_8_is_ulong_uint64"),
    pytest.param(9, np.longlong, id="npy_type_9_is_longlong"),
    pytest.param(10, np.ulonglong, id="npy_type_10_is_ulonglong"),
    pytest.param(11, np.float32, id="npy_type_11_is_float32"),
    pytest.param(12, np.float64, id="npy_type_12_is_float64"),
    pytest.param(23, np.float16, id="npy_type_23_is_float16"),
]


@pytest.mark.parametrize(("npy_type", "dtype"), NPY_TYPES)
def test_ptr_to_numpy_type_numbers(acl, npy_type, dtype):
    source = (np.arange(6) % 2 if npy_type == 0 else np.arange(6)).astype(dtype)
    view, categories = _call_recording_warnings(lambda: acl.util.ptr_to_numpy(source.ctypes.data, (2, 3), npy_type))
    assert categories == [Warning]
    assert view.dtype == np.dtype(dtype) and view.dtype.num == npy_type
    assert view.shape == (2, 3)
    assert np.array_equal(view, source.reshape(2, 3))


def test_ptr_to_numpy_is_writeable_non_owning_view(acl):
    source = np.zeros(6, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = acl.util.ptr_to_numpy(source.ctypes.data, (3, 2), 11)
    assert view.flags.writeable and not view.flags.owndata
    view[1, 1] = 7.5
    assert source[3] == 7.5
    source[0] = -1.0
    assert view[0, 0] == -1.0


def test_ptr_to_numpy_over_malloc_host_memory(acl, session):
    host, ret = acl.rt.malloc_host(16)
    assert ret == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = acl.util.ptr_to_numpy(host, (4,), 5)
    view[:] = [1, 2, 3, 4]
    assert acl.util.ptr_to_bytes(host, 16) == np.array([1, 2, 3, 4], dtype=np.int32).tobytes()
    del view
    assert acl.rt.free_host(host) == 0


@pytest.mark.parametrize("shape", [pytest.param([2, 3], id="list_shape"), pytest.param([6], id="list_shape_rank_1")])
def test_ptr_to_numpy_list_shape_is_value_error_shape_is_empty(acl, shape):
    source = np.zeros(6, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as raised:
            acl.util.ptr_to_numpy(source.ctypes.data, shape, 11)
    assert str(raised.value) == "shape is empty"


def test_ptr_to_numpy_of_device_pointer_in_host_mode_is_misuse(acl, session):
    dev, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(aclcts.sim.SimMisuseError):
            acl.util.ptr_to_numpy(dev, (4,), 5)
