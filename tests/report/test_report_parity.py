"""A conformance subset run serially and with `-n 2` gives identical per-case statuses and metrics in the reports."""

from report_runs import SUBSET_CASES, outcomes


def test_serial_and_two_workers_report_the_same_cases_statuses_and_metrics(subset_report, run_subset):
    parallel = run_subset("-n", "2", name="parallel.jsonl")
    assert len(subset_report.cases) >= 40
    families = {case_id.split("[")[1].split("-")[0] for case_id in subset_report.cases}
    assert len(families) == len(SUBSET_CASES)
    assert outcomes(parallel) == outcomes(subset_report)
    assert all(case["metrics"] for case in parallel.cases.values())
    assert {case["worker"] for case in parallel.cases.values()} == {"gw0", "gw1"}
    assert parallel.summary["counts"] == subset_report.summary["counts"]
    assert parallel.summary["counts"]["passed"] == len(subset_report.cases)
