"""--shard K/N: a stable crc32 assignment of tests to shards, others reported as deselected, K/N validated."""

import textwrap

import pytest

from aclcts.pytest_plugin.sharding import in_shard, parse_shard

TEN_TESTS = textwrap.dedent("""
    import pytest

    @pytest.mark.parametrize("i", range(10))
    def test_many(i):
        pass
""")


@pytest.fixture(autouse=True)
def not_an_xdist_worker(monkeypatch):
    """In-process runs must not see the outer xdist worker's variables."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def test_the_shards_of_a_run_partition_its_tests(pytester):
    pytester.makepyfile(test_ten=TEN_TESTS)
    picked = []
    for k in (1, 2, 3):
        result = run(pytester, f"--shard={k}/3", "-v")
        ran = [line.split(" ")[0] for line in result.outlines if " PASSED" in line]
        deselected = result.parseoutcomes().get("deselected", 0)
        assert len(ran) + deselected == 10
        assert all(in_shard(nodeid, k, 3) for nodeid in ran)
        picked += ran
    assert sorted(picked) == sorted(f"test_ten.py::test_many[{i}]" for i in range(10))


def test_assignment_is_crc32_of_the_node_id_modulo_n():
    # crc32(b"a") is 0xE8B7BE43 (the standard CRC-32 check value of "a").
    assert [k for k in range(1, 8) if in_shard("a", k, 7)] == [0xE8B7BE43 % 7 + 1]
    assert in_shard("anything", 1, 1)


@pytest.mark.parametrize("text, expected", [("1/1", (1, 1)), ("3/8", (3, 8)), (" 2 / 4 ", (2, 4))])
def test_shard_spellings(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "2", "1/2/3", ""])
def test_a_bad_shard_is_a_one_line_usage_error(pytester, text):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(pytester, f"--shard={text}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--shard={text}: expected *"])
    assert "Traceback" not in result.stderr.str()


def test_the_shard_is_recorded_in_the_run_record(pytester):
    pytester.makepyfile(test_ten=TEN_TESTS)
    path = pytester.path / "shard.jsonl"
    run(pytester, "--shard=2/5", f"--report={path}")
    first = path.read_text().splitlines()[0]
    assert '"record":"run"' in first and '"shard":"2/5"' in first
