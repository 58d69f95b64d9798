"""Reproduce lines: one shell command, run where the run was started, that reruns exactly one test the same way.

The line repeats what the test depends on and nothing else: the `ACLCTS_*` environment, the test as a path relative to
the folder the run was started in, the other folders of the command line that hold no test of the run but bring a
`conftest.py` the test may need (a custom op's folder registers its kernel there), `-p` plugins,
the backend and seed, and every option that changes what a test does. Outputs (reports, JUnit, Allure), sharding,
`-n` and `-k` are left out: the test's own id selects it.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

#: Options that change what a test does, repeated in its reproducing command line when the run gave them.
REPRO_OPTIONS = ("--ops", "--smoke", "--model-dir", "--device-id", "--golden-dir", "--model-cache", "--error-codes",
                 "--error-codes-lenient", "--isolate", "--cann-version", "--expectations-today", "--timeout",
                 "--timeout-method", "--memory-budget", "--hypothesis-profile", "--hypothesis-seed", "--rootdir", "-c", "--import-mode",
                 "--noconftest", "--with-step-tests")
#: Options that may be given more than once, each value repeated.
REPEATED_OPTIONS = ("--expectations", "--override-ini")
#: Defaults of the options above that are not None (a value equal to its default is not repeated).
DEFAULTS = {"--device-id": 0, "--import-mode": "prepend"}
_NONE = object()


def repro_command(item: pytest.Item) -> str:
    """One command line that reruns exactly this test with the same environment, backend, seed, cases and options."""
    config = item.config
    environment = [f"{name}={shlex.quote(value)}" for name, value in sorted(os.environ.items())
                   if name.startswith("ACLCTS_")]
    words = ["pytest", node_argument(item), *companion_arguments(item),
             f"--backend={config.getoption('--backend')}", f"--aclcts-seed={config.getoption('--aclcts-seed')}"]
    for plugin in dict.fromkeys(["no:randomly", *plugins_given(config.invocation_params.args)]):
        words += ["-p", plugin]
    for option in REPRO_OPTIONS:
        value = config.getoption(option, None)
        if value is True:
            words.append(option)
        elif value is not None and value is not False and value != "" and value != DEFAULTS.get(option, _NONE):
            words.append(f"{option}={value}")
    for option in REPEATED_OPTIONS:
        words += [f"{option}={value}" for value in config.getoption(option, None) or ()]
    if config.getoption("--cases"):
        words += ["--cases", *config.getoption("--cases")]  # last: it takes every word after it
    return " ".join([*environment, shlex.join(words)])  # NAME=value words stay unquoted, or a shell runs them


def node_argument(item: pytest.Item) -> str:
    """The test's id with its file given relative to the folder the run was started in."""
    rest = item.nodeid.partition("::")[2]
    relative = os.path.relpath(item.path, item.config.invocation_params.dir)
    return f"{relative}::{rest}" if rest else relative


def companion_arguments(item: pytest.Item) -> list[str]:
    """The run's other file and folder arguments that hold no test of the run but bring a conftest.py the test may need.

    Pytest loads the conftest.py files of every argument (a custom op's folder registers its kernel in one). An argument
    that holds the test, brings no conftest.py of its own, or holds test modules of its own (another suite, whose
    conftest.py serves its own tests) is left out.
    """
    test = Path(os.path.abspath(item.path))
    holding_tests = item.config.stash.get(_HOLDING_TESTS, set())
    words = [spelled for spelled, path in _path_arguments(item.config)
             if path != test and path not in test.parents and spelled not in holding_tests
             and _brings_conftest(path, test)]
    return list(dict.fromkeys(words))


def _brings_conftest(argument: Path, test: Path) -> bool:
    """Whether pytest, given this argument, loads a conftest.py that it does not load for the test's path alone."""
    folder = argument if argument.is_dir() else argument.parent
    candidates = [folder, *folder.parents, *(sub for sub in folder.glob("test*") if sub.is_dir())]
    return any((candidate / "conftest.py").is_file() and candidate not in test.parents for candidate in candidates)


def _path_arguments(config: pytest.Config) -> list[tuple[str, Path]]:
    """The run's file and folder arguments as written and as absolute paths."""
    found = []
    for argument in config.args:
        spelled = argument.partition("::")[0]
        path = Path(os.path.abspath(config.invocation_params.dir / spelled))
        if path.exists():
            found.append((spelled, path))
    return found


_HOLDING_TESTS = pytest.StashKey[set[str]]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Before anything is deselected: the file and folder arguments of the run that hold collected tests."""
    if len(config.args) < 2:  # a single argument holds every test of the run
        return
    arguments = _path_arguments(config)
    paths = {Path(os.path.abspath(item.path)) for item in items}
    config.stash[_HOLDING_TESTS] = {spelled for spelled, argument in arguments
                                    if any(path == argument or path.is_relative_to(argument) for path in paths)}


def plugins_given(arguments: tuple[str, ...] | list[str]) -> list[str]:
    """The `-p NAME` plugins of a command line, in order."""
    found = []
    for at, word in enumerate(arguments):
        if word == "-p" and at + 1 < len(arguments):
            found.append(arguments[at + 1])
        elif word.startswith("-p") and not word.startswith("--") and len(word) > 2:
            found.append(word[2:].lstrip("="))
    return found
