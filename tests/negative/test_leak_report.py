"""A conformance test that leaks an object fails, and the report names the line that created it."""

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LEAKS = textwrap.dedent("""
    def make_desc(acl, rank):
        return acl.create_tensor_desc(3, [4] * rank, 2)

    def test_leaks_one_desc_of_a_loop(acl):
        for rank in range(1, 6):
            desc = make_desc(acl, rank)
            if rank != 3:
                acl.destroy_tensor_desc(desc)

    def test_leaks_a_buffer_and_its_memory(acl):
        ptr, ret = acl.rt.malloc(64, 2)
        acl.create_data_buffer(ptr, 64)

    def test_releases_everything(acl):
        desc = make_desc(acl, 2)
        acl.destroy_tensor_desc(desc)
""")


@pytest.fixture
def result(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_leaky=LEAKS)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-rN")


def test_each_leaking_test_fails_and_the_clean_one_passes(result):
    result.assert_outcomes(passed=3, errors=2)


def test_the_report_names_the_creating_line_and_the_test_line_that_called_it(result):
    result.stdout.fnmatch_lines([
        "*test_leaks_one_desc_of_a_loop*",
        "*left objects alive: 1 desc",
        ("*desc * from acl.create_tensor_desc at test_leaky.py:2 in make_desc"
        " <- test_leaky.py:6 in test_leaks_one_desc_of_a_loop*"),
    ])
    assert result.stdout.str().count("from acl.create_tensor_desc") == 1, "only the one leaked desc is reported"


def test_every_leaked_object_of_a_test_is_named(result):
    result.stdout.fnmatch_lines([
        "*left objects alive: 1 device_mem, 1 buffer",
        "*device_mem * from acl.rt.malloc at test_leaky.py:11 in test_leaks_a_buffer_and_its_memory*",
        "*buffer * from acl.create_data_buffer at test_leaky.py:12 in test_leaks_a_buffer_and_its_memory*",
    ])
