"""The guard band after an output starts at its 32-byte aligned end: writes in the output's last 32-byte block are
counted and warned about, writes past it fail with GuardBandError."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aclcts.drive import executor, flow
from aclcts.drive.executor import (GUARD, GuardBandError, TailBlockWritten, align_up, guarded_malloc, poison,
                                   read_guarded)
from aclcts.sim import acl, isolated


@pytest.fixture
def res() -> Iterator[flow.Resources]:
    """Resources of a fresh simulated session."""
    with isolated(faults=""):
        session = flow.open_session(acl, 0)
        with flow.resources(acl) as held:
            yield held
        flow.close_session(session)


def message(side: str) -> str:
    return f"bytes {side} the output were overwritten"


def write(held: executor.Guarded, offset: int, count: int) -> None:
    """Fill count bytes at offset from the start of the output with 0x00."""
    flow.check(acl.rt.memset(held.ptr + offset, count, 0, count), "acl.rt.memset")


@pytest.mark.parametrize("size, aligned", [(1, 32), (31, 32), (32, 32), (33, 64), (120, 128)])
def test_an_output_is_guarded_from_its_32_byte_aligned_end(size, aligned):
    assert align_up(size) == aligned
    assert executor.Guarded(GUARD + 4096, size).total == aligned + 2 * GUARD


@pytest.mark.parametrize("size", [4, 100, 120])
def test_writes_up_to_the_aligned_end_are_counted_and_warned_about(res, size):
    held = guarded_malloc(res, size)
    poison(acl, [held])
    write(held, 0, size)
    write(held, size, align_up(size) - size)
    with pytest.warns(TailBlockWritten, match=f"{align_up(size) - size} of the {align_up(size) - size} byte"):
        body, tail = read_guarded(res, held, message)
    assert (body, tail) == (bytes(size), align_up(size) - size)


def test_an_output_written_only_within_its_size_warns_nothing_and_counts_0(res, recwarn):
    held = guarded_malloc(res, 100)
    poison(acl, [held])
    write(held, 0, 100)
    assert read_guarded(res, held, message) == (bytes(100), 0)
    assert not [w for w in recwarn if issubclass(w.category, TailBlockWritten)]


@pytest.mark.parametrize("size, offset", [(100, 128), (128, 128), (4, 32)], ids=["past-aligned", "past-full-block",
                                                                              "first-byte-after-block"])
def test_a_write_past_the_aligned_end_is_a_guard_band_error(res, size, offset):
    held = guarded_malloc(res, size)
    poison(acl, [held])
    write(held, offset, 1)
    with pytest.raises(GuardBandError, match="past its 32-byte aligned end"):
        read_guarded(res, held, message)


def test_a_write_before_the_output_is_a_guard_band_error(res):
    held = guarded_malloc(res, 100)
    poison(acl, [held])
    write(held, -1, 1)
    with pytest.raises(GuardBandError, match="before"):
        read_guarded(res, held, message)
