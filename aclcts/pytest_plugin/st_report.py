"""The --st-report option: an st_report.json in msopst's layout (run_cmd, report_list, summary) for the run's cases.

One entry per case (an msopst sub-case keeps its msopst name), with its status, its expect, its parameters as msopst
shows them and one stage per test that ran it: `atc_single_op_convert` (its model was there), then per test
`run_acl_code` (executed without an ACL error) and `compare_data` (the error rates of each output's comparison).
A case's status is "failed" if any stage failed; the summary counts a case as a success when its status equals its
expect, as msopst does. Every test process puts the case's details on its reports; the controlling process writes the
file when the session ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from aclcts.core.files import write_atomically

if TYPE_CHECKING:
    from aclcts.cases import Case

# The case side (aclcts.cases, NumPy) is imported where a test process needs it, not here: a pytest-xdist controller
# loads this module too and starts its workers without it.

#: The report attribute that carries a test's case details to the controller.
KEY = "aclcts_st_case"
#: Exception type names that mean the case executed and its comparison failed (not its execution).
COMPARE_FAILURES = ("PrecisionMismatch", "GoldenError")
#: The metrics of a comparison given as compare_data's result (msopst reports error rates).
RATES = ("policy", "params", "passed", "n", "mismatch_ratio", "max_abs", "max_rel", "mare", "mere",
         "n_nan_mismatch", "n_inf_mismatch")


def add_options(group: Any) -> None:
    """Add --st-report."""
    group.addoption("--st-report", default=None, metavar="PATH",
                    help="write an st_report.json in msopst's layout (summary counts, one entry per case) to PATH")


def configure(config: pytest.Config) -> None:
    """With --st-report, put each case's details on its tests' reports; on the controller, write the file."""
    path = config.getoption("--st-report")
    if not path:
        return
    config.pluginmanager.register(CaseMarker(), "aclcts-st-report-marker")
    if hasattr(config, "workerinput"):
        return
    folder = Path(path).parent
    if not folder.is_dir():
        raise pytest.UsageError(f"--st-report={path}: no such folder {folder}")
    config.pluginmanager.register(StReporter(config, Path(path)), "aclcts-st-report")


def _case_of(item: pytest.Item) -> Case | None:
    from aclcts.cases import Case

    callspec = getattr(item, "callspec", None)
    for name in ("op_case", "model"):
        found = callspec.params.get(name) if callspec is not None else None
        if isinstance(found, Case):
            return found
    return None


def _tensor_params(tensor: Any, fmt: str) -> dict[str, Any]:
    return {"format": fmt, "ori_format": fmt, "shape": list(tensor.shape), "ori_shape": list(tensor.shape),
            "type": tensor.dtype_name, "name": tensor.name}


def op_params(case: Case) -> dict[str, Any]:
    """The case's parameters as msopst's st_report shows them: the msopst sub-case's own, else built from the case."""
    from aclcts.cases import msopst

    info = msopst.INFO.get(case.id)
    if info is not None:
        return info.op_params
    fmt = {v: k for k, v in msopst.FORMAT_BY_NAME.items()}.get(case.format, "ND")
    params: dict[str, Any] = {"op": case.op, "input_desc": [_tensor_params(t, fmt) for t in case.inputs],
                              "output_desc": [_tensor_params(t, fmt) for t in case.outputs], "case_name": case.id}
    if case.attrs:
        params["attr"] = [{"name": a.name, "type": a.type, "value": v}
                          for a, v in zip(case.attrs, case.attr_values().values())]
    return params


class CaseMarker:
    """Runs in every test process: puts the case's name, expect, parameters and the failure's type on its reports."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Set report.aclcts_st_case on the reports of a test that runs a case."""
        outcome = yield
        case = _case_of(item)
        if case is None:
            return
        report = outcome.get_result()
        from aclcts.cases import msopst

        info = msopst.INFO.get(case.id)
        setattr(report, KEY, {
            "case_name": case.id, "expect": case.expect, "op_params": op_params(case), "case_file": case.file,
            "reference": info.reference_kind if info else "builtin",
            "error_type": call.excinfo.typename if call.excinfo is not None else "",
        })


def _message(report: pytest.TestReport) -> str:
    """The first line of why a phase did not pass (for an expected failure: the failure itself)."""
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2])
    elif crash is not None:
        text = crash.message
    else:
        text = str(getattr(report, "wasxfail", "") or longrepr or "")
    return text.splitlines()[0] if text else ""


def stages(report: pytest.TestReport, details: dict[str, Any]) -> list[dict[str, Any]]:
    """The msopst stages one test's call (or refusing setup) report stands for."""
    cmd = report.nodeid
    message = _message(report) if not report.passed else ""
    if report.when == "setup":
        stage = "atc_single_op_convert" if "model" in message.lower() else "run_acl_code"
        status = "skipped" if report.skipped else "failed"
        return [{"status": status, "result": message, "stage_name": stage, "cmd": cmd}]
    strict_xpass = report.failed and message.startswith("[XPASS(strict)]")
    compare_failed = report.failed and details["error_type"] in COMPARE_FAILURES
    no_reference = report.skipped and "no numeric reference" in message
    ran = report.passed or strict_xpass or compare_failed or no_reference
    run_status = "success" if ran else "skipped" if report.skipped and not getattr(report, "wasxfail", None) \
        else "failed"
    result = [{"status": run_status, "result": None if ran else message, "stage_name": "run_acl_code", "cmd": cmd}]
    rates = {str(k): {r: v.get(r) for r in RATES} for k, v in report.user_properties if isinstance(v, dict)}
    if no_reference:
        result.append({"status": "success", "result": message, "stage_name": "compare_data", "cmd": ""})
    elif rates or compare_failed:
        result.append({"status": "failed" if compare_failed else "success", "result": rates or message,
                       "stage_name": "compare_data", "cmd": ""})
    return result


class StReporter:
    """On the controlling process: gathers each case's stages and writes st_report.json at the session's end."""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        self.path = path
        self.run_cmd = " ".join(["pytest", *config.invocation_params.args])
        self.cases: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Add the stages of a case's test (its call, or a setup that kept it from running)."""
        details = getattr(report, KEY, None)
        if not isinstance(details, dict) or report.when == "teardown" or (report.when == "setup" and report.passed):
            return
        entry = self.cases.setdefault(details["case_name"], {
            "case_name": details["case_name"], "status": "success", "expect": details["expect"],
            "trace_detail": {"st_case_info": {"case_name": details["case_name"], "op_params": details["op_params"],
                                              "case_file": details["case_file"], "input_data_path": "",
                                              "expect_data_paths": [], "planned_output_data_paths": []},
                             "stage_result": [{"status": "success", "result": None,
                                               "stage_name": "atc_single_op_convert", "cmd": ""}]}})
        found = stages(report, details)
        entry["trace_detail"]["stage_result"] += found
        if any(s["status"] != "success" for s in found):
            entry["status"] = "failed"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the report."""
        write_atomically(self.path, json.dumps(st_report(self.run_cmd, list(self.cases.values())), indent=2).encode())


def st_report(run_cmd: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole report: the command, the entries and msopst's summary (success: status equals expect)."""
    success = sum(1 for e in entries if e["status"] == e["expect"])
    return {"run_cmd": run_cmd, "report_list": entries,
            "summary": {"test case count": len(entries), "success count": success,
                        "failed count": len(entries) - success}}
