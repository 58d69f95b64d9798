"""`aclcts new-op`: three files (record, reference, kernel) that `pytest conformance/ --cases FOLDER` runs on the
simulator as generated, with no case file or conftest.py; a broken kernel fails the run."""

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
from aclcts.cases import CaseFileError
from aclcts.cases.custom_ops import custom_ops, kernel_functions, load_with_records
from aclcts.cases.profiles import PROFILES
from aclcts.cases.values import draw_inputs
from aclcts.judge.compare import compare
from aclcts.judge.policies import default_policy
from aclcts.core.constants import Format
from aclcts.core.prototypes.vendors import RECORD_FOLDER, VendorRecordError, read_record
from aclcts.tools.newop import main
from aclcts.reference import reference
from aclcts.sim.kernels import TensorInfo

#: Where a scaffold keeps its record, below its folder.
RECORD = Path("opp") / "vendors" / "customize" / RECORD_FOLDER

ROOT = Path(__file__).resolve().parents[2]


def suite_run(cases: Path, op: str, *options: str,
              env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """`pytest conformance/ --cases CASES` in a child pytest; its exit status and, per test of an op case, the
    outcome."""
    junit = cases.parent / f"{cases.name}-junit.xml"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance", "--cases", str(cases), *options,
         "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly", f"--junitxml={junit}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    outcomes = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase") if junit.exists() else ():
        if f"[{op}-" in case.get("name"):
            tags = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
            outcomes[f"{case.get('classname')}::{case.get('name')}"] = tags[0] if tags else "passed"
    return result, outcomes


def base_cases(cases: list) -> list:
    """The cases of the record's own shapes (value profile cases, whose id ends in -<profile>, left out)."""
    return [c for c in cases if not c.profile]


def _profiled(test_name: str) -> bool:
    """Whether a test runs a value profile case (its id ends in -<profile>)."""
    return test_name[:-1].rsplit("-", 1)[-1] in PROFILES


def expected_tests(folder: Path) -> int:
    """The op's static tests in a conformance run: execute_v2 and handle per case, execute_v2 only per value profile
    case."""
    cases = load_with_records([str(folder)])
    return 2 * len(base_cases(cases)) + len(cases) - len(base_cases(cases))


def files_of(folder: Path) -> list[str]:
    """The files below folder (Python's bytecode of imported modules left out)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def my_scale(tmp_path_factory):
    folder = tmp_path_factory.mktemp("newop") / "my_scale"
    assert main(["MyScale", "--dir", str(folder)]) == 0
    return folder


def test_the_scaffold_writes_the_record_the_reference_and_the_kernel_and_nothing_else(my_scale):
    assert files_of(my_scale) == ["my_scale_kernel.py", "my_scale_reference.py", f"{RECORD.as_posix()}/MyScale.json"]
    record = read_record(my_scale / RECORD / "MyScale.json")
    assert (record.reference, record.kernel, record.policy) == ("my_scale_reference:MY_SCALE", "my_scale_kernel",
                                                                "elementwise")
    assert record.input_names() == ("x1", "x2") and record.types == {"T": ("float16", "float32")}
    for module in ("my_scale_reference.py", "my_scale_kernel.py"):  # the record's names are not restated
        text = (my_scale / module).read_text()
        assert not re.search(r"""["'](x1|x2|y)["']""", text), module
    assert "define(OP_TYPE, _compute, _shape)" in (my_scale / "my_scale_reference.py").read_text()
    cases = load_with_records([str(my_scale)])
    assert {c.op for c in cases} == {"MyScale"} and len(base_cases(cases)) == 6
    assert {c.inputs[0].dtype_name for c in cases} == {"float16", "float32"}
    assert {c.reference for c in cases} == {"my_scale_reference:MY_SCALE"}


def test_the_folders_default_cases_pass_every_step_on_the_simulator(my_scale):
    result, outcomes = suite_run(my_scale, "MyScale")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    modules = {name.split("::")[0] for name in outcomes}
    assert modules == {"conformance.test_execute", "conformance.test_handle"}
    assert len(outcomes) == expected_tests(my_scale) and set(outcomes.values()) == {"passed"}, outcomes


def test_a_kernel_that_drops_an_input_fails_the_suite(tmp_path):
    folder = tmp_path / "broken"
    assert main(["MyBroken", "--dir", str(folder)]) == 0
    kernel = folder / "my_broken_kernel.py"
    text = kernel.read_text()
    assert "for x in xs[1:]:" in text
    kernel.write_text(text.replace("for x in xs[1:]:", "for x in xs[2:]:"))
    result, outcomes = suite_run(folder, "MyBroken")
    assert result.returncode == 1, result.stdout[-3000:]
    assert len(outcomes) == expected_tests(folder)
    own = {name: outcome for name, outcome in outcomes.items() if name.endswith("]") and not _profiled(name)}
    assert len(own) == 12 and set(own.values()) == {"failure"}, outcomes
    assert result.stdout.count("differs from the reference") >= 12


def test_a_case_file_in_the_folder_replaces_the_default_cases_and_the_record_still_registers_the_kernel(tmp_path):
    folder = tmp_path / "own"
    assert main(["MyOwn", "--dir", str(folder)]) == 0
    (folder / "my_own.yaml").write_text("op: MyOwn\nreference: my_own_reference:MY_OWN\ndtypes: [float32]\n"
                                        "shapes:\n  - [[3, 7], [3, 7]]\n")
    result, outcomes = suite_run(folder, "MyOwn")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert {name.split("[")[1].rstrip("]") for name in outcomes if not _profiled(name)} == {"MyOwn-float32-3x7_3x7"}
    assert all("[MyOwn-float32-3x7_3x7" in name for name in outcomes) and set(outcomes.values()) == {"passed"}


@pytest.mark.parametrize("op, inputs, outputs, dtypes", [
    ("OneInTwoOut", "1", "2", "bfloat16,double"), ("ThreeIn", "3", "1", "int8,float32"),
])
def test_reference_and_kernel_agree_for_other_signatures(tmp_path, op, inputs, outputs, dtypes):
    folder = tmp_path / "sig"
    assert main([op, "--dir", str(folder), "--inputs", inputs, "--outputs", outputs, "--dtype", dtypes]) == 0
    [found] = custom_ops([str(folder)])
    compute, _ = kernel_functions(found)
    cases = load_with_records([str(folder)])
    assert len(base_cases(cases)) == 2 * (3 if int(inputs) > 1 else 2)
    for case in cases:
        assert [t.name for t in case.outputs] == (["y"] if outputs == "1" else ["y1", "y2"])
        xs = draw_inputs(case, 7)
        expected = reference(case.reference).compute(xs, {}, [t.np_dtype for t in case.outputs])
        infos = [TensorInfo(t.dtype, t.shape, int(Format.ACL_FORMAT_ND)) for t in case.outputs]
        for tensor, got, want in zip(case.outputs, compute(xs, {}, infos), expected, strict=True):
            assert got.dtype == tensor.np_dtype and got.shape == tensor.shape
            assert compare(got, np.asarray(want), default_policy(got.dtype, case.family)).passed, case.id


def test_no_kernel_writes_the_record_and_the_reference_and_each_case_fails_naming_the_missing_kernel(tmp_path):
    folder = tmp_path / "nk"
    assert main(["NoKernel", "--dir", str(folder), "--no-kernel"]) == 0
    assert files_of(folder) == ["no_kernel_reference.py", f"{RECORD.as_posix()}/NoKernel.json"]
    assert read_record(folder / RECORD / "NoKernel.json").kernel == ""
    done, outcomes = suite_run(folder, "NoKernel", "-k", "NoKernel-float32-16x32_16x32")
    assert done.returncode == 1 and outcomes and set(outcomes.values()) == {"failure"}, done.stdout[-3000:]
    # Each failure's own line (pytest's short summary, which repeats whole messages when CI is set, starts "FAILED").
    failures = [line for line in done.stdout.splitlines() if line.startswith("conformance/") and ": AclCallError: " in line]
    assert len(failures) == len(outcomes) >= 2, failures
    assert all("no simulator kernel for op NoKernel" in line for line in failures), failures
    assert "Traceback" not in done.stdout and "array(" not in done.stdout and "def test_" not in done.stdout


def test_a_kernel_module_the_record_names_but_cannot_be_imported_is_one_usage_line(tmp_path):
    folder = tmp_path / "gone"
    assert main(["GoneKernel", "--dir", str(folder)]) == 0
    (folder / "gone_kernel_kernel.py").write_text("raise RuntimeError('broken at import')\n")
    done, _ = suite_run(folder, "GoneKernel")
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    [line] = [x for x in done.stderr.splitlines() if "gone_kernel_kernel" in x]
    assert "GoneKernel.json: kernel 'gone_kernel_kernel': importing it raised RuntimeError: broken at import" in line
    assert "Traceback" not in done.stderr


def test_a_record_whose_default_cases_lack_a_reference_is_one_line_naming_the_field(tmp_path):
    folder = tmp_path / "noref"
    assert main(["NoRef", "--dir", str(folder)]) == 0
    record = folder / RECORD / "NoRef.json"
    record.write_text(record.read_text().replace('"reference": "no_ref_reference:NO_REF",\n', ""))
    with pytest.raises(CaseFileError, match=r"NoRef\.json: reference: expected \"module:ATTR\""):
        load_with_records([str(folder)])


@pytest.mark.parametrize("key, value", [
    ("samples", '{"x1": [10, -10]}'), ("samples", '{"z": [0, 1]}'), ("sample_shapes", "[[[2, -3]]]"),
    ("sample_ranges", '{"x1": [[0, 4]]}'), ("kernel", "3"),
])
def test_a_bad_record_field_is_one_line_naming_the_file_and_field(tmp_path, key, value):
    folder = tmp_path / "bad"
    assert main(["BadRecord", "--dir", str(folder)]) == 0
    record = folder / RECORD / "BadRecord.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), key: json.loads(value)}))
    with pytest.raises(VendorRecordError) as caught:
        read_record(record)
    assert str(caught.value).startswith(f"{record}: {key}: ") and "\n" not in str(caught.value)


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


def test_the_next_commands_name_the_folder(tmp_path, capsys):
    folder = tmp_path / "cmds"
    assert main(["MyScale", "--dir", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"pytest conformance/ --cases {folder}\n" in out
    assert f"aclcts singleop {folder} -o build/op_list.json" in out
    assert "atc --singleop=build/op_list.json --output=build/op_models --soc_version=" in out
    assert f"pytest conformance/ --backend=npu --model-dir=build/op_models --cases {folder}\n" in out


@pytest.fixture(scope="module")
def my_dyn(tmp_path_factory):
    folder = tmp_path_factory.mktemp("newop") / "my_dyn"
    assert main(["MyDyn", "--dir", str(folder), "--dynamic"]) == 0
    return folder


def test_the_dynamic_scaffolds_record_gives_a_dynamic_default_case_with_ranges_and_runtime_shapes(my_dyn):
    assert [c.id for c in base_cases(load_with_records([str(my_dyn)]))] == [
        "MyDyn-float16-16x32_16x32", "MyDyn-float16-4x1_1x5", "MyDyn-float32-16x32_16x32", "MyDyn-float32-4x1_1x5"]
    cases = load_with_records([str(my_dyn)], kind="dynamic")
    assert [c.id for c in cases] == ["MyDyn-float16-dynxdyn_dynxdyn", "MyDyn-float32-dynxdyn_dynxdyn"]
    for case in cases:
        assert [t.shape for t in case.inputs + case.outputs] == [(-1, -1)] * 3
        assert {t.dim_ranges() for t in case.inputs + case.outputs} == {((1, 32), (1, 32))}
        assert case.runtime_shapes == (((16, 32), (16, 32)), ((4, 1), (1, 5)))
        assert case.shape_rule == "broadcast" and case.modes == ("execute_v2",)


def test_the_dynamic_default_cases_pass_the_dynamic_shape_steps_on_the_simulator(my_dyn):
    result, outcomes = suite_run(my_dyn, "MyDyn")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    dynamic = {name: outcome for name, outcome in outcomes.items()
               if name.startswith("conformance.test_dynamic_shapes::")}
    runtime = [name for name in dynamic if "runtime_shapes" in name]
    assert len(runtime) == 8 and len(dynamic) == 26 and set(outcomes.values()) == {"passed"}, outcomes


def test_a_dynamic_kernel_that_drops_an_input_fails_the_dynamic_shape_steps(tmp_path):
    folder = tmp_path / "broken"
    assert main(["MyDynBroken", "--dir", str(folder), "--dynamic"]) == 0
    kernel = folder / "my_dyn_broken_kernel.py"
    kernel.write_text(kernel.read_text().replace("for x in xs[1:]:", "for x in xs[2:]:"))
    # One dtype's numeric dynamic tests: the drawn-shape test and the two runtime-shape tests. Each failing drawn-shape
    # test makes hypothesis shrink its example (seconds of CPU each), so the float16 twins and the range-maximum test,
    # which fail the same way, are left out.
    result, outcomes = suite_run(folder, "MyDynBroken", "-k", "dynxdyn and float32 and matches_the_reference")
    assert result.returncode == 1, result.stdout[-3000:]
    drawn = [name for name in outcomes if "inside_the_range" in name]
    assert len(outcomes) == 3 and len(drawn) == 1 and set(outcomes.values()) == {"failure"}, outcomes


def _atc(op_list: Path, out: Path, opp: Path | None) -> subprocess.CompletedProcess:
    """`python -m aclcts.atc` in a fresh process (no kernel registered), ASCEND_OPP_PATH=opp (unset for None)."""
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_OPP_PATH"}
    if opp is not None:
        env["ASCEND_OPP_PATH"] = str(opp)
    return subprocess.run([sys.executable, "-m", "aclcts.atc", f"--singleop={op_list}", f"--output={out}",
                           "--soc_version=Ascend910B1"], capture_output=True, text=True, timeout=120, env=env,
                          cwd=ROOT, check=False)


def test_the_atc_process_compiles_the_scaffold_from_its_record_and_only_with_it(my_scale, tmp_path):
    cases = load_with_records([str(my_scale)])
    op_list = tmp_path / "op_list.json"
    op_list.write_text(json.dumps(generate_singleop_json([c.op_model("Ascend910B1") for c in cases])))
    without = _atc(op_list, tmp_path / "none", None)
    assert without.returncode == 1 and not list(tmp_path.glob("none/*.om"))
    assert without.stderr.count('no prototype for op type "MyScale"') == len(cases)
    done = _atc(op_list, tmp_path / "models", my_scale / "opp")
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "models").glob("*.om"))) == len(cases)


def test_the_record_rejects_a_dtype_outside_the_scaffold_dtypes(my_scale, tmp_path):
    tensor = {"format": "ND", "shape": [3], "type": "int32"}
    op_list = tmp_path / "op_list.json"
    op_list.write_text(json.dumps([{"op": "MyScale", "input_desc": [tensor, tensor], "output_desc": [tensor]}]))
    done = _atc(op_list, tmp_path / "models", my_scale / "opp")
    assert done.returncode == 1
    [line] = [x for x in done.stderr.splitlines() if "MyScale" in x]
    assert line.startswith(f"{op_list}:1: element 0 (op \"MyScale\"): input_desc[0].type: ")
    assert "float16, float32" in line


def test_opp_path_installs_the_record_in_another_opp_folder_and_the_printed_command_runs_it(tmp_path, capsys):
    assert main(["OppOp", "--dir", str(tmp_path / "op"), "--opp-path", str(tmp_path / "opp")]) == 0
    record = tmp_path / "opp" / "vendors" / "customize" / RECORD_FOLDER / "OppOp.json"
    assert json.loads(record.read_text())["op"] == "OppOp" and not (tmp_path / "op" / "opp").exists()
    assert files_of(tmp_path / "op") == ["opp_op_kernel.py", "opp_op_reference.py"]
    assert f"PYTHONPATH={tmp_path / 'op'} pytest conformance/ --cases {tmp_path / 'opp'}\n" in capsys.readouterr().out
    result, outcomes = suite_run(tmp_path / "opp", "OppOp", "-k", "OppOp-float32-16x32_16x32",
                                 env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                     [str(tmp_path / "op"), *filter(None, [os.environ.get("PYTHONPATH")])])))
    assert result.returncode == 0 and len(outcomes) >= 2 and set(outcomes.values()) == {"passed"}, \
        result.stdout[-3000:] + result.stderr[-2000:]


def test_the_run_header_names_the_modules_the_folders_record_imports(my_scale):
    done = subprocess.run([sys.executable, "-m", "pytest", "conformance", "--cases", str(my_scale), "--collect-only",
                           "-p", "no:cacheprovider", "-p", "no:xdist"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    record = my_scale / RECORD / "MyScale.json"
    [header] = [line for line in done.stdout.splitlines() if line.startswith("aclcts: --cases from outside")]
    assert header.endswith(f"my_scale_reference ({record}), my_scale_kernel ({record})"), header
