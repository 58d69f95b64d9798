"""A compile_into for model_cache.cached_models that counts its calls, shared by the model-cache tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aclcts.atc import compile_elements


class Compiler:
    """compile_into that counts its calls; `during` runs inside the compilation (another process's work)."""

    def __init__(self, during: Callable[[], None] | None = None) -> None:
        self.calls = 0
        self.during = during

    def __call__(self, elements: list[dict], out: Path, soc: str) -> Path:
        self.calls += 1
        assert compile_elements(elements, out, soc).ok
        if self.during:
            self.during()
        return out / "models"
