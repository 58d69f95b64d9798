"""Whether a report covers its whole run: finished, not interrupted, not a partial merge."""

from __future__ import annotations

from aclcts.report.records import Report

#: pytest exit statuses of a run that did not reach its end normally, with what they mean.
ABNORMAL_EXITS = {2: "interrupted", 3: "stopped by an internal error", 4: "stopped by a usage error"}


def incomplete_reason(report: Report) -> str | None:
    """Why report does not cover its whole run (no summary, an abnormal exit, a partial merge), or None."""
    partial = report.run.get("partial")
    if partial:
        return f"it is a partial merge ({partial})"
    if report.summary is None:
        return "it has no summary record (the run did not finish)"
    status = report.summary.get("exit_status")
    if status in ABNORMAL_EXITS:
        return f"it was {ABNORMAL_EXITS[status]} (exit status {status})"
    return None
