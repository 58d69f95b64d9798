"""acl.media in the simulator: dvpp_malloc/dvpp_free with their UNCONFIRMED settings, and the functions it does not
simulate (issue 38; what a backend is held to is in conformance/test_memory.py)."""

import pytest

import aclcts.sim
from aclcts.core.constants import ErrorCode
from aclcts.sim import NotSimulatedError, SimMisuseError, SimWarning

OK = ErrorCode.ACL_SUCCESS
MEMORY_ALLOCATION = ErrorCode.ACL_ERROR_RT_MEMORY_ALLOCATION
H2D = 1


@pytest.mark.sim_settings(dvpp_memory=1024)
def test_dvpp_malloc_takes_align_up_32_plus_32_bytes_of_the_dvpp_memory_setting(session):
    acl = session.acl
    first, ret = acl.media.dvpp_malloc(960)  # ALIGN_UP(960, 32) + 32 = 992 of 1024
    assert ret == OK
    assert acl.media.dvpp_malloc(1) == (0, MEMORY_ALLOCATION)  # 64 more do not fit
    device, ret = acl.rt.malloc(4096, 0)  # other device memory is not DVPP memory
    assert ret == OK
    assert acl.media.dvpp_free(first) == OK
    second, ret = acl.media.dvpp_malloc(1)
    assert ret == OK
    assert (acl.media.dvpp_free(second), acl.rt.free(device)) == (OK, OK)


@pytest.mark.parametrize("code", [
    pytest.param(ErrorCode.ACL_ERROR_INVALID_PARAM, id="default-100000"),
    pytest.param(ErrorCode.ACL_ERROR_RT_PARAM_INVALID, id="107000",
                 marks=pytest.mark.sim_settings(dvpp_zero_size_code=ErrorCode.ACL_ERROR_RT_PARAM_INVALID)),
])
def test_dvpp_malloc_of_size_0_gives_the_dvpp_zero_size_code_setting(session, code):
    assert aclcts.sim.settings().dvpp_zero_size_code == code
    assert session.acl.media.dvpp_malloc(0) == (0, code)


def test_freeing_dvpp_memory_with_the_wrong_call_or_twice_gives_the_invalid_free_code(session):
    acl, invalid_free = session.acl, aclcts.sim.settings().invalid_free_code
    dvpp, _ = acl.media.dvpp_malloc(64)
    device, _ = acl.rt.malloc(64, 0)
    assert acl.rt.free(dvpp) == invalid_free
    assert acl.media.dvpp_free(device) == invalid_free
    assert acl.media.dvpp_free(dvpp) == OK
    assert acl.media.dvpp_free(dvpp) == invalid_free
    assert acl.media.dvpp_free(0) == ErrorCode.ACL_ERROR_INVALID_PARAM
    assert acl.rt.free(device) == OK


def test_dvpp_free_of_memory_a_queued_copy_still_uses_is_misuse(session):
    acl = session.acl
    dvpp, _ = acl.media.dvpp_malloc(64)
    source, _ = acl.rt.malloc_host(64)
    assert acl.rt.memcpy_async(dvpp, 64, source, 64, H2D, session.stream) == OK
    with pytest.raises(SimMisuseError, match="acl.media.dvpp_free: .* still used by 1 queued task"):
        acl.media.dvpp_free(dvpp)
    assert acl.rt.synchronize_stream(session.stream) == OK
    assert (acl.media.dvpp_free(dvpp), acl.rt.free_host(source)) == (OK, OK)


def test_dvpp_memory_left_at_reset_device_is_reported_with_where_it_was_allocated(acl):
    assert acl.init() == OK and acl.rt.set_device(0) == OK
    _, ret = acl.media.dvpp_malloc(64)
    assert ret == OK
    with pytest.warns(SimWarning, match="(?s)1 object.*dvpp_mem.*created by acl.media.dvpp_malloc"):
        assert acl.rt.reset_device(0) == OK
    assert acl.finalize() == OK


@pytest.mark.parametrize("name", ["dvpp_vpc_resize_async", "dvpp_create_channel_desc", "vdec_create_channel",
                                  "dvpp_malloc_with_cfg"])
def test_every_other_acl_media_function_raises_one_not_simulated_error_naming_it(acl, name):
    with pytest.raises(NotSimulatedError) as raised:
        getattr(acl.media, name)
    assert str(raised.value).startswith(f"acl.media.{name} is not simulated: aclcts simulates only "
                                        "acl.media.dvpp_malloc and acl.media.dvpp_free")
    assert isinstance(raised.value, AttributeError) and not hasattr(acl.media, name)
