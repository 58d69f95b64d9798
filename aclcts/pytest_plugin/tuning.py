"""Process tuning of aclcts' pytest runs, all switched off by ACLCTS_TUNING=off; none of it changes a result.

* OpenBLAS's thread pool costs more than it gains on the suite's small tensors, and under pytest-xdist the spinning
  pool threads of each worker take the other workers' cores: importing this module (the plugin does, before NumPy
  is first imported) sets OPENBLAS_NUM_THREADS=1 unless the user exported a value.
* pytest rewrites the asserts of every module of a distribution with a pytest11 entry point (aclcts and
  hypothesis); where rewritten bytecode is not cached (PYTHONDONTWRITEBYTECODE=1) every test process parses and
  rewrites them again in Python. Their asserts are not test assertions, so `unrewritten()` imports them with
  Python's own loaders; test modules and conftest files are still rewritten.
* The collected items, the cases and the loaded modules live for the whole session: the hooks below move them out
  of the cyclic garbage collector's scans (gc.freeze) once collected, on an xdist controller once its workers
  started, and before pytest's closing collections.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Generator, Iterator

import pytest

#: Environment variable that turns the tuning off with the value "off".
SWITCH = "ACLCTS_TUNING"


def enabled() -> bool:
    """Whether the tuning is on (ACLCTS_TUNING is not "off")."""
    return os.environ.get(SWITCH, "").strip().lower() != "off"


if enabled():
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@contextlib.contextmanager
def unrewritten() -> Iterator[None]:
    """Within the block, modules are imported by Python's own loaders, not pytest's assertion-rewriting import hook."""
    if not enabled():
        yield
        return
    # pytest's import hook is the meta path finder that offers pytest.register_assert_rewrite's `mark_rewrite`.
    rewriters = [finder for finder in sys.meta_path if hasattr(finder, "mark_rewrite")]
    sys.meta_path[:] = [finder for finder in sys.meta_path if finder not in rewriters]
    try:
        yield
    finally:
        sys.meta_path[:0] = rewriters


def freeze_survivors() -> None:
    """Collect the garbage, then move every object still alive out of the cyclic garbage collector's scans."""
    gc.collect()
    gc.freeze()


class FrozenHeap:
    """The hooks that freeze the heap at the points where what is alive lives on for the rest of the run."""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Freeze the collected items, cases and loaded modules."""
        freeze_survivors()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """On an xdist controller, its workers started: import hypothesis unrewritten, then freeze what it loaded."""
        # hypothesis' own terminal summary imports hypothesis; imported here it overlaps the workers' start-up. The
        # controller collects nothing, so nothing else freezes its heap before the workers' reports arrive.
        if session.config.pluginmanager.hasplugin("dsession"):
            with unrewritten():
                import hypothesis  # noqa: F401
            freeze_survivors()
        return (yield)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Freeze what is left, so that pytest's closing collections (for unraisable exceptions) rescan nothing."""
        freeze_survivors()


def configure(config: pytest.Config) -> None:
    """Register the heap-freezing hooks unless the tuning is off."""
    if enabled():
        config.pluginmanager.register(FrozenHeap(), "aclcts-tuning")
