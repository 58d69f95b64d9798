"""Merging the JUnit XML files of shards into one, refusing a test case that two files both hold."""

from __future__ import annotations

import os
from pathlib import Path

from junitparser import JUnitXml, JUnitXmlError, TestSuite

from aclcts.core.files import refuse_special
from aclcts.report.records import ReportError


def _where(path: str, exc: SyntaxError) -> str:
    position = getattr(exc, "position", None)
    line = position[0] if position else exc.lineno
    return f"{path}:{line}" if line else path


def read_suites(path: str) -> list[TestSuite]:
    """The test suites of a JUnit XML file; ReportError naming file (and line) when it is not one."""
    try:
        document = JUnitXml.fromfile(path)
    except OSError as exc:
        raise ReportError(f"{path}: cannot read the JUnit XML file: {exc.strerror or exc}") from None
    except SyntaxError as exc:
        raise ReportError(f"{_where(path, exc)}: not valid XML ({exc.msg}), expected a JUnit XML file") from None
    except JUnitXmlError:
        raise ReportError(f"{path}:1: the root element is neither <testsuites> nor <testsuite>, expected a JUnit "
                          "XML file") from None
    return [document] if isinstance(document, TestSuite) else list(document)


def merge_junit(paths: list[str]) -> JUnitXml:
    """One JUnit XML document holding every suite of paths; ReportError when two files hold the same test case."""
    merged = JUnitXml()
    owner: dict[tuple[str, str], str] = {}
    for path in paths:
        for suite in read_suites(path):
            for case in suite:
                key = (case.classname or "", case.name or "")
                if owner.setdefault(key, path) != path:
                    raise ReportError(f"cannot merge JUnit XML: test case {key[0]}::{key[1]} is in both "
                                      f"{owner[key]} and {path}")
            merged.add_testsuite(suite)
    merged.update_statistics()
    return merged


def write_junit(document: JUnitXml, out: str) -> None:
    """Write a JUnit XML document atomically (a temporary file renamed over the target)."""
    target = Path(out)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        refuse_special(target)
        document.write(str(temporary))
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise ReportError(f"{target}: cannot write the merged JUnit XML: {exc.strerror or exc}") from None
