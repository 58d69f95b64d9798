"""Outputs (issue 37): a folder holding one small Add case file."""

from pathlib import Path

import pytest
from add_case import ADD_CASE


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A folder with add.yaml (one Add float32 case)."""
    (tmp_path / "add.yaml").write_text(ADD_CASE)
    return tmp_path
