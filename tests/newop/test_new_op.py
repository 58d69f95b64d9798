"""`aclcts new-op`: the scaffold runs through the suite on the simulator as generated, and a broken kernel fails it."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from aclcts.atc import generate_singleop_json
from aclcts.cases import load_cases
from aclcts.cases.profiles import PROFILES
from aclcts.cases.values import draw_inputs
from aclcts.judge.compare import compare
from aclcts.judge.policies import default_policy
from aclcts.core.constants import Format
from aclcts.tools.newop import main
from aclcts.reference import reference
from aclcts.sim.kernels import TensorInfo

ROOT = Path(__file__).resolve().parents[2]


def suite_run(folder: Path, case_file: Path, op: str) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """The printed simulator command in a child pytest; its exit status and, per test of an op case, the outcome."""
    junit = folder / "junit.xml"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance", str(folder), "--cases", str(case_file), "-k", op,
         "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly", f"--junitxml={junit}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    outcomes = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        if f"[{op}-" in case.get("name"):
            tags = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
            outcomes[f"{case.get('classname')}::{case.get('name')}"] = tags[0] if tags else "passed"
    return result, outcomes


def base_cases(cases: list) -> list:
    """The cases of the file's own shapes (value profile cases, whose id ends in -<profile>, left out)."""
    return [c for c in cases if not c.profile]


def _profiled(test_name: str) -> bool:
    """Whether a test runs a value profile case (its id ends in -<profile>)."""
    return test_name[:-1].rsplit("-", 1)[-1] in PROFILES


def expected_tests(case_file: Path) -> int:
    """The op's tests in a conformance run: execute_v2 and handle per case, execute_v2 only per value profile case."""
    cases = load_cases([str(case_file)])
    return 2 * len(base_cases(cases)) + len(cases) - len(base_cases(cases))


@pytest.fixture(scope="module")
def my_scale(tmp_path_factory):
    folder = tmp_path_factory.mktemp("newop") / "my_scale"
    assert main(["MyScale", "--dir", str(folder)]) == 0
    return folder


def test_without_the_ops_folder_each_case_fails_in_one_line_naming_the_missing_kernel(my_scale):
    """The op's prototype found through ASCEND_OPP_PATH (as on a machine with the op deployed), its kernel not
    registered: each test says so in one line, without a traceback or the case's arrays."""
    env = dict(os.environ, ASCEND_OPP_PATH=str(my_scale / "opp"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance", "--cases", str(my_scale / "my_scale.yaml"),
         "-k", "MyScale-float32-16x32_16x32", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    counted = re.search(r"(\d+) failed", done.stdout)
    assert counted and done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    # Each failure's own line (pytest's short summary, which repeats whole messages when CI is set, starts "FAILED").
    failures = [line for line in done.stdout.splitlines() if line.startswith("conformance/") and ": AclCallError: " in line]
    assert len(failures) == int(counted.group(1)) >= 2, failures
    assert all("no simulator kernel for op MyScale" in line for line in failures), failures
    assert "Traceback" not in done.stdout and "array(" not in done.stdout and "def test_" not in done.stdout


def test_the_scaffold_writes_case_file_reference_kernel_and_conftest(my_scale, capsys):
    names = sorted(p.relative_to(my_scale).as_posix() for p in my_scale.rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts)  # Python's bytecode of the imported modules
    assert names == ["conftest.py", "my_scale.yaml", "my_scale_kernel.py", "my_scale_reference.py",
                     "opp/vendors/customize/op_proto/aclcts/MyScale.json"]
    cases = load_cases([str(my_scale / "my_scale.yaml")])
    assert {c.op for c in cases} == {"MyScale"} and len(base_cases(cases)) == 6
    assert {c.inputs[0].dtype_name for c in cases} == {"float16", "float32"}


def test_the_generated_cases_pass_every_step_on_the_simulator(my_scale):
    result, outcomes = suite_run(my_scale, my_scale / "my_scale.yaml", "MyScale")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    modules = {name.split("::")[0] for name in outcomes}
    assert modules == {"conformance.test_execute", "conformance.test_handle"}
    expected = expected_tests(my_scale / "my_scale.yaml")
    assert len(outcomes) == expected and set(outcomes.values()) == {"passed"}, outcomes


def test_a_kernel_that_drops_an_input_fails_the_suite(tmp_path):
    folder = tmp_path / "broken"
    assert main(["MyBroken", "--dir", str(folder)]) == 0
    kernel = folder / "my_broken_kernel.py"
    text = kernel.read_text()
    assert "for x in inputs[1:]:" in text
    kernel.write_text(text.replace("for x in inputs[1:]:", "for x in inputs[2:]:"))
    result, outcomes = suite_run(folder, folder / "my_broken.yaml", "MyBroken")
    assert result.returncode == 1, result.stdout[-3000:]
    assert len(outcomes) == expected_tests(folder / "my_broken.yaml")
    own = {name: outcome for name, outcome in outcomes.items() if name.endswith("]") and not _profiled(name)}
    assert len(own) == 12 and set(own.values()) == {"failure"}, outcomes
    assert result.stdout.count("differs from the reference") >= 12


@pytest.mark.parametrize("op, inputs, outputs, dtypes", [
    ("OneInTwoOut", "1", "2", "bfloat16,double"), ("ThreeIn", "3", "1", "int8,float32"),
])
def test_reference_and_kernel_agree_for_other_signatures(tmp_path, op, inputs, outputs, dtypes):
    folder = tmp_path / "sig"
    assert main([op, "--dir", str(folder), "--inputs", inputs, "--outputs", outputs, "--dtype", dtypes]) == 0
    stem = next(folder.glob("*.yaml")).stem
    kernel = importlib.util.module_from_spec(importlib.util.spec_from_file_location(
        f"{stem}_kernel", folder / f"{stem}_kernel.py"))
    kernel.__spec__.loader.exec_module(kernel)
    cases = load_cases([str(folder / f"{stem}.yaml")])
    assert len(base_cases(cases)) == 2 * (3 if int(inputs) > 1 else 2)
    for case in cases:
        assert [t.name for t in case.outputs] == (["y"] if outputs == "1" else ["y1", "y2"])
        xs = draw_inputs(case, 7)
        expected = reference(case.reference).compute(xs, {}, [t.np_dtype for t in case.outputs])
        infos = [TensorInfo(t.dtype, t.shape, int(Format.ACL_FORMAT_ND)) for t in case.outputs]
        for tensor, got, want in zip(case.outputs, kernel.compute(xs, {}, infos), expected):
            assert got.dtype == tensor.np_dtype and got.shape == tensor.shape
            assert compare(got, np.asarray(want), default_policy(got.dtype, case.family)).passed, case.id


def test_no_kernel_writes_only_the_case_file_and_the_reference(tmp_path):
    assert main(["NoKernel", "--dir", str(tmp_path / "nk"), "--no-kernel"]) == 0
    names = sorted(p.relative_to(tmp_path / "nk").as_posix() for p in (tmp_path / "nk").rglob("*") if p.is_file())
    assert names == ["no_kernel.yaml", "no_kernel_reference.py", "opp/vendors/customize/op_proto/aclcts/NoKernel.json"]


def test_existing_files_are_kept_unless_force(tmp_path, capsys):
    folder = tmp_path / "again"
    assert main(["MyScale", "--dir", str(folder)]) == 0
    reference_file = folder / "my_scale_reference.py"
    reference_file.write_text("edited by the user\n")
    capsys.readouterr()
    assert main(["MyScale", "--dir", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "my_scale_reference.py" in err and "--force" in err
    assert reference_file.read_text() == "edited by the user\n"
    assert main(["MyScale", "--dir", str(folder), "--force"]) == 0
    assert "define(" in reference_file.read_text()


@pytest.mark.parametrize("argv, field", [
    (["my_scale"], "NAME"), (["My-Scale"], "NAME"), (["2Scale"], "NAME"), (["Add"], "NAME"), (["MatMulV2"], "NAME"),
    (["MyScale", "--inputs", "0"], "--inputs"), (["MyScale", "--outputs", "x"], "--outputs"),
    (["MyScale", "--dtype", "float16,fp32"], "--dtype"),
])
def test_invalid_arguments_give_one_line_naming_the_field(tmp_path, capsys, argv, field):
    assert main([*argv, "--dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"aclcts new-op: error: {field}") and err.count("\n") == 1, err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_the_next_commands_name_the_generated_case_file(tmp_path, capsys):
    folder = tmp_path / "cmds"
    assert main(["MyScale", "--dir", str(folder)]) == 0
    out = capsys.readouterr().out
    case_file = folder / "my_scale.yaml"
    assert f"pytest conformance/ {folder} --cases {case_file} -k MyScale" in out
    assert f"aclcts singleop {case_file} -o build/op_list.json" in out
    assert "atc --singleop=build/op_list.json --output=build/op_models --soc_version=" in out
    assert f"pytest conformance/ --backend=npu --model-dir=build/op_models --cases {case_file} -k MyScale" in out


@pytest.fixture(scope="module")
def my_dyn(tmp_path_factory):
    folder = tmp_path_factory.mktemp("newop") / "my_dyn"
    assert main(["MyDyn", "--dir", str(folder), "--dynamic"]) == 0
    return folder


def test_the_dynamic_scaffold_writes_a_dynamic_case_with_ranges_and_runtime_shapes(my_dyn):
    source = str(my_dyn / "my_dyn.yaml")
    assert load_cases([source]) == []
    cases = load_cases([source], kind="dynamic")
    assert [c.id for c in cases] == ["MyDyn-float16-dynxdyn_dynxdyn", "MyDyn-float32-dynxdyn_dynxdyn"]
    for case in cases:
        assert [t.shape for t in case.inputs + case.outputs] == [(-1, -1)] * 3
        assert {t.dim_ranges() for t in case.inputs + case.outputs} == {((1, 32), (1, 32))}
        assert case.runtime_shapes == (((16, 32), (16, 32)), ((4, 1), (1, 5)))
        assert case.shape_rule == "broadcast" and case.modes == ("execute_v2",)


def test_the_generated_dynamic_cases_pass_the_dynamic_shape_steps_on_the_simulator(my_dyn):
    result, outcomes = suite_run(my_dyn, my_dyn / "my_dyn.yaml", "MyDyn")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert {name.split("::")[0] for name in outcomes} == {"conformance.test_dynamic_shapes"}
    runtime = [name for name in outcomes if "runtime_shapes" in name]
    assert len(runtime) == 4 and len(outcomes) == 22 and set(outcomes.values()) == {"passed"}, outcomes


def test_a_dynamic_kernel_that_drops_an_input_fails_the_dynamic_shape_steps(tmp_path):
    folder = tmp_path / "broken"
    assert main(["MyDynBroken", "--dir", str(folder), "--dynamic"]) == 0
    kernel = folder / "my_dyn_broken_kernel.py"
    kernel.write_text(kernel.read_text().replace("for x in inputs[1:]:", "for x in inputs[2:]:"))
    result, outcomes = suite_run(folder, folder / "my_dyn_broken.yaml", "MyDynBroken")
    assert result.returncode == 1, result.stdout[-3000:]
    executed = {name: outcome for name, outcome in outcomes.items() if "matches_the_reference" in name}
    assert len(executed) == 6 and set(executed.values()) == {"failure"}, outcomes


def _atc(op_list: Path, out: Path, opp: Path | None) -> subprocess.CompletedProcess:
    """`python -m aclcts.atc` in a fresh process (no kernel registered), ASCEND_OPP_PATH=opp (unset for None)."""
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_OPP_PATH"}
    if opp is not None:
        env["ASCEND_OPP_PATH"] = str(opp)
    return subprocess.run([sys.executable, "-m", "aclcts.atc", f"--singleop={op_list}", f"--output={out}",
                           "--soc_version=Ascend910B1"], capture_output=True, text=True, timeout=120, env=env,
                          cwd=ROOT, check=False)


def test_the_atc_process_compiles_the_scaffold_from_its_prototype_record_and_only_with_it(my_scale, tmp_path):
    cases = load_cases([str(my_scale / "my_scale.yaml")])
    op_list = tmp_path / "op_list.json"
    op_list.write_text(json.dumps(generate_singleop_json([c.op_model("Ascend910B1") for c in cases])))
    without = _atc(op_list, tmp_path / "none", None)
    assert without.returncode == 1 and not list(tmp_path.glob("none/*.om"))
    assert without.stderr.count('no prototype for op type "MyScale"') == len(cases)
    done = _atc(op_list, tmp_path / "models", my_scale / "opp")
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "models").glob("*.om"))) == len(cases)


def test_the_prototype_record_rejects_a_dtype_outside_the_scaffold_dtypes(my_scale, tmp_path):
    tensor = {"format": "ND", "shape": [3], "type": "int32"}
    op_list = tmp_path / "op_list.json"
    op_list.write_text(json.dumps([{"op": "MyScale", "input_desc": [tensor, tensor], "output_desc": [tensor]}]))
    done = _atc(op_list, tmp_path / "models", my_scale / "opp")
    assert done.returncode == 1
    [line] = [x for x in done.stderr.splitlines() if "MyScale" in x]
    assert line.startswith(f"{op_list}:1: element 0 (op \"MyScale\"): input_desc[0].type: ")
    assert "float16, float32" in line


def test_opp_path_installs_the_record_in_another_opp_folder(tmp_path):
    assert main(["OppOp", "--dir", str(tmp_path / "op"), "--opp-path", str(tmp_path / "opp")]) == 0
    record = tmp_path / "opp" / "vendors" / "customize" / "op_proto" / "aclcts" / "OppOp.json"
    assert json.loads(record.read_text())["op"] == "OppOp" and not (tmp_path / "op" / "opp").exists()
