"""Calendar dates as the expectations files and the tools write them: ISO YYYY-MM-DD, nothing else."""

from __future__ import annotations

import datetime
import re

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def iso_date(text: str) -> datetime.date | None:
    """The date text spells as YYYY-MM-DD (surrounding blanks allowed), or None if it is not one."""
    if not _ISO_DATE.fullmatch(text.strip()):
        return None
    try:
        return datetime.date.fromisoformat(text.strip())
    except ValueError:  # e.g. 2026-02-30
        return None
