"""--devices: xdist worker gwK runs on devices[K % len], a serial run on the first; recorded per case."""

import json
import textwrap
import time

import pytest

from aclcts.pytest_plugin.sharding import MAX_DEVICE_ID, device_for, parse_devices

ON_DEVICE = textwrap.dedent("""
    import pytest

    @pytest.mark.parametrize("i", range(8))
    def test_on_device(acl, session, pytestconfig, i):
        device, ret = acl.rt.get_device()
        assert ret == 0 and device == session.device_id == pytestconfig.getoption("--device-id")
""")


@pytest.mark.parametrize("text, expected", [
    ("0-7", list(range(8))), ("0,2,4-5", [0, 2, 4, 5]), ("3", [3]), ("5,1-2,2", [5, 1, 2]), (" 1 - 2 , 4", [1, 2, 4]),
])
def test_device_lists(text, expected):
    assert parse_devices(text) == expected


@pytest.mark.parametrize("text, message", [
    ("", "an empty item is not a device id"), ("0-", "'0-' is not a device id"), ("a", "'a' is not a device id"),
    ("4-2", "range 4-2 runs backwards"), ("1,,2", "an empty item is not a device id"),
])
def test_bad_device_lists_are_refused_with_what_was_expected(text, message):
    with pytest.raises(ValueError) as caught:
        parse_devices(text)
    assert str(caught.value).startswith(f"--devices={text}: ") and message in str(caught.value)


@pytest.mark.parametrize("text", ["0-999999999999", "64", "0-64", "1," + "9" * 5000, "0-" + "9" * 100000])
def test_device_ids_beyond_the_limit_are_refused_before_any_list_is_built(text):
    with pytest.raises(ValueError) as caught:
        parse_devices(text)
    assert f"expected ids 0..{MAX_DEVICE_ID}" in str(caught.value) and len(str(caught.value)) < 300


def test_a_huge_device_range_is_a_one_line_usage_error_at_once(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--devices=0-999999999999")
    assert time.monotonic() - started < 30
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--devices=0-999999999999: 0-999999999999 goes beyond device 63; expected ids 0..63"])
    assert "Traceback" not in result.stderr.str() and "MemoryError" not in result.stderr.str()


def test_workers_cycle_through_the_devices_and_a_serial_run_takes_the_first():
    devices = [4, 6, 7]
    assert [device_for(devices, f"gw{k}") for k in range(5)] == [4, 6, 7, 4, 6]
    assert device_for(devices, None) == 4


def test_a_bad_device_list_is_a_one_line_usage_error(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist", "--devices=0-x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--devices=0-x: '0-x' is not a device id or range A-B*"])


def test_two_workers_run_on_the_devices_the_header_names_seen_in_the_case_records(pytester):
    pytester.makepyfile(test_devices=ON_DEVICE)
    path = pytester.path / "devices.jsonl"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--devices=1,3",
                                           f"--report={path}")
    result.assert_outcomes(passed=8)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    pinned = {(r["worker"], r["device"]) for r in records if r["record"] == "case"}
    assert pinned == {("gw0", 1), ("gw1", 3)}
    header = [line for line in result.outlines if line.startswith("aclcts --devices=")]
    assert header == ["aclcts --devices=1,3: " + ", ".join(f"{w} -> device {d}" for w, d in sorted(pinned))]
    environments = sorted((r["worker"], r["device_id"], r["device_count"]) for r in records
                          if r["record"] == "environment")
    assert environments == [("gw0", 1, 4), ("gw1", 3, 4)]
