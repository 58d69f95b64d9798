"""Expectations files: schema errors name file, line and field; the documented example is valid and inert."""

import datetime
import textwrap
from pathlib import Path

import pytest

from aclcts.pytest_plugin.expectations import ExpectationsError, glob_match, load_expectations

ROOT = Path(__file__).resolve().parents[2]

GOOD_ENTRY = """\
  - id: "conformance/test_execute.py::test_x[Erf-*"
    reason: known
    owner: me@example.com
    expires: 2027-03-31
"""

ONE_ENTRY = "release: r\nentries:\n  - id: 'a.py::b'\n    reason: r\n    owner: o\n"

#: name → (file text, the expected error after "FILE:").
BROKEN = {
    "bad date": (ONE_ENTRY + "    expires: 31/03/2027\n",
                 "6: field 'expires': expected an ISO date (YYYY-MM-DD), got '31/03/2027'"),
    "impossible date": (ONE_ENTRY + "    expires: '2027-02-30'\n",
                        "6: field 'expires': expected an ISO date (YYYY-MM-DD), got '2027-02-30'"),
    "unquoted impossible date": (ONE_ENTRY + "    expires: 2027-02-30\n",
                                 "6: field 'expires': expected an ISO date (YYYY-MM-DD), got '2027-02-30'"),
    "unknown key": ("release: r\nentries:\n" + GOOD_ENTRY + "    expire: 2027-01-01\n",
                    ("7: field 'expire': expected one of the keys id, soc, cann, reason, issue, owner, expires, "
                     "raises, action, got 'expire'")),
    "missing reason": ("release: r\nentries:\n" + GOOD_ENTRY + "  - id: 'a.py::b'\n    owner: o\n"
                       "    expires: 2027-01-01\n",
                       "7: field 'reason': expected a value (the field is required)"),
    "no issue nor owner": ("release: r\nentries:\n  - id: 'a.py::b'\n    reason: r\n    expires: 2027-01-01\n",
                           "3: field 'issue': expected an issue link or an owner (at least one of the two)"),
    "bad raises": ("release: r\nentries:\n" + GOOD_ENTRY + "    raises: crashed\n",
                   "7: field 'raises': expected failed or error, got 'crashed'"),
    "bad action": ("release: r\nentries:\n" + GOOD_ENTRY + "    action: xskip\n",
                   "7: field 'action': expected xfail or skip, got 'xskip'"),
    "raises with action skip": ("release: r\nentries:\n" + GOOD_ENTRY + "    action: skip\n    raises: error\n",
                                ("8: field 'raises': expected no raises with action: skip (a skipped test does not "
                                 "run), got 'error'")),
    "entries not a list": ("release: r\nentries:\n  id: 'a.py::b'\n",
                           "3: field 'entries': expected a list of entries, got {'id': 'a.py::b'}"),
    "entry not a mapping": ("release: r\nentries:\n" + GOOD_ENTRY + "  - a.py::b\n",
                            ("7: field 'entries[1]': expected a mapping with id, reason, expires and issue or "
                             "owner, got 'a.py::b'")),
    "id without a test file": (("release: r\nentries:\n  - id: 'test_x*'\n    reason: r\n    owner: o\n"
                               "    expires: 2027-01-01\n"),
                               ("3: field 'id': expected a test-id pattern PATH::NAME ('*' and '?' as wildcards), "
                                "got 'test_x*'")),
    "unquoted version": ("release: r\nentries:\n" + GOOD_ENTRY + "    cann: 9.0\n",
                         "7: field 'cann': expected a non-empty string (quote it), got 9.0"),
    "missing release": ("entries: []\n", "1: field 'release': expected a value (the field is required)"),
    "unknown top-level key": ("release: r\nentries: []\nowner: o\n",
                              "3: field 'owner': expected one of the keys release, entries, got 'owner'"),
    "yaml syntax": ("release: r\nentries:\n  - id: [unclosed\n", "4: not valid YAML"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_a_schema_error_names_file_line_and_field(tmp_path, name):
    text, expected = BROKEN[name]
    path = tmp_path / "exp.yaml"
    path.write_text(text)
    with pytest.raises(ExpectationsError) as raised:
        load_expectations(path)
    assert str(raised.value).startswith(f"{path}:{expected}")
    assert "\n" not in str(raised.value)


def test_a_valid_file_gives_entries_with_their_lines(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text("release: CANN 9.0.0\nentries:\n" + GOOD_ENTRY
                    + "  - id: 'a.py::b'\n    reason: r\n    issue: x\n    expires: '2026-12-01'\n    raises: error\n"
                    + "  - id: 'a.py::c'\n    reason: hangs\n    owner: o\n    expires: 2027-01-01\n    action: skip\n")
    first, second, third = load_expectations(path)
    assert (first.location, first.release, first.raises, first.action) == (f"{path}:3", "CANN 9.0.0", "failed", "xfail")
    assert first.expires == datetime.date(2027, 3, 31)
    assert (second.location, second.expires, second.raises) == (f"{path}:7", datetime.date(2026, 12, 1), "error")
    assert (third.location, third.action) == (f"{path}:12", "skip")


def test_an_unreadable_file_is_named(tmp_path):
    with pytest.raises(ExpectationsError, match=r"missing\.yaml: cannot read the expectations file"):
        load_expectations(tmp_path / "missing.yaml")


def test_patterns_treat_brackets_literally():
    assert glob_match("f.py::t[Erf-*", "f.py::t[Erf-float16-8x16]")
    assert glob_match("f.py::t[?]", "f.py::t[3]")
    assert not glob_match("f.py::t[12]", "f.py::t1")
    assert not glob_match("f.py::t", "f.py::t[1]")


def test_a_broken_file_stops_the_run_with_a_one_line_usage_error(pytester):
    pytester.makefile(".yaml", exp="release: r\nentries:\n  - id: 'a.py::b'\n    reason: r\n    owner: o\n"
                                   "    expires: 31/03/2027\n")
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:benchmark", "--expectations", "exp.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*exp.yaml:6: field 'expires': expected an ISO date (YYYY-MM-DD), "
                                 "got '31/03/2027'")])
    assert "Traceback" not in result.stderr.str()


def test_a_bad_injected_date_is_a_usage_error(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:benchmark", "--expectations-today=31.12.2026")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--expectations-today: expected an ISO date (YYYY-MM-DD), got '31.12.2026'"])


def test_the_documented_example_is_valid_and_applies_to_no_real_soc():
    entries = load_expectations(ROOT / "expectations" / "example.yaml")
    assert entries
    for entry in entries:
        assert entry.soc is not None
        for soc in ("Ascend910B1", "Ascend910B4", "Ascend310P3", "Ascend910_9391", "Ascend950PR"):
            assert not glob_match(entry.soc, soc), textwrap.shorten(f"{entry.location} applies to {soc}", 80)
