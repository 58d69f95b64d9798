"""Guard bands around outputs: every output sits between two bands and is filled with POISON before each
execution, so that writes outside an output and elements an op never wrote show.

The band after an output starts at its 32-byte aligned end: a kernel moves data to global memory in 32-byte blocks,
and malloc reserves ALIGN_UP(size, 32) + 32 bytes for exactly this, so writes between the size and that end are
tolerated (counted, and warned about with TailBlockWritten).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.cases import TensorCase
from aclcts.drive import flow

#: Bytes of guard band before and after every output; a multiple of 64 keeps outputs aligned.
GUARD = 64
#: The byte every output allocation is filled with before execution.
POISON = 0x7B
#: Bytes of one block of a kernel's move to global memory: an output's last block may be written whole.
BLOCK = 32


class GuardBandError(AssertionError):
    """An op wrote outside its output tensor (before it, or past its 32-byte aligned end)."""


class TailBlockWritten(UserWarning):
    """An op wrote bytes between an output's size and its 32-byte aligned end (tolerated, but worth knowing)."""


def align_up(size: int, alignment: int = BLOCK) -> int:
    """size rounded up to a multiple of alignment."""
    return -(-size // alignment) * alignment


@dataclass(frozen=True)
class Guarded:
    """One output allocation: the start of the output (after its guard band) and the output's size in bytes."""

    ptr: int
    size: int

    @property
    def base(self) -> int:
        """Start of the allocation (the guard band before the output)."""
        return self.ptr - GUARD

    @property
    def aligned(self) -> int:
        """Bytes from the start of the output to its 32-byte aligned end, where the guard band after it starts."""
        return align_up(self.size)

    @property
    def total(self) -> int:
        """Bytes of the allocation: the output up to its aligned end and both guard bands."""
        return self.aligned + 2 * GUARD


def guarded_malloc(res: flow.Resources, size: int) -> Guarded:
    """Allocate size bytes (up to their 32-byte aligned end) between two guard bands, held by res."""
    return Guarded(flow.malloc(res, align_up(size) + 2 * GUARD) + GUARD, size)


def poison(acl: Any, allocations: Iterable[Guarded]) -> None:
    """Fill every output and its guard bands with POISON."""
    for held in allocations:
        with flow.step("acl.rt.memset"):
            flow.check(acl.rt.memset(held.base, held.total, POISON, held.total), "acl.rt.memset")


def read_guarded(res: flow.Resources, held: Guarded, overwritten: Callable[[str], str],
                 size: int | None = None) -> tuple[bytes, int]:
    """The first `size` (default all) bytes of an output and how many bytes between its size and its 32-byte aligned
    end lost their POISON (a TailBlockWritten warning if any); GuardBandError(overwritten("before" or "after")) if a
    guard band lost its POISON."""
    raw = flow.copy_to_host(res, held.base, held.total)
    band = bytes([POISON]) * GUARD
    before, after = raw[:GUARD], raw[GUARD + held.aligned:]
    if before != band:
        raise GuardBandError(overwritten("before"))
    if after != band:
        raise GuardBandError(f"{overwritten('after')} (past its 32-byte aligned end, {held.aligned} bytes)")
    tail = raw[GUARD + held.size:GUARD + held.aligned]
    written = sum(byte != POISON for byte in tail)
    if written:
        warnings.warn(TailBlockWritten(f"{overwritten('after')}: {written} of the {len(tail)} byte(s) up to its "
                                       f"32-byte aligned end ({held.aligned} bytes); tolerated, kernels write whole "
                                       "32-byte blocks"), stacklevel=2)
    return raw[GUARD:GUARD + (held.size if size is None else size)], written


def unwritten(body: bytes, tensor: TensorCase, shape: tuple[int, ...]) -> np.ndarray:
    """Per element of an output read back as body: whether all its bytes still hold POISON (the op never wrote it)."""
    itemsize = tensor.np_dtype.itemsize
    elements = np.frombuffer(body, np.uint8).reshape(-1, itemsize) if body else np.zeros((0, itemsize), np.uint8)
    return np.all(elements == POISON, axis=1).reshape(shape)
