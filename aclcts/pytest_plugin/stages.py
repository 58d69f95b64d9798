"""The stage at which a test of a case did not pass (aclcts.cases.schema.STAGES), for --report and --st-report.

A refused case's test fails at its refusal's stage; a comparison that failed is `compare`, a golden function that
raised `golden`, anything else in the test `run`; a set-up that failed compiling models `compile`, else `run`. The
names are compared by exception type name: the xdist controller loads no case module.
"""

from __future__ import annotations

import pytest

#: The report attribute that carries the stage of a test phase that did not pass.
KEY = "aclcts_stage"
#: Exception type names of a failed comparison and of a golden function's failure.
COMPARE_FAILURES = ("PrecisionMismatch",)
GOLDEN_FAILURES = ("GoldenError",)
#: msopst's stage names (st_report.json's stage_name; msopst's interface/acl_op_generator.py, atc_transform_om.py,
#: acl_op_runner.py, result_comparer.py) of aclcts' stages: a case msopst cannot turn into test code and data (a
#: field or its golden function) fails where it writes them, gen_acl_code.
MSOPST_STAGES = {"load": "gen_acl_code", "golden": "gen_acl_code", "atc": "atc_single_op_convert",
                 "compile": "compile_acl_code", "run": "run_acl_code", "compare": "compare_data"}


def failure_stage(call: pytest.CallInfo) -> str | None:
    """The stage at which this phase failed; None if it raised nothing or was skipped."""
    excinfo = call.excinfo
    if excinfo is None or excinfo.errisinstance(pytest.skip.Exception):
        return None
    refusal = getattr(excinfo.value, "refusal", None)
    stage = getattr(refusal, "stage", None)
    if isinstance(stage, str):
        return stage
    if excinfo.typename in COMPARE_FAILURES:
        return "compare"
    if excinfo.typename in GOLDEN_FAILURES:
        return "golden"
    if call.when == "setup" and "compil" in str(excinfo.value).lower():
        return "compile"
    return "run"


class StageMarker:
    """Runs in every test process: puts the stage on the report of a phase that raised."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> None:
        """Set report.aclcts_stage (None when the phase raised nothing)."""
        outcome = yield
        setattr(outcome.get_result(), KEY, failure_stage(call))


def register(config: pytest.Config) -> None:
    """Register the StageMarker once (--report and --st-report both need it)."""
    if not config.pluginmanager.has_plugin(PLUGIN):
        config.pluginmanager.register(StageMarker(), PLUGIN)


#: The plugin name of the StageMarker.
PLUGIN = "aclcts-stage-marker"
