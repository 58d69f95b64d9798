"""Each test's comparisons stay on its own item: its report carries its metrics and no other test's."""

import json
import textwrap

import pytest

TESTS = textwrap.dedent("""
    import pytest
    from aclcts.drive import executor
    from aclcts.judge.decorator import compares_with_reference, judge


    @pytest.mark.cases(mode="execute_v2", ops=["Add"], executions=3)
    @compares_with_reference
    def test_a_three_executions(acl, stream, op_case, case_inputs):
        return executor.run(acl, stream, op_case, case_inputs, "execute_v2")


    @pytest.mark.cases(mode="execute_v2", ops=["Add"])
    @compares_with_reference
    def test_b_one_execution(acl, stream, op_case, case_inputs):
        return executor.run(acl, stream, op_case, case_inputs, "execute_v2")


    def test_c_no_comparison(acl):
        pass


    @pytest.mark.cases(mode="execute_v2", ops=["Add"])
    def test_d_direct_judge(acl, stream, op_case, case_inputs, comparisons):
        assert comparisons == []
        judge(op_case, case_inputs, executor.run(acl, stream, op_case, case_inputs, "execute_v2"), into=comparisons)
        assert [c.key for c in comparisons] == ["y[0]"]
""")


def metric_names(pytester, *args):
    """Test name (without parameters) → the set of metric-name tuples its case records carry."""
    pytester.makepyfile(test_leak=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", "--report=run.jsonl", *args)
    result.assert_outcomes(passed=3 * 16 + 1)
    found = {}
    for line in (pytester.path / "run.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["record"] == "case":
            name = record["id"].split("::")[1].split("[")[0]
            found.setdefault(name, set()).add(tuple(sorted(record["metrics"])))
    return found


@pytest.mark.parametrize("workers", [["-p", "no:xdist"], ["-n", "2"]], ids=["serial", "xdist"])
def test_no_comparison_carries_over_into_the_next_test(project, workers):
    assert metric_names(project, *workers) == {
        "test_a_three_executions": {("y[0]", "y[1]", "y[2]")},
        "test_b_one_execution": {("y[0]",)},
        "test_c_no_comparison": {()},
        "test_d_direct_judge": {("y[0]",)},
    }


INT64_CASE = """\
op: Neg
policy: elementwise
source: "elewise_calculation_ops.h REG_OP(Neg)"
inputs: [x]
outputs: [y]
dtypes: [int64]
profiles: []
shapes:
  - [[4, 8]]
values:
  x: {choice: [-9223372036854775807, -4611686018427387904, 9223372036854775807]}
"""

INT64_TEST = textwrap.dedent("""
    import pytest
    from aclcts.drive import executor
    from aclcts.judge.decorator import compares_with_reference


    @pytest.mark.cases(mode="execute_v2", ops=["Neg"])
    @compares_with_reference
    def test_neg(acl, stream, op_case, case_inputs):
        outputs = executor.run(acl, stream, op_case, case_inputs, "execute_v2")
        outputs[0].arrays[0][...] = -(2**62)
        return outputs
""")


def test_a_failing_int64_comparison_reaches_the_xdist_controller_and_the_report(pytester):
    pytester.makefile(".yaml", **{"cases/neg": INT64_CASE})
    pytester.makepyfile(test_int64=INT64_TEST)
    result = pytester.runpytest("-n", "2", "--report=run.jsonl", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    (record,) = [r for r in map(json.loads, (pytester.path / "run.jsonl").read_text().splitlines())
                 if r["record"] == "case"]
    worst = record["metrics"]["y[0]"]["worst"]
    assert worst and all(isinstance(row[1], str) and int(row[1]) == -(2**62) for row in worst)
