"""--shard K/N (a stable share of the tests per host) and --devices (one device per xdist worker)."""

from __future__ import annotations

import re
import zlib
from typing import Any

import pytest

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def add_options(group: Any) -> None:
    """Add --shard and --devices."""
    group.addoption("--shard", default=None, metavar="K/N",
                    help="run only shard K of N (1-based): the tests whose crc32(node id) % N == K-1")
    group.addoption("--devices", default=None, metavar="LIST",
                    help="devices to spread xdist workers over, e.g. 0-7 or 0,2,4-5: worker gwK runs on "
                         "devices[K % len]; a serial run uses the first (overrides --device-id)")


def parse_shard(text: str) -> tuple[int, int]:
    """(K, N) of a K/N shard spelling; ValueError saying what was expected."""
    match = _SHARD.fullmatch(text)
    if not match:
        raise ValueError(f"--shard={text}: expected K/N with whole numbers, e.g. --shard=2/3")
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1 or not 1 <= k <= n:
        raise ValueError(f"--shard={text}: expected 1 <= K <= N and N >= 1")
    return k, n


def in_shard(nodeid: str, k: int, n: int) -> bool:
    """Whether a test belongs to shard K of N."""
    return zlib.crc32(nodeid.encode("utf-8")) % n == k - 1


def parse_devices(text: str) -> list[int]:
    """Device ids of a list such as "0-7" or "0,2,4-5" (order kept, no repeats); ValueError saying what was expected."""
    devices: list[int] = []
    for part in text.split(","):
        match = _RANGE.fullmatch(part)
        if not match:
            item = repr(part.strip()) if part.strip() else "an empty item"
            raise ValueError(f"--devices={text}: {item} is not a device id or range A-B; expected e.g. 0-7 or "
                             "0,2,4-5")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
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


def configure(config: pytest.Config) -> None:
    """Check --shard and --devices; pin this process to its device; register the shard filter."""
    shard = config.getoption("--shard")
    if shard is not None:
        try:
            k, n = parse_shard(shard)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        config.pluginmanager.register(ShardFilter(k, n), "aclcts-shard")
    spelled = config.getoption("--devices")
    if spelled is None:
        return
    try:
        devices = parse_devices(spelled)
        worker = config.workerinput["workerid"] if hasattr(config, "workerinput") else None
        config.option.device_id = device_for(devices, worker)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.getoption("--backend") == "sim":
        try:
            _ensure_simulated_devices(max(devices) + 1)
        except ValueError as exc:
            raise pytest.UsageError(f"--devices={spelled}: the simulator cannot have that many devices ({exc})") from None


class ShardFilter:
    """Deselects the tests of other shards."""

    def __init__(self, k: int, n: int) -> None:
        self.k, self.n = k, n

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Keep the items of this shard; report the others as deselected."""
        kept = [item for item in items if in_shard(item.nodeid, self.k, self.n)]
        if len(kept) == len(items):
            return
        dropped = [item for item in items if not in_shard(item.nodeid, self.k, self.n)]
        items[:] = kept
        config.hook.pytest_deselected(items=dropped)
