"""`aclcts atc` compiles only what it knows: every operator is checked against its prototype (built-in, OPP vendor
record or an op type given a kernel in this process), one line per problem naming file, line, element and field."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import aclcts.sim
from aclcts.atc import compile_singleop
from aclcts.core.prototypes import op
from aclcts.core.prototypes.vendors import RECORD_FOLDER, record_text
from aclcts.sim.kernels import unregister_kernel

ROOT = Path(__file__).resolve().parents[2]


def tensor(type_="float32", shape=(3,)):
    return {"format": "ND", "shape": list(shape), "type": type_}


def element(op_type, inputs, outputs, attrs=None):
    found = {"op": op_type, "input_desc": inputs, "output_desc": outputs}
    if attrs is not None:
        found["attr"] = [{"name": n, "type": t, "value": v} for n, t, v in attrs]
    return found


def add(*types):
    x1, x2, y = types
    return element("Add", [tensor(x1), tensor(x2)], [tensor(y)])


def one_per_line(elements):
    """A JSON array text with element k on line k + 2."""
    return "[\n" + ",\n".join(json.dumps(e) for e in elements) + "\n]\n"


def atc(tmp_path, elements, env_opp=None):
    """`python -m aclcts.atc` in a fresh process on the elements; ASCEND_OPP_PATH=env_opp (unset for None)."""
    source = tmp_path / "op.json"
    source.write_text(one_per_line(elements))
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_OPP_PATH"}
    if env_opp is not None:
        env["ASCEND_OPP_PATH"] = str(env_opp)
    return subprocess.run([sys.executable, "-m", "aclcts.atc", f"--singleop={source}", f"--output={tmp_path / 'out'}",
                           "--soc_version=Ascend910B1"], capture_output=True, text=True, timeout=120, env=env,
                          cwd=ROOT, check=False)


def errors(tmp_path, elements, monkeypatch=None):
    """The error lines of an in-process compile of the elements (ASCEND_OPP_PATH unset)."""
    if monkeypatch is not None:
        monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    source = tmp_path / "op.json"
    source.write_text(json.dumps(elements, indent=1))
    result = compile_singleop(source, tmp_path / "out", "Ascend910B1")
    assert all("\n" not in e for e in result.errors)
    return result.errors


def test_an_unknown_op_type_fails_the_atc_process_with_one_line_naming_file_element_and_op(tmp_path):
    done = atc(tmp_path, [add("float32", "float32", "float32"),
                          element("SparseDenseFoo", [tensor()], [tensor()])])
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = [x for x in done.stderr.splitlines() if "SparseDenseFoo" in x]
    assert line.startswith(f'{tmp_path / "op.json"}:3: element 1 (op "SparseDenseFoo"): op: no prototype for op type')
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["0_Add_0_2_3_0_2_3_0_2_3.om"]


def test_a_near_miss_op_type_names_the_close_built_in_ones(tmp_path, monkeypatch):
    [line] = errors(tmp_path, [element("Addn", [tensor(), tensor()], [tensor()])], monkeypatch)
    assert "did you mean" in line and "AddN" in line


@pytest.mark.parametrize("types, field, allowed", [
    (("float32", "float16", "float32"), "input_desc[1].type", 'expected "float32", the dtype of x1'),
    (("float32", "float32", "int32"), "output_desc[0].type", 'expected "float32", the dtype of x1'),
    (("uint16", "uint16", "uint16"), "input_desc[0].type", "Add's x1 takes one of bool, float32, int32"),
])
def test_dtypes_outside_the_constraints_are_one_line_with_the_allowed_values(tmp_path, monkeypatch, types, field,
                                                                             allowed):
    [line] = errors(tmp_path, [add(*types)], monkeypatch)
    assert f': element 0 (op "Add"): {field}: ' in line and allowed in line and line.endswith("[E13014]")


def compiled(tmp_path, elements, monkeypatch):
    """The CompileResult of an in-process compile of the elements (ASCEND_OPP_PATH unset)."""
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    source = tmp_path / "op.json"
    source.write_text(one_per_line(elements))
    return compile_singleop(source, tmp_path / "out", "Ascend910B1")


@pytest.mark.parametrize("attrs, output, field, text", [
    ([("dst_type", "int", 1)], "int32", "output_desc[0].type",
     '"int32": expected "float16", the dtype attribute dst_type sets (1)'),
    ([("dst_type", "int", 1), ("round", "string", "x")], "float16", 'attr[1] ("round").name',
     'Cast has no attribute "round"; its attributes: dst_type (int), truncate (bool)'),
])
def test_extra_attributes_and_dst_type_contradictions_are_one_warning_line_and_still_compile(
        tmp_path, monkeypatch, attrs, output, field, text):
    """atc.settings.WARNED_PROBLEMS: the runtime matches such models (conformance test_descriptors, test_cast)."""
    result = compiled(tmp_path, [element("Cast", [tensor("float32")], [tensor(output)], attrs)], monkeypatch)
    assert result.ok and len(result.written) == 1
    [line] = result.warnings
    assert line == f'{tmp_path / "op.json"}:2: element 0 (op "Cast"): {field}: warning: {text}'


@pytest.mark.parametrize("inputs, outputs, field", [
    ([tensor()], [tensor()], "input_desc: 1 inputs given; Add takes x1, x2"),
    ([tensor()] * 3, [tensor()], "input_desc: 3 inputs given"),
    ([tensor()] * 2, [tensor()] * 2, "output_desc: 2 outputs given; Add takes y"),
])
def test_tensor_counts_outside_the_prototype_are_refused(tmp_path, monkeypatch, inputs, outputs, field):
    [line] = errors(tmp_path, [element("Add", inputs, outputs)], monkeypatch)
    assert f': element 0 (op "Add"): {field}' in line


def test_optional_and_dynamic_tensors_fit_their_counts(tmp_path, monkeypatch):
    conv = element("Conv2D", [tensor("float16", (1, 4, 4, 1)), tensor("float16", (1, 1, 1, 1))],
                   [tensor("float16", (1, 4, 4, 1))], [("strides", "list_int", [1, 1, 1, 1]),
                                                       ("pads", "list_int", [0, 0, 0, 0])])
    unused_bias = dict(conv, input_desc=conv["input_desc"] + [{"format": "RESERVED", "shape": [], "type": "UNDEFINED"}])
    concat = element("ConcatD", [tensor()] * 4, [tensor(shape=(12,))], [("concat_dim", "int", 0), ("N", "int", 4)])
    split = element("SplitD", [tensor(shape=(6,))], [tensor(shape=(2,))] * 3,
                    [("split_dim", "int", 0), ("num_split", "int", 3)])
    assert errors(tmp_path, [conv, unused_bias, concat, split], monkeypatch) == []
    [line] = errors(tmp_path, [dict(concat, input_desc=[])], monkeypatch)
    assert "0 inputs given; ConcatD takes x (dynamic, 1 or more)" in line


@pytest.mark.parametrize("attrs, field, text", [
    ([("dst_type", "float", 1.0)], 'attr[0] ("dst_type").type', 'type "float": Cast\'s dst_type is "int"'),
    ([("truncate", "bool", False)], "attr", 'Cast requires attribute "dst_type" (int, REQUIRED_ATTR)'),
])
def test_attributes_are_checked_by_name_type_and_required(tmp_path, monkeypatch, attrs, field, text):
    cast = element("Cast", [tensor("float32")], [tensor("float16")], attrs)
    [line] = errors(tmp_path, [cast], monkeypatch)
    assert f': element 0 (op "Cast"): {field}: {text} [E13014]' in line


def test_a_kernel_registered_in_the_process_compiles_without_a_prototype(tmp_path, monkeypatch):
    foo = element("MyRegisteredOp", [tensor()], [tensor()])
    assert "no prototype" in errors(tmp_path, [foo], monkeypatch)[0]
    aclcts.sim.register_kernel("MyRegisteredOp", lambda xs, attrs, outs: [np.asarray(xs[0])])
    try:
        assert errors(tmp_path, [foo], monkeypatch) == []
    finally:
        unregister_kernel("MyRegisteredOp")
    assert "no prototype" in errors(tmp_path, [foo], monkeypatch)[0]


def _install(opp: Path, vendor: str, proto) -> Path:
    path = opp / "vendors" / vendor / RECORD_FOLDER / f"{proto.op_type}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record_text(proto))
    return path


def test_a_vendor_record_makes_a_custom_op_compile_in_the_atc_process_and_is_checked(tmp_path):
    _install(tmp_path / "opp", "acme", op("AddCustom", "x:T, y:T", "z:T", {"T": ("float16", "float32")}))
    good = element("AddCustom", [tensor(), tensor()], [tensor()])
    assert atc(tmp_path, [good], tmp_path / "opp").returncode == 0
    assert atc(tmp_path, [good], None).returncode == 1
    done = atc(tmp_path, [element("AddCustom", [tensor("int8"), tensor("int8")], [tensor("int8")])], tmp_path / "opp")
    assert done.returncode == 1 and "AddCustom's x takes one of float16, float32" in done.stderr


def test_vendors_are_searched_in_config_ini_load_priority_and_override_built_ins(tmp_path, monkeypatch):
    opp = tmp_path / "opp"
    _install(opp, "a_first_by_name", op("Add", "x1:T, x2:T", "y:T", {"T": ("float16",)}))
    _install(opp, "preferred", op("Add", "x1:T, x2:T", "y:T", {"T": ("int8",)}))
    monkeypatch.setenv("ASCEND_OPP_PATH", str(opp))
    source = tmp_path / "op.json"
    source.write_text(json.dumps([add("int8", "int8", "int8")]))
    assert not compile_singleop(source, tmp_path / "o", "S").ok
    (opp / "vendors" / "config.ini").write_text("load_priority=preferred,a_first_by_name\n")
    assert compile_singleop(source, tmp_path / "o", "S").ok


def test_a_broken_vendor_record_is_one_line_naming_the_record(tmp_path, monkeypatch):
    path = _install(tmp_path / "opp", "acme", op("AddCustom", "x:T", "z:T", {"T": ("float32",)}))
    path.write_text('{"op": "AddCustom", "inputs": "x:T", "outputs": "z:T", "types": {"T": "float32"}}')
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path / "opp"))
    source = tmp_path / "op.json"
    source.write_text(json.dumps([element("AddCustom", [tensor()], [tensor()])]))
    [line] = compile_singleop(source, tmp_path / "o", "S").errors
    assert f"{path}: types: expected lists of dtype names" in line and "\n" not in line
