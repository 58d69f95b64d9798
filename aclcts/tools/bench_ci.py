"""`aclcts bench ci`: the wall time of each part of .ci/run and its slowest tests, measured on a fresh clone of the
checkout's HEAD as CI runs it (optionally with N cloned op types added to the clone's library)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

from aclcts.tools.op_clones import add_clones

#: .ci/run's line ending each part: `-- NAME: SECONDS s`.
_PART = re.compile(r"^-- (?P<name>.+): (?P<seconds>\d+) s$")
#: How many of the slowest tests are listed.
SLOWEST = 15
#: Lines of .ci/run's output shown when it fails.
TAIL = 40


class CiRunError(Exception):
    """The checkout cannot be cloned, or .ci/run cannot be started."""


def repository_root(start: Path) -> Path:
    """The top folder of the git checkout holding start; CiRunError if it is none."""
    done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise CiRunError(f"{start}: not in a git checkout; `aclcts bench ci` clones the checkout's HEAD")
    return Path(done.stdout.strip())


def junit_cases(folder: Path) -> list[tuple[str, float, bool]]:
    """(test id, seconds, failed or errored) of every test case in the JUnit XML files of folder."""
    found: list[tuple[str, float, bool]] = []
    for path in sorted(folder.glob("*.xml")):
        for case in ElementTree.parse(path).iter("testcase"):
            name = f"{path.stem}: {case.get('classname', '')}::{case.get('name', '')}"
            failed = case.find("failure") is not None or case.find("error") is not None
            found.append((name, float(case.get("time") or 0.0), failed))
    return found


def slowest_tests(folder: Path, count: int = SLOWEST) -> list[tuple[str, float]]:
    """(test id, seconds) of the count slowest test cases in the JUnit XML files of folder, slowest first."""
    return sorted(((name, seconds) for name, seconds, _ in junit_cases(folder)), key=lambda item: -item[1])[:count]


def run_ci(clone: Path, junit: Path, log: Path) -> tuple[int, list[tuple[str, int]], float]:
    """Run .ci/run in clone with CI=true: (exit status, (part, seconds) as it printed them, wall seconds)."""
    env = {**os.environ, "CI": "true", "CI_JUNIT_DIR": str(junit)}
    parts: list[tuple[str, int]] = []
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as sink:
        child = subprocess.Popen(["bash", ".ci/run"], cwd=clone, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
        assert child.stdout is not None
        for line in child.stdout:
            sink.write(line)
            sink.flush()
            match = _PART.match(line.rstrip("\n"))
            if match:
                parts.append((match["name"], int(match["seconds"])))
        status = child.wait()
    return status, parts, time.monotonic() - started


def ci_rows(root: Path, clone_ops: int, keep: Path | None = None) -> Iterator[tuple[str, float, str]]:
    """(figure, value, unit) rows of one .ci/run on a fresh clone of root's HEAD, each yielded as soon as known; keep,
    a new folder, receives the run's JUnit XML files and its output (ci.log)."""
    if keep is not None and keep.exists():
        raise CiRunError(f"--keep {keep}: it exists; expected a new folder for the JUnit files and the log")
    with tempfile.TemporaryDirectory(prefix="aclcts-bench-ci-") as scratch:
        clone = Path(scratch) / "repo"
        junit = keep if keep is not None else Path(scratch) / "junit"
        log = junit / "ci.log"
        done = subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(root), str(clone)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CiRunError(f"git clone {root}: {done.stderr.strip()}")
        junit.mkdir(parents=True)
        if clone_ops:
            yield "cloned op types added to the library", len(add_clones(clone, clone_ops)), "op types"
        status, parts, wall = run_ci(clone, junit, log)
        for name, seconds in parts:
            yield f"ci: {name}", seconds, "s"
        yield "ci: whole .ci/run", wall, "s"
        yield "ci: exit status", status, ""
        for test_id, seconds in slowest_tests(junit):
            yield f"slowest: {test_id}", seconds, "s"
        for test_id, seconds, failed in junit_cases(junit):
            if failed:
                yield f"failed: {test_id}", seconds, "s"
        if status != 0:
            lines = log.read_text(encoding="utf-8").splitlines()[-TAIL:]
            raise CiRunError(".ci/run failed; its last lines:\n" + "\n".join(lines))
