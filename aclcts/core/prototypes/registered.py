"""Op types a running program declared as custom (the simulator's register_kernel does), for the in-process ATC."""

from __future__ import annotations

_DECLARED: set[str] = set()


def declare(op_type: str) -> None:
    """Record that op_type has a custom kernel in this process, so compiling it needs no prototype."""
    _DECLARED.add(op_type)


def forget(op_type: str) -> None:
    """Undo declare (no error if op_type was not declared)."""
    _DECLARED.discard(op_type)


def declared(op_type: str) -> bool:
    """Whether op_type was declared in this process."""
    return op_type in _DECLARED
