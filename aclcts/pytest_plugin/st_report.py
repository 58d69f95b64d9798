"""The --st-report option: an st_report.json in msopst's layout (run_cmd, report_list, summary) for the run's cases.

One entry per case (an msopst sub-case keeps its msopst name), with its status, its expect, its parameters as msopst
shows them and one stage per test that ran it: `atc_single_op_convert` (its model was there), then per test
`run_acl_code` (executed without an ACL error) and `compare_data` (the error rates of each output's comparison). A
refused case's entry has the stage it was refused at, in msopst's name (stages.MSOPST_STAGES), failed, with
`<stage>: <reason>` as its result.
A case's status is "failed" if any stage failed; the summary counts a case as a success when its status equals its
expect, as msopst does. Every test process puts the case's details on its reports; the controlling process writes the
file when the session ends.

The data files are written by the test process that compared the case, as the test's call report is made (the arrays
never travel to the controller, only their paths): the inputs, the references and the outputs of the first execution
of the first test that compared the case, raw little-endian (`ndarray.tofile`) under msopst's names in
`<report stem>_data/<case>/`, which appears whole (a folder renamed into place; a later test of the case finds it
there and keeps it; the controller removes a previous run's folder first, and only if aclcts made it: the folder holds
aclcts.core.outputs.OWNER_FILE). The st_case_info names them by absolute path, as msopst does.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from aclcts.core.files import folder_mode, unsafe_name, write_atomically
from aclcts.pytest_plugin import stages as stage_marks
from aclcts.pytest_plugin.library import selected_case
from aclcts.pytest_plugin.refusals import refusal_of
from aclcts.pytest_plugin.stages import KEY as STAGE_KEY
from aclcts.pytest_plugin.stages import MSOPST_STAGES
from aclcts.core.outputs import OutputError, create_owned, remove_owned

if TYPE_CHECKING:
    import numpy as np

    from aclcts.cases import Case
    from aclcts.judge.decorator import Judged

# The case side (aclcts.cases, NumPy) is imported where a test process needs it, not here: a pytest-xdist controller
# loads this module too and starts its workers without it.

#: The report attribute that carries a test's case details to the controller.
KEY = "aclcts_st_case"
#: Exception type names that mean the case executed and its comparison failed (not its execution).
COMPARE_FAILURES = ("PrecisionMismatch", "GoldenError")
#: The metrics of a comparison given as compare_data's result (msopst reports error rates).
RATES = ("policy", "params", "passed", "n", "mismatch_ratio", "max_abs", "max_rel", "mare", "mere",
         "n_nan_mismatch", "n_inf_mismatch")
#: Above this many bytes of inputs, references and outputs a case's data files are not written (its entry says so).
DATA_LIMIT = 64 * 2**20


def add_options(group: Any) -> None:
    """Add --st-report."""
    group.addoption("--st-report", default=None, metavar="PATH",
                    help="write an st_report.json in msopst's layout (summary counts, one entry per case) to PATH")


def configure(config: pytest.Config) -> None:
    """With --st-report, put each case's details on its tests' reports; on the controller, write the file."""
    path = config.getoption("--st-report")
    if not path:
        return
    report = Path(config.invocation_params.dir, path)
    config.pluginmanager.register(CaseMarker(data_folder(report)), "aclcts-st-report-marker")
    stage_marks.register(config)
    if hasattr(config, "workerinput"):
        return
    try:
        report.parent.mkdir(parents=True, exist_ok=True)  # as --report, --junitxml and --alluredir make theirs
    except OSError as exc:
        raise pytest.UsageError(f"--st-report={path}: cannot create the folder {report.parent} "
                                f"({exc.strerror or exc})") from None
    try:
        remove_owned(data_folder(report), f"--st-report={path}")
    except OutputError as exc:
        raise pytest.UsageError(str(exc)) from None
    except OSError as exc:
        raise pytest.UsageError(f"--st-report={path}: cannot remove the previous run's {data_folder(report)} "
                                f"({exc.strerror})") from None
    config.pluginmanager.register(StReporter(config, report), "aclcts-st-report")


def data_folder(report: Path) -> Path:
    """The folder beside the report that holds one folder of data files per case: `<report stem>_data`."""
    return report.with_name(f"{report.stem}_data")


def _tensor_params(tensor: Any, fmt: str) -> dict[str, Any]:
    return {"format": fmt, "ori_format": fmt, "shape": list(tensor.shape), "ori_shape": list(tensor.shape),
            "type": tensor.dtype_name, "name": tensor.name}


def op_params(case: Case) -> dict[str, Any]:
    """The case's parameters as msopst's st_report shows them: the msopst sub-case's own, else built from the case."""
    from aclcts.cases.case import FORMAT_BY_NAME

    if case.msopst is not None:
        return case.msopst.op_params
    fmt = {v: k for k, v in FORMAT_BY_NAME.items()}.get(case.format, "ND")
    params: dict[str, Any] = {"op": case.op, "input_desc": [_tensor_params(t, fmt) for t in case.inputs],
                              "output_desc": [_tensor_params(t, fmt) for t in case.outputs], "case_name": case.id}
    if case.attrs:
        params["attr"] = [{"name": a.name, "type": a.type, "value": v}
                          for a, v in zip(case.attrs, case.attr_values().values())]
    return params


def _data_files(case: Case, params: dict[str, Any], judged: list[Judged]) -> dict[str, dict[str, np.ndarray]]:
    """The case's data files by kind (input, expect, output) and path in its folder, under msopst's names."""
    name = case.msopst.case_name if case.msopst is not None else case.id
    files: dict[str, dict[str, np.ndarray]] = {"input": {}, "expect": {}, "output": {}}
    for k, (_, array) in enumerate(judged[0].inputs):
        files["input"][f"{name}_input_{k}.bin"] = array
    for i, (one, desc) in enumerate(zip(judged, params["output_desc"])):
        files["expect"][f"expect/{name}_expect_output_{i}_{desc['type']}.bin"] = one.expected
        files["output"][f"{name}_output_{i}.bin"] = one.actual
    return files


def _write_once(target: Path, files: dict[str, np.ndarray]) -> None:
    """Write the files into a new folder renamed to target, unless target is there (another test wrote it first)."""
    import numpy as np

    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        os.chmod(tmp, folder_mode())
        for relative, array in files.items():
            (tmp / relative).parent.mkdir(mode=folder_mode(), exist_ok=True)
            np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tofile(tmp / relative)
        os.rename(tmp, target)
    except OSError:
        if not target.is_dir():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _unwritable(case: Case, first: dict[str, Judged]) -> str | None:
    """Why the files of these comparisons (by output name) cannot be written, or None."""
    if set(first) != {t.name for t in case.outputs}:
        return "not every output was compared"
    if any(one.actual is None or one.expected is None for one in first.values()):
        return "the comparisons do not hold their arrays"
    if unsafe_name(case.id):
        return f"the case id cannot be a folder name ({unsafe_name(case.id)})"
    return None


def case_data(folder: Path, case: Case, params: dict[str, Any], compared: list[Judged]) -> dict[str, Any]:
    """Write the data files of the case's first execution in this test (unless there already); their paths, or why
    not in `note` (nothing when the test compared nothing)."""
    first = {one.output: one for one in compared if one.execution == 0}
    if not first:
        return {}
    why = _unwritable(case, first)
    if why:
        return {"note": f"data files not written: {why}"}
    files = _data_files(case, params, [first[t.name] for t in case.outputs])
    size = sum(array.nbytes for kind in files.values() for array in kind.values())
    if size > DATA_LIMIT:
        return {"note": f"data files not written: {size:,} bytes for this case, above the limit of {DATA_LIMIT:,} "
                        "bytes (DATA_LIMIT)"}
    try:
        create_owned(folder)
    except OutputError as exc:
        return {"note": f"data files not written: {exc}"}
    target = folder / case.id
    _write_once(target, {path: array for kind in files.values() for path, array in kind.items()})
    return {"input_data_path": str(target), "expect_data_paths": [str(target / f) for f in files["expect"]],
            "planned_output_data_paths": [str(target / f) for f in files["output"]]}


class CaseMarker:
    """Runs in every test process: puts the case's name, expect, parameters, the failure's type and the paths of its
    data files (written here) on its reports."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Set report.aclcts_st_case on the reports of a test that runs a case."""
        outcome = yield
        case = selected_case(item)
        if case is None:
            return
        report = outcome.get_result()
        from aclcts.pytest_plugin.comparisons import comparisons_of

        info = case.msopst
        params = op_params(case)
        refusal = refusal_of(item.config, case)
        data = case_data(self.folder, case, params, comparisons_of(item)) if call.when == "call" and refusal is None \
            else {}
        setattr(report, KEY, {
            "case_id": case.id, "case_name": info.case_name if info else case.id, "expect": case.expect,
            "op_params": params, "data": data, "reference": info.reference_kind if info else "builtin",
            "error_type": call.excinfo.typename if call.excinfo is not None else "",
            "refusal": [refusal.stage, refusal.reason] if refusal is not None else None,
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
    if details.get("refusal"):
        return []  # the entry's first stages say why the case did not run
    message = _message(report) if not report.passed else ""
    if report.when == "setup":
        if getattr(report, STAGE_KEY, None) == "compile":
            stage = MSOPST_STAGES["compile"]
        else:
            stage = "atc_single_op_convert" if "model" in message.lower() else "run_acl_code"
        status = "skipped" if report.skipped else "failed"
        return [{"status": status, "result": message, "stage_name": stage, "cmd": cmd}]
    strict_xpass = report.failed and message.startswith("[XPASS(strict)]")
    compare_failed = report.failed and details["error_type"] in COMPARE_FAILURES
    no_reference = report.skipped and "no numeric reference" in message
    ran = report.passed or strict_xpass or compare_failed or no_reference
    run_status = "success" if ran else "skipped" if report.skipped and not getattr(report, "wasxfail", None) \
        else "failed"
    note = details["data"].get("note") if ran else message
    result = [{"status": run_status, "result": note, "stage_name": "run_acl_code", "cmd": cmd}]
    rates = {str(k): {r: v.get(r) for r in RATES} for k, v in report.user_properties if isinstance(v, dict)}
    if no_reference:
        result.append({"status": "success", "result": message, "stage_name": "compare_data", "cmd": ""})
    elif rates or compare_failed:
        result.append({"status": "failed" if compare_failed else "success", "result": rates or message,
                       "stage_name": "compare_data", "cmd": ""})
    return result


def first_stages(refusal: list[str] | None) -> list[dict[str, Any]]:
    """The stages a case's entry starts with: its model made (atc_single_op_convert), or for a refused case the
    stages it passed and the one it was refused at, in msopst's names (its result: `<aclcts stage>: <reason>`)."""
    if not refusal:
        return [{"status": "success", "result": None, "stage_name": "atc_single_op_convert", "cmd": ""}]
    stage, reason = refusal
    order = list(MSOPST_STAGES)  # aclcts.cases.schema.STAGES, which the controller does not import
    passed = [MSOPST_STAGES[s] for s in ("atc", "compile") if stage in order and order.index(s) < order.index(stage)]
    return [*({"status": "success", "result": None, "stage_name": name, "cmd": ""} for name in passed),
            {"status": "failed", "result": f"{stage}: {reason}", "stage_name": MSOPST_STAGES.get(stage, stage),
             "cmd": ""}]


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
        entry = self.cases.setdefault(details.get("case_id", details["case_name"]), {
            "case_name": details["case_name"], "status": "success" if not details.get("refusal") else "failed",
            "expect": details["expect"],
            "trace_detail": {"st_case_info": {"case_name": details["case_name"], "op_params": details["op_params"],
                                              "input_data_path": "", "expect_data_paths": [],
                                              "planned_output_data_paths": []},
                             "stage_result": first_stages(details.get("refusal"))}})
        info = entry["trace_detail"]["st_case_info"]
        if "input_data_path" in details["data"] and not info["input_data_path"]:
            info.update({key: value for key, value in details["data"].items() if key in info})
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
