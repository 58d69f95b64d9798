"""--update-golden rewrites the golden store once per run: serially, or on the xdist controller and not in each worker."""

import shutil
from pathlib import Path

import pytest

REPO_GOLDEN = Path(__file__).resolve().parents[2] / "golden"

#: Wraps golden.generate in every process of the run and appends the process's role to generated.log.
RECORDING_CONFTEST = """\
from pathlib import Path

from aclcts.judge import golden

LOG = Path(__file__).parent / "generated.log"
_generate = golden.generate


def pytest_configure(config):
    role = getattr(config, "workerinput", {}).get("workerid", "main")

    def generate(folder):
        with LOG.open("a") as log:
            log.write(role + "\\n")
        return _generate(folder)

    golden.generate = generate
"""


@pytest.mark.parametrize("distribution", [(), ("-n", "2")], ids=["serial", "n2"])
def test_update_golden_rewrites_the_store_in_one_process(pytester, distribution):
    shutil.copytree(REPO_GOLDEN, pytester.path / "gold")
    pytester.makeconftest(RECORDING_CONFTEST)
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--update-golden", "--golden-dir=gold",
                                           *distribution)
    assert result.ret == 0, result.stdout.str()
    assert (pytester.path / "generated.log").read_text().split() == ["main"]
    result.stdout.fnmatch_lines(["*--update-golden rewrote * golden file(s)*"])
