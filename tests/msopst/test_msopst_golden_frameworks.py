"""msopst golden functions that import a framework (TensorFlow, PyTorch): the fallback to aclcts' reference when the
framework is not installed, the refusal when there is no such reference, and TensorFlow 1.x goldens run on TF 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aclcts.cases import CaseFileError, load_cases
from aclcts.cases.case import Refusal
from aclcts.cases.msopst import load_msopst_cases
from aclcts.reference import reference

#: A golden file whose import stops at a module nobody installs.
MISSING_FRAMEWORK = "import no_such_framework_xyz\n\n\ndef calc(x1, x2, y):\n    return [x1['value'] * 0]\n"
NOTE = "golden needs no_such_framework_xyz: judged against aclcts' reference"


def tensor(name: str) -> dict:
    """One float32 ND tensor object of shape [2, 3]."""
    return {"name": name, "format": "ND", "type": "float32", "shape": [2, 3]}


def write_case(folder: Path, file: str, case_name: str, op: str = "Add", golden: str = "golden.py:calc") -> Path:
    """Write an msopst file with one two-input, one-output case of op whose golden function is golden."""
    path = folder / file
    path.write_text(json.dumps([{"case_name": case_name, "op": op, "input_desc": [tensor("x1"), tensor("x2")],
                                 "output_desc": [tensor("y")], "calc_expect_func_file": golden}]))
    return path


def refusal_of(path: Path) -> Refusal:
    """The refusal of a one-case file: the loader's CaseFileError, or the refused Case a loader that goes on makes."""
    try:
        (case,) = load_msopst_cases(str(path))
    except CaseFileError as exc:
        return Refusal(exc.stage, str(exc))
    assert case.refusal is not None, case
    return case.refusal


def test_a_golden_needing_a_missing_module_is_judged_against_the_builtin_reference_with_one_warning(tmp_path):
    (tmp_path / "golden.py").write_text(MISSING_FRAMEWORK)
    write_case(tmp_path, "add_one.json", "Add_one")
    write_case(tmp_path, "add_two.json", "Add_two")
    lines: list[str] = []
    cases = load_cases([str(tmp_path)], warn=lines.append)
    assert [c.reference for c in cases] == ["Add", "Add"]
    assert {c.msopst.reference_kind for c in cases} == {"builtin-fallback"}
    assert {c.msopst.op_params["reference_note"] for c in cases} == {NOTE}
    assert len(lines) == 1, lines
    assert "no_such_framework_xyz" in lines[0] and "2 case file(s)" in lines[0] and "2 case(s)" in lines[0]
    x1, x2 = np.full((2, 3), 2.0), np.full((2, 3), 3.0)
    (y,) = reference(cases[0].reference).compute([x1, x2], {}, [np.dtype(np.float32)])
    np.testing.assert_array_equal(y, x1 + x2)  # the built-in Add, not the golden's zeros


def test_the_warning_names_the_extra_that_installs_tensorflow(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # `import tensorflow` now fails as if it were not installed
    (tmp_path / "golden.py").write_text("import tensorflow as tf\n\n\ndef calc(x1, x2, y):\n    return [x1['value']]\n")
    write_case(tmp_path, "add.json", "Add_tf")
    lines: list[str] = []
    (case,) = load_cases([str(tmp_path)], warn=lines.append)
    assert case.msopst.op_params["reference_note"] == "golden needs tensorflow: judged against aclcts' reference"
    assert lines == [line for line in lines if "import tensorflow" in line and "pip install 'aclcts[golden-tf]'" in line]
    assert len(lines) == 1


def test_a_golden_needing_a_missing_module_for_an_op_without_reference_is_refused_at_stage_golden(tmp_path):
    (tmp_path / "golden.py").write_text(MISSING_FRAMEWORK)
    refusal = refusal_of(write_case(tmp_path, "custom.json", "Custom_one", op="MyCustomOpXyz"))
    assert refusal.stage == "golden"
    assert "\n" not in refusal.reason and "custom.json" in refusal.reason and "Custom_one" in refusal.reason
    assert "imports no_such_framework_xyz" in refusal.reason and "no aclcts extra installs it" in refusal.reason
    assert "MyCustomOpXyz" in refusal.reason


@pytest.mark.parametrize("body", ["raise ValueError('broken at import')\n", "import sys\nsys.exit(3)\n",
                                  "def calc(x1, x2, y) return\n", "import time\ntime.sleep(60)\n"],
                         ids=["raises", "exits", "syntax-error", "hangs"])
def test_a_golden_file_that_fails_to_import_otherwise_stays_an_error_of_stage_golden(tmp_path, monkeypatch, body):
    monkeypatch.setenv("ACLCTS_IMPORT_TIMEOUT", "0.5")
    (tmp_path / "golden.py").write_text(body)
    refusal = refusal_of(write_case(tmp_path, "add.json", "Add_broken"))
    assert refusal.stage == "golden" and "calc_expect_func_file" in refusal.reason and "\n" not in refusal.reason


def test_a_golden_file_missing_a_module_is_imported_once_for_all_its_cases(tmp_path):
    counter = tmp_path / "imports.txt"
    (tmp_path / "golden.py").write_text(f"open({str(counter)!r}, 'a').write('x')\n{MISSING_FRAMEWORK}")
    path = tmp_path / "add.json"
    path.write_text(json.dumps([{"case_name": f"Add_{i}", "op": "Add", "input_desc": [tensor("x1"), tensor("x2")],
                                 "output_desc": [tensor("y")], "calc_expect_func_file": "golden.py:calc"}
                                for i in range(3)]))
    cases = load_msopst_cases(str(path))
    assert len(cases) == 3 and counter.read_text() == "x"


#: A golden function in TensorFlow 1.x's graph style (placeholder, Session), as most of CANN's are written.
TF1_GOLDEN = """\
import tensorflow as tf


def calc(x1, x2, y):
    a = tf.placeholder(x1["value"].dtype, shape=x1["value"].shape)
    b = tf.placeholder(x2["value"].dtype, shape=x2["value"].shape)
    with tf.Session() as session:
        return [session.run(tf.maximum(a, b) * 2, feed_dict={a: x1["value"], b: x2["value"]})]
"""
#: The same in TensorFlow 2's eager style.
TF2_GOLDEN = """\
import tensorflow as tf


def calc(x1, x2, y):
    return [(tf.maximum(x1["value"], x2["value"]) * 2).numpy()]
"""


@pytest.mark.parametrize("source", [TF1_GOLDEN, TF2_GOLDEN], ids=["tf1-graph", "tf2-eager"])
def test_a_tensorflow_golden_runs_as_msopst_calls_it(tmp_path, source):
    pytest.importorskip("tensorflow")
    (tmp_path / "golden.py").write_text(source)
    (case,) = load_msopst_cases(str(write_case(tmp_path, "add.json", "Add_tf")))
    assert case.msopst.reference_kind == "golden"
    x1 = np.arange(6, dtype=np.float32).reshape(2, 3)
    x2 = np.full((2, 3), 2.5, np.float32)
    for _ in range(2):  # each call gets its own graph
        (y,) = reference(case.reference).compute([x1, x2], {}, [np.dtype(np.float32)])
        np.testing.assert_array_equal(y, np.maximum(x1, x2) * 2)


def test_the_reports_say_the_case_was_judged_against_aclcts_reference(tmp_path):
    from test_msopst_suite import run_suite  # tests/msopst's runner of the suite on case files

    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "golden.py").write_text(MISSING_FRAMEWORK)
    write_case(folder, "add.json", "Add_fallback")
    done, cases, st = run_suite(folder, tmp_path, "conformance/test_execute.py", "-k", "v2_matches_reference")
    assert done.returncode == 0 and cases and {r["status"] for r in cases.values()} == {"passed"}, done.stdout[-2000:]
    assert {r.get("reference") for r in cases.values()} == {NOTE}
    (entry,) = st["report_list"]
    assert entry["trace_detail"]["st_case_info"]["op_params"]["reference_note"] == NOTE
    assert done.stdout.count("import no_such_framework_xyz, which is not installed") == 1, done.stdout[-2000:]


def test_a_golden_importing_a_missing_module_only_when_called_falls_back_like_one_importing_it_at_load(tmp_path):
    (tmp_path / "golden.py").write_text("import numpy as np\n\n\ndef helper():\n    from no_such_framework_xyz.sub import f"
                                        "\n\n\ndef calc(x1, x2, y):\n    helper()\n    return [x1['value'] * 0]\n")
    write_case(tmp_path, "add_late.json", "Add_late")
    lines: list[str] = []
    (case,) = load_cases([str(tmp_path)], warn=lines.append)
    assert case.reference == "Add" and case.msopst.reference_kind == "builtin-fallback"
    assert case.msopst.op_params["reference_note"] == NOTE
    assert len(lines) == 1 and "no_such_framework_xyz" in lines[0]


def test_a_golden_whose_call_time_imports_are_installed_stays_the_reference(tmp_path):
    (tmp_path / "golden.py").write_text("def calc(x1, x2, y):\n    import numpy as np\n    from json import dumps\n"
                                        "    return [np.zeros((2, 3))]\n")
    (case,) = load_msopst_cases(str(write_case(tmp_path, "add_np.json", "Add_np")))
    assert case.msopst.reference_kind == "golden"


@pytest.mark.parametrize("installed, environ, expected", [
    (True, {}, {"TF_USE_LEGACY_KERAS": "1"}),
    (False, {}, {}),
    (True, {"TF_USE_LEGACY_KERAS": "0"}, {"TF_USE_LEGACY_KERAS": "0"}),
], ids=["tf-keras-installed", "tf-keras-missing", "user-choice-kept"])
def test_tensorflow_1s_keras_is_asked_for_only_when_tf_keras_is_installed_and_the_user_chose_nothing(
        monkeypatch, installed, environ, expected):
    from aclcts.cases.msopst import golden

    monkeypatch.delitem(sys.modules, "tensorflow", raising=False)
    found = golden.importlib.util.find_spec
    monkeypatch.setattr(golden.importlib.util, "find_spec",
                        lambda name: (object() if installed else None) if name == "tf_keras" else found(name))
    golden.legacy_keras(environ)
    assert environ == expected


#: A TensorFlow 1.x golden calling tf.layers, as CANN's Flatten golden does.
TF1_LAYERS_GOLDEN = """\
import tensorflow as tf


def calc(x, y):
    a = tf.placeholder(x["value"].dtype, shape=x["value"].shape)
    with tf.Session() as session:
        return [session.run(tf.layers.flatten(a), feed_dict={a: x["value"]})]
"""


def test_a_tensorflow_1_golden_calling_tf_layers_runs_where_tf_keras_is_installed(tmp_path):
    pytest.importorskip("tf_keras")
    (tmp_path / "golden.py").write_text(TF1_LAYERS_GOLDEN)
    tensor_x = {"name": "x", "format": "ND", "type": "float32", "shape": [2, 3, 4]}
    tensor_y = {"name": "y", "format": "ND", "type": "float32", "shape": [2, 12]}
    (tmp_path / "flatten.json").write_text(json.dumps([{
        "case_name": "Flatten_tf_layers", "op": "Flatten", "input_desc": [tensor_x], "output_desc": [tensor_y],
        "calc_expect_func_file": "golden.py:calc"}]))
    script = ("import numpy as np, sys\nfrom aclcts.cases.msopst import load_msopst_cases\n"
              "from aclcts.reference import reference\n"
              "(case,) = load_msopst_cases(sys.argv[1])\nx = np.arange(24, dtype=np.float32).reshape(2, 3, 4)\n"
              "(y,) = reference(case.reference).compute([x], {}, [np.dtype(np.float32)])\n"
              "assert case.msopst.reference_kind == 'golden' and (y == x.reshape(2, 12)).all(), y\nprint('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "flatten.json")], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
