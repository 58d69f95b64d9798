"""Bounded listings of many objects (leaks): a count per kind and per place, then the first few objects in full."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

#: How many objects a listing shows in full; the others are counted.
SHOWN_IN_FULL = 5

T = TypeVar("T")


def kind_counts(kinds: Sequence[str]) -> str:
    """'3 desc, 1 buffer': how many there are of each kind, in order of first appearance."""
    return ", ".join(f"{count} {kind}" for kind, count in Counter(kinds).items())


def bounded_listing(objects: Sequence[T], place: Callable[[T], str], full: Callable[[T], str],
                    shown: int = SHOWN_IN_FULL, indent: str = "  ") -> list[str]:
    """Lines: every object in full when there are at most `shown`; else each place with how many objects it holds (most
    first), then the first `shown` objects in full and how many more there are."""
    if len(objects) <= shown:
        return [f"{indent}{full(obj)}" for obj in objects]
    places = Counter(place(obj) for obj in objects)
    lines = [f"{indent}{count} x {where}" for where, count in places.most_common()]
    lines.append(f"the first {shown} of {len(objects)} in full:")
    lines += [f"{indent}{full(obj)}" for obj in objects[:shown]]
    lines.append(f"{indent}... and {len(objects) - shown} more")
    return lines
