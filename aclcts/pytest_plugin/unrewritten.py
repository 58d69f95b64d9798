"""Importing library modules past pytest's assertion rewriting, which they get only for shipping a pytest plugin."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def unrewritten() -> Iterator[None]:
    """Within the block, modules are imported by Python's own loaders, not pytest's assertion-rewriting hook."""
    # pytest rewrites every module of a distribution with a pytest11 entry point (aclcts and hypothesis). Where
    # rewritten bytecode is not cached (PYTHONDONTWRITEBYTECODE=1, here and in CI) every test process parses and
    # rewrites them again in Python: 0.2 s per process for aclcts and 1 s for hypothesis. Their asserts are not test
    # assertions (aclcts has none), so nothing is lost; test modules and conftest files are still rewritten.
    rewriters = [finder for finder in sys.meta_path if hasattr(finder, "mark_rewrite")]
    sys.meta_path[:] = [finder for finder in sys.meta_path if finder not in rewriters]
    try:
        yield
    finally:
        sys.meta_path[:0] = rewriters
