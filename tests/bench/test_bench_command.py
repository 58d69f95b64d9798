"""`python -m aclcts.tools.bench`: one table with every figure, targets judged; bad arguments are one-line errors."""

import re
import subprocess
import sys

import numpy as np
import pytest

from aclcts.tools import bench_kernels

CASES = bench_kernels.cases(quick=True)

ADD_CASE = """\
op: Add
policy: elementwise
source: "elewise_calculation_ops.h REG_OP(Add): inputs x1, x2; output y"
inputs: [x1, x2]
outputs: [y]
dtypes: [float32, int32]
shapes:
  - [[8, 16], [8, 16]]
"""

FIGURES = [
    "create_tensor_desc + destroy_tensor_desc", "rt.malloc(256) + rt.free", "memcpy 16 MiB host->device",
    "numpy copy 16 MiB", "memcpy / numpy copy bandwidth", "execute_v2 tiny Add", "execute_with_handle tiny Add",
    "execute_v2 / execute_with_handle", "execute_v2 with 1 loaded model(s)", "execute_v2 with 100 loaded model(s)",
    "execute_v2 with 1,000 loaded model(s)", "1,000 models / 1 model",
    *(f"{case.label} / numpy" for case in bench_kernels.cases(quick=True)),
    "peak RSS, Add float32 2048x2048 / tensor bytes", "executor.run + judge per case (2 cases)",
    "executor.run alone per case", "plain acl calls per case", "executor.run alone / plain acl calls",
    "executor.run + judge / plain acl calls", "suite startup: pytest --collect-only", "suite startup: compiling 2 models",
    "pytest conformance/ serial (2 runs): N tests", "pytest conformance/ serial throughput", "pytest conformance/ -n 2: N tests",
    "pytest conformance/ -n 2 throughput", "-n 2 / serial throughput", "-n 2 / serial throughput, lowest round",
    "-n 2 / serial throughput, highest round", "serial: launch to first test",
    "serial: first test start to last test end", "serial: last test end to exit", "-n 2: launch to first test",
    "-n 2: first test start to last test end", "-n 2: last test end to exit",
    "-n 2 / serial throughput over the tests' span", "two serial runs at once: throughput",
    "two serial runs at once / one serial run",
]
KERNEL_ROWS = [f"{case.label} / numpy" for case in bench_kernels.cases(quick=True)]
TARGETED = {"create_tensor_desc + destroy_tensor_desc", "rt.malloc(256) + rt.free", "memcpy / numpy copy bandwidth",
            "execute_v2 / execute_with_handle", "1,000 models / 1 model", "executor.run + judge / plain acl calls",
            "-n 2 / serial throughput", *KERNEL_ROWS, "peak RSS, Add float32 2048x2048 / tensor bytes"}


def verdict(cells):
    """The verdict cell of a row's cells after the figure (value, unit, target operator and bound, verdict, note)."""
    return cells[4] if len(cells) > 4 else None


def bench(root, *args):
    return subprocess.run([sys.executable, "-m", "aclcts.tools.bench", *args], cwd=root, capture_output=True, text=True)


def test_quick_run_prints_every_figure_with_a_number_and_judges_every_target(pytestconfig, tmp_path):
    case_file = tmp_path / "add.yaml"
    case_file.write_text(ADD_CASE, encoding="utf-8")
    done = bench(pytestconfig.rootpath, "--quick", "--cases", str(case_file))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["figure", "value", "unit", "target", "verdict"]
    rows = {re.sub(r": [\d,]+ tests$", ": N tests", line[:52].rstrip()): line[52:].split() for line in lines[1:]}
    assert list(rows) == FIGURES
    for figure, cells in rows.items():
        assert re.fullmatch(r"\d+\.\d{3}", cells[0]), (figure, cells)
        assert (verdict(cells) in ("met", "MISSED")) == (figure in TARGETED), (figure, cells)
    # --quick runs serial twice (the median of two is their mean) and -n 2 once: each mode's parts add up to its wall.
    walls = {"serial": "pytest conformance/ serial (2 runs): N tests", "-n 2": "pytest conformance/ -n 2: N tests"}
    for mode, wall in walls.items():
        parts = [float(rows[f"{mode}: {part}"][0]) for part in
                 ("launch to first test", "first test start to last test end", "last test end to exit")]
        assert all(part > 0 for part in parts), (mode, parts)
        assert abs(sum(parts) - float(rows[wall][0])) < 0.01, (mode, parts, rows[wall])


def test_unknown_suite_is_a_one_line_error(pytestconfig):
    done = bench(pytestconfig.rootpath, "runtime", "speed")
    assert done.returncode == 2
    assert done.stderr.strip() == ("aclcts bench: error: unknown suite speed; expected runtime, ops, "
                                   "kernels, overhead, suite, atc, ci or all")
    assert done.stdout == ""


def test_bench_atc_times_aclcts_atc_on_the_asked_number_of_operators(pytestconfig):
    done = bench(pytestconfig.rootpath, "atc", "--ops", "40")
    assert done.returncode == 0, done.stderr
    rows = {line[:52].rstrip(): line[52:].split() for line in done.stdout.splitlines()[1:]}
    assert list(rows) == ["aclcts atc: 40 operators", "aclcts atc: CPU time (user + system)", "aclcts atc: per operator"]
    seconds = float(rows["aclcts atc: 40 operators"][0])
    assert seconds > 0 and rows["aclcts atc: 40 operators"][2:4] == ["<=", "60"]
    assert abs(float(rows["aclcts atc: per operator"][0]) - seconds / 40 * 1e6) < 0.01 * seconds / 40 * 1e6 + 1


@pytest.mark.parametrize("ops", ["0", "1000001", "-5"])
def test_bench_atc_refuses_an_operator_count_outside_its_bounds(pytestconfig, ops):
    done = bench(pytestconfig.rootpath, "atc", f"--ops={ops}")
    assert done.returncode == 2
    assert done.stderr.strip() == f"aclcts bench: error: --ops={ops}: expected 1..1,000,000" and done.stdout == ""


def test_a_bad_case_file_is_a_one_line_error_naming_it(pytestconfig, tmp_path):
    case_file = tmp_path / "bad.yaml"
    case_file.write_text(ADD_CASE.replace("op: Add", "op: [Add"), encoding="utf-8")
    done = bench(pytestconfig.rootpath, "overhead", "--cases", str(case_file))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "bad.yaml" in done.stderr
    assert "Traceback" not in done.stderr


NOTE = re.compile(r"execute_v2 (\d+\.\d+) ms, handle (\d+\.\d+) ms \((\d+\.\d+)\), numpy (\d+\.\d+) ms")


def test_kernels_rows_give_execute_v2_handle_and_numpy_times_and_their_ratios(pytestconfig):
    done = bench(pytestconfig.rootpath, "kernels", "--quick")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()[1:]
    assert [line[:52].rstrip() for line in lines] == [*KERNEL_ROWS, "peak RSS, Add float32 2048x2048 / tensor bytes"]
    for line, case in zip(lines, bench_kernels.cases(quick=True)):
        cells = line[52:].split()
        assert cells[1:4] == ["ratio", "<=", f"{case.target:g}"] and verdict(cells) in ("met", "MISSED"), line
        v2, handle, handle_ratio, numpy = (float(g) for g in NOTE.search(line).groups())
        assert abs(float(cells[0]) - v2 / numpy) <= 0.01 * v2 / numpy + 0.002, line
        assert abs(handle_ratio - handle / numpy) <= 0.01 * handle / numpy + 0.01, line
    assert float(lines[-1][52:].split()[0]) > 0


def test_a_kernel_whose_output_differs_from_numpy_ends_the_group_with_one_line(monkeypatch, capsys):
    import aclcts.sim
    from aclcts.sim.kernels import unregister_kernel
    from aclcts.tools import bench

    def wrong_add(inputs, attrs, outputs):
        return [np.asarray(inputs[0] - inputs[1])]

    aclcts.sim.register_kernel("Add", wrong_add)
    monkeypatch.setattr(bench_kernels, "cases", lambda quick: [case for case in CASES if case.op_type == "Add"])
    try:
        code = bench.main(["kernels", "--quick"])
    finally:
        unregister_kernel("Add")
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        "aclcts bench: error: Add float32 2048x2048: the simulator's output differs from NumPy's"]
