"""Data buffers (pyacl-api.md §4 data-buffer part)."""

import pytest

import aclcts.sim


@pytest.mark.parametrize(
    ("data", "size"),
    [
        pytest.param(0, 0, id="create_0_0_is_empty_buffer"),
        pytest.param(0x1000, 64, id="create_pointer_and_size"),
        pytest.param(0, 16, id="create_null_data_with_size_not_validated"),
        pytest.param(0x2000, 0, id="create_pointer_with_size_0_not_validated"),
        pytest.param(2**60 + 64, 2**40, id="create_large_size"),
        pytest.param(2**64 - 1, 2**64 - 1, id="create_max_uint64_values"),
    ],
)
def test_create_data_buffer_getters(acl, data, size):
    buf = acl.create_data_buffer(data, size)
    assert type(buf) is int and buf != 0
    assert acl.get_data_buffer_addr(buf) == data
    assert acl.get_data_buffer_size_v2(buf) == size


@pytest.mark.parametrize(
    ("size", "truncated"),
    [
        pytest.param(64, 64, id="size_small_is_unchanged"),
        pytest.param(2**32 - 1, 2**32 - 1, id="size_uint32_max_is_unchanged"),
        pytest.param(2**32, 0, id="size_2pow32_truncates_to_0"),
        pytest.param(2**32 + 5, 5, id="size_2pow32_plus_5_truncates_to_5"),
        pytest.param(2**40 + 2**31, 2**31, id="size_truncated_to_low_32_bits"),
    ],
)
def test_get_data_buffer_size_deprecated_truncates_to_32_bits(acl, size, truncated):
    buf = acl.create_data_buffer(0x1000, size)
    assert acl.get_data_buffer_size(buf) == truncated
    assert acl.get_data_buffer_size_v2(buf) == size


@pytest.mark.parametrize(
    "getter",
    [
        pytest.param(lambda acl: acl.get_data_buffer_addr(0), id="addr_of_buffer_0_is_0"),
        pytest.param(lambda acl: acl.get_data_buffer_size_v2(0), id="size_v2_of_buffer_0_is_0"),
        pytest.param(lambda acl: acl.get_data_buffer_size(0), id="size_of_buffer_0_is_0"),
    ],
)
def test_getters_of_buffer_0_return_0(acl, getter):
    assert getter(acl) == 0


def test_create_data_buffer_handles_are_distinct(acl):
    handles = [acl.create_data_buffer(0, 0) for _ in range(3)]
    assert len(set(handles)) == 3 and 0 not in handles


def test_create_data_buffer_needs_no_init(acl):
    buf = acl.create_data_buffer(0x1000, 8)
    assert buf != 0
    assert acl.destroy_data_buffer(buf) == 0


def test_destroy_data_buffer_returns_0(acl):
    assert acl.destroy_data_buffer(acl.create_data_buffer(0x1000, 8)) == 0


def test_destroy_data_buffer_0_is_100000(acl):
    assert acl.destroy_data_buffer(0) == 100000


def test_destroy_data_buffer_does_not_free_data(acl, session):
    dev, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    buf = acl.create_data_buffer(dev, 64)
    assert acl.destroy_data_buffer(buf) == 0
    assert acl.rt.memset(dev, 64, 0, 64) == 0
    assert acl.rt.free(dev) == 0


def test_destroy_data_buffer_removes_live_buffer(acl):
    buf = acl.create_data_buffer(0, 0)
    assert buf in [obj.handle for obj in aclcts.sim.live_objects("buffer")]
    assert acl.destroy_data_buffer(buf) == 0
    assert buf not in [obj.handle for obj in aclcts.sim.live_objects("buffer")]


@pytest.mark.parametrize(
    ("data", "size"),
    [
        pytest.param(0x3000, 128, id="update_replaces_pointer_and_size"),
        pytest.param(0, 0, id="update_to_empty_buffer"),
        pytest.param(0x4000, 2**32 + 1, id="update_to_size_above_32_bits"),
    ],
)
def test_update_data_buffer(acl, data, size):
    buf = acl.create_data_buffer(0x1000, 64)
    assert acl.update_data_buffer(buf, data, size) == 0
    assert acl.get_data_buffer_addr(buf) == data
    assert acl.get_data_buffer_size_v2(buf) == size
    assert acl.get_data_buffer_size(buf) == size & 0xFFFFFFFF


def test_update_data_buffer_0_is_100000(acl):
    assert acl.update_data_buffer(0, 0x1000, 64) == 100000


def test_update_data_buffer_leaves_other_buffers_alone(acl):
    first = acl.create_data_buffer(0x1000, 64)
    second = acl.create_data_buffer(0x2000, 32)
    assert acl.update_data_buffer(first, 0x5000, 16) == 0
    assert (acl.get_data_buffer_addr(second), acl.get_data_buffer_size_v2(second)) == (0x2000, 32)


def test_update_data_buffer_does_not_free_old_memory(acl, session):
    old, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    new, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    buf = acl.create_data_buffer(old, 64)
    assert acl.update_data_buffer(buf, new, 64) == 0
    assert acl.rt.memset(old, 64, 1, 64) == 0
    assert acl.rt.free(old) == 0
    assert acl.rt.free(new) == 0
    assert acl.destroy_data_buffer(buf) == 0
