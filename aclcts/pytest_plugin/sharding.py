"""--shard K/N or auto (a stable share of the tests per host) and --devices (one device per xdist worker)."""

from __future__ import annotations

import functools
import os
import re
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

from aclcts.core.inputs import one_line
from aclcts.pytest_plugin.run_backend import run_capabilities

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")
_WHOLE = re.compile(r"\s*(\d+)\s*")

#: Highest device id --devices accepts: the simulator has at most 64 devices, and no Ascend host has more.
MAX_DEVICE_ID = 63
#: Most shards a run can be split into (crc32 of a node id is 32 bits; far more shards than any farm runs).
MAX_SHARDS = 1 << 20
#: Longest number read from a --shard, --devices or engine variable; anything longer is refused before int().
_MAX_DIGITS = 12

#: The shard count of a Kubernetes Indexed Job (its `completions`), which Kubernetes does not export itself.
COUNT_VARIABLE = "ACLCTS_SHARD_COUNT"
#: Every variable --shard=auto reads, by engine; tests clear them all.
ENGINE_VARIABLES = {
    "GitLab": ("CI_NODE_INDEX", "CI_NODE_TOTAL"),
    "Kubernetes": ("JOB_COMPLETION_INDEX", COUNT_VARIABLE),
    "Slurm": ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MAX",
              "SLURM_ARRAY_TASK_STEP"),
}
_EXPECTED = ("expected GitLab's CI_NODE_INDEX and CI_NODE_TOTAL (a job with `parallel: N`), Kubernetes' "
             f"JOB_COMPLETION_INDEX with --shard-count=N or {COUNT_VARIABLE}=N (an Indexed Job), or Slurm's "
             "SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT (an sbatch --array job)")


def add_options(group: Any) -> None:
    """Add --shard, --shard-count and --devices."""
    group.addoption("--shard", default=None, metavar="K/N|auto",
                    help="run only shard K of N (1-based): the tests whose crc32(node id) %% N == K-1; auto: K and N "
                         "from the engine that started the process (GitLab parallel job, Kubernetes Indexed Job, "
                         "Slurm job array)")
    group.addoption("--shard-count", default=None, type=int, metavar="N",
                    help=f"with --shard=auto: the shard count of a Kubernetes Indexed Job (its completions; default "
                         f"${COUNT_VARIABLE})")
    group.addoption("--devices", default=None, metavar="LIST",
                    help="devices to spread xdist workers over, e.g. 0-7 or 0,2,4-5: worker gwK runs on "
                         "devices[K %% len]; a serial run uses the first (overrides --device-id)")


_Parsed = TypeVar("_Parsed")


def _one_line_errors(parse: Callable[..., _Parsed]) -> Callable[..., _Parsed]:
    """parse with the ValueError it raises kept on one line (a newline or control character in the value escaped)."""

    @functools.wraps(parse)
    def parsed(*args: Any, **kwargs: Any) -> _Parsed:
        try:
            return parse(*args, **kwargs)
        except ValueError as exc:
            raise ValueError(one_line(str(exc))) from None

    return parsed


@_one_line_errors
def parse_shard(text: str) -> tuple[int, int]:
    """(K, N) of a K/N shard spelling; ValueError saying what was expected."""
    match = _SHARD.fullmatch(text)
    if not match:
        raise ValueError(f"--shard={text}: expected K/N with whole numbers, e.g. --shard=2/3")
    k, n = _bounded(match.group(1), MAX_SHARDS), _bounded(match.group(2), MAX_SHARDS)
    if n < 1 or not 1 <= k <= n or n > MAX_SHARDS:
        raise ValueError(f"--shard={text}: expected 1 <= K <= N and 1 <= N <= {MAX_SHARDS}")
    return k, n


@dataclass(frozen=True)
class AutoShard:
    """The shard an engine's environment variables name: K of N, the engine, and the values read."""

    k: int
    n: int
    engine: str
    source: str


def _whole(environ: Mapping[str, str], name: str) -> int:
    value = environ[name]
    match = _WHOLE.fullmatch(value)
    if not match or len(match.group(1)) > _MAX_DIGITS:
        raise ValueError(f"--shard=auto: {name}={value[:40]!r}: expected a whole number of at most {_MAX_DIGITS} "
                         "digits")
    return int(match.group(1))


def _bounded(digits: str, limit: int) -> int:
    """The value of a string of digits, or limit + 1 for one too long to be at most limit (no huge int is built)."""
    return int(digits) if len(digits) <= _MAX_DIGITS else limit + 1


def _require(environ: Mapping[str, str], engine: str, names: tuple[str, ...]) -> None:
    missing = [name for name in names if name not in environ]
    if missing:
        found = ", ".join(f"{name}={environ[name]}" for name in names if name in environ)
        raise ValueError(f"--shard=auto: {engine} sets {found} but not {', '.join(missing)}; expected "
                         f"{', '.join(names)}")


def _slurm(environ: Mapping[str, str]) -> AutoShard:
    _require(environ, "a Slurm array task", ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"))
    task, first, count = (_whole(environ, f"SLURM_ARRAY_TASK_{name}") for name in ("ID", "MIN", "COUNT"))
    step = _whole(environ, "SLURM_ARRAY_TASK_STEP") if "SLURM_ARRAY_TASK_STEP" in environ else 1
    last = _whole(environ, "SLURM_ARRAY_TASK_MAX") if "SLURM_ARRAY_TASK_MAX" in environ else first + step * (count - 1)
    source = (f"SLURM_ARRAY_TASK_ID={task} SLURM_ARRAY_TASK_MIN={first} SLURM_ARRAY_TASK_MAX={last} "
              f"SLURM_ARRAY_TASK_STEP={step} SLURM_ARRAY_TASK_COUNT={count}")
    if count < 1 or step < 1 or last != first + step * (count - 1) or task < first or (task - first) % step:
        raise ValueError(f"--shard=auto: the Slurm array is not one evenly spaced range ({source}); expected an "
                         "array such as --array=1-N or --array=0-M:S")
    return AutoShard((task - first) // step + 1, count, "Slurm job array", source)


def _kubernetes(environ: Mapping[str, str], count: int | None) -> AutoShard:
    index = _whole(environ, "JOB_COMPLETION_INDEX")
    if count is None:
        raise ValueError(f"--shard=auto: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX={index}) does not export "
                         f"its completions; expected --shard-count=N or {COUNT_VARIABLE}=N")
    if index >= count:
        raise ValueError(f"--shard=auto: JOB_COMPLETION_INDEX={index} with a count of {count}; expected an index "
                         f"from 0 to {count - 1}")
    return AutoShard(index + 1, count, "Kubernetes Indexed Job", f"JOB_COMPLETION_INDEX={index} count={count}")


def _gitlab(environ: Mapping[str, str]) -> AutoShard:
    if "CI_NODE_INDEX" not in environ and environ.get("CI_NODE_TOTAL", "").strip() == "1":
        return AutoShard(1, 1, "GitLab job without parallel", "CI_NODE_TOTAL=1")
    _require(environ, "a GitLab parallel job", ("CI_NODE_INDEX", "CI_NODE_TOTAL"))
    index, total = _whole(environ, "CI_NODE_INDEX"), _whole(environ, "CI_NODE_TOTAL")
    if not 1 <= index <= total:
        raise ValueError(f"--shard=auto: CI_NODE_INDEX={index} CI_NODE_TOTAL={total}; expected "
                         "1 <= CI_NODE_INDEX <= CI_NODE_TOTAL")
    return AutoShard(index, total, "GitLab parallel job", f"CI_NODE_INDEX={index} CI_NODE_TOTAL={total}")


@_one_line_errors
def shard_from_environment(environ: Mapping[str, str], count: int | None = None) -> AutoShard:
    """The shard of --shard=auto: from Slurm's, else Kubernetes', else GitLab's variables; ValueError naming them."""
    # Innermost engine first: sbatch passes the submitting shell's environment on, so a Slurm task started from a
    # GitLab job sees both; GitLab sets CI_NODE_TOTAL=1 in every job, CI_NODE_INDEX only in parallel ones.
    if count is None and COUNT_VARIABLE in environ:
        count = _whole(environ, COUNT_VARIABLE)
    if count is not None and not 1 <= count <= MAX_SHARDS:
        raise ValueError(f"--shard=auto: a shard count of {count}; expected 1 <= N <= {MAX_SHARDS}")
    if "SLURM_ARRAY_TASK_ID" in environ:
        found = _slurm(environ)
    elif "JOB_COMPLETION_INDEX" in environ:
        return _kubernetes(environ, count)
    elif "CI_NODE_INDEX" in environ or "CI_NODE_TOTAL" in environ:
        found = _gitlab(environ)
    else:
        raise ValueError(f"--shard=auto: no shard index in the environment; {_EXPECTED}")
    if count is not None and count != found.n:
        raise ValueError(f"--shard=auto: a shard count of {count} (--shard-count or {COUNT_VARIABLE}) but the "
                         f"{found.engine} has {found.n} ({found.source})")
    return found


def in_shard(nodeid: str, k: int, n: int) -> bool:
    """Whether a test belongs to shard K of N."""
    return zlib.crc32(nodeid.encode("utf-8")) % n == k - 1


@_one_line_errors
def parse_devices(text: str) -> list[int]:
    """Device ids of a list such as "0-7" or "0,2,4-5" (order kept, no repeats); ValueError saying what was expected."""
    devices: list[int] = []
    for part in text.split(","):
        match = _RANGE.fullmatch(part)
        if not match:
            item = repr(part.strip()) if part.strip() else "an empty item"
            raise ValueError(f"--devices={text}: {item} is not a device id or range A-B; expected e.g. 0-7 or "
                             "0,2,4-5")
        first = _bounded(match.group(1), MAX_DEVICE_ID)
        last = _bounded(match.group(2), MAX_DEVICE_ID) if match.group(2) is not None else first
        if max(first, last) > MAX_DEVICE_ID:
            raise ValueError(f"--devices={text[:80]}: {part.strip()[:40]} goes beyond device {MAX_DEVICE_ID}; "
                             f"expected ids 0..{MAX_DEVICE_ID}")
        if last < first:
            raise ValueError(f"--devices={text}: range {first}-{last} runs backwards")
        devices += [d for d in range(first, last + 1) if d not in devices]
    return devices


def device_for(devices: list[int], worker_id: str | None) -> int:
    """The device of xdist worker gwK (devices[K % len]), or of a serial run (the first)."""
    if worker_id is None:
        return devices[0]
    match = re.fullmatch(r"gw(\d+)", worker_id)
    if not match:
        raise ValueError(f"--devices: unexpected xdist worker id {worker_id!r}, expected gwN")
    return devices[int(match.group(1)) % len(devices)]


def _ensure_simulated_devices(count: int) -> None:
    import aclcts.sim

    if aclcts.sim.settings().device_count < count:
        aclcts.sim.configure(device_count=count)


def _resolve(shard: str, count: int | None) -> tuple[int, int, str]:
    """K, N and where they came from, of --shard (K/N or auto) and --shard-count; ValueError saying what was wrong."""
    if shard.strip() != "auto":
        if count is not None:
            raise ValueError(f"--shard-count={count} goes with --shard=auto (the count of a Kubernetes Indexed Job)")
        k, n = parse_shard(shard)
        return k, n, "--shard"
    found = shard_from_environment(os.environ, count)
    return found.k, found.n, f"--shard=auto: {found.engine}, {found.source}"


def configure(config: pytest.Config) -> None:
    """Check --shard and --devices; pin this process to its device; register the shard filter."""
    shard, count = config.getoption("--shard"), config.getoption("--shard-count")
    if shard is not None or count is not None:
        try:
            k, n, source = _resolve("" if shard is None else shard, count)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        config.option.shard = f"{k}/{n}"  # what the run report records (xdist workers resolve it alike)
        config.pluginmanager.register(ShardFilter(k, n, source), "aclcts-shard")
    spelled = config.getoption("--devices")
    if spelled is None:
        return
    try:
        devices = parse_devices(spelled)
        worker = config.workerinput["workerid"] if hasattr(config, "workerinput") else None
        config.option.device_id = device_for(devices, worker)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    capabilities = run_capabilities(config)
    if capabilities is not None and capabilities.simulated_devices:
        try:
            _ensure_simulated_devices(max(devices) + 1)
        except ValueError as exc:
            raise pytest.UsageError(f"--devices={spelled}: the simulator cannot have that many devices ({exc})") from None
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(DevicesHeader(spelled, devices), "aclcts-devices-header")


def device_map(devices: list[int], workers: int) -> str:
    """Which xdist worker runs on which device ("gw0 -> 0, gw1 -> 2"), or the serial run's device."""
    if workers <= 0:
        return f"serial run on device {devices[0]}"
    return ", ".join(f"gw{k} -> device {device_for(devices, f'gw{k}')}" for k in range(workers))


class DevicesHeader:
    """Names, in the run's header, the device of each xdist worker (or of the serial run)."""

    def __init__(self, spelled: str, devices: list[int]) -> None:
        self.spelled, self.devices = spelled, devices

    def pytest_report_header(self, config: pytest.Config) -> str:
        """The --devices line of the header."""
        workers = getattr(config.option, "numprocesses", None)
        count = workers if isinstance(workers, int) and getattr(config.option, "dist", "no") != "no" else 0
        return f"aclcts --devices={self.spelled}: {device_map(self.devices, count)}"


class ShardFilter:
    """Deselects the tests of other shards."""

    def __init__(self, k: int, n: int, source: str = "--shard") -> None:
        self.k, self.n, self.source = k, n, source

    def pytest_report_header(self, config: pytest.Config) -> str:
        """The shard this run takes, and where K and N came from."""
        return f"aclcts shard: {self.k}/{self.n} ({self.source})"

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Keep the items of this shard; report the others as deselected."""
        kept = [item for item in items if in_shard(item.nodeid, self.k, self.n)]
        if len(kept) == len(items):
            return
        dropped = [item for item in items if not in_shard(item.nodeid, self.k, self.n)]
        items[:] = kept
        config.hook.pytest_deselected(items=dropped)
