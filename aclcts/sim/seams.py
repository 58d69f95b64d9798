"""Seams: named replaceable functions, the one place where simulator behaviour can be substituted."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: A substitute: given the function it replaces, the function to call instead.
Substitute = Callable[[Callable[..., Any]], Callable[..., Any]]

_SEAMS: dict[str, Seam] = {}
_SUBSTITUTES: dict[str, tuple[Substitute, ...]] = {}


class Seam:
    """A named function the simulator calls through; it runs the original unless substitutes are installed."""

    def __init__(self, name: str, original: Callable[..., Any]) -> None:
        self.name = name
        self.original = original
        self.current = original
        self.__doc__ = original.__doc__
        _SEAMS[name] = self
        self.rebuild()

    def rebuild(self) -> None:
        """Compose the installed substitutes (in order) over the original."""
        function = self.original
        for substitute in _SUBSTITUTES.get(self.name, ()):
            function = substitute(function)
        self.current = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.current(*args, **kwargs)

    def __repr__(self) -> str:
        state = "original" if self.current is self.original else "substituted"
        return f"<seam {self.name!r} ({state})>"


def get(name: str) -> Seam:
    """The seam of that name (KeyError if no module has defined it)."""
    return _SEAMS[name]


def names() -> list[str]:
    """Every seam defined so far, sorted."""
    return sorted(_SEAMS)


def install(substitutes: Mapping[str, Sequence[Substitute]]) -> None:
    """Make substitutes the only ones installed: named seams get them, every other seam its original back.

    A seam defined later (its module imported afterwards) picks up the substitutes installed for its name.
    """
    _SUBSTITUTES.clear()
    _SUBSTITUTES.update({name: tuple(chain) for name, chain in substitutes.items() if chain})
    for seam in _SEAMS.values():
        seam.rebuild()
