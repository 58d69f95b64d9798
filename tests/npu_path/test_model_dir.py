"""--model-dir is checked once, before any test: a folder that is missing, not a folder or holds no op model is one
usage line naming the option, the path and what was expected."""

import json

import pytest

from aclcts.atc import compile_singleop

ADD = [{"op": "Add", "input_desc": [{"format": "ND", "shape": [2], "type": "int32"}] * 2,
        "output_desc": [{"format": "ND", "shape": [2], "type": "int32"}]}]


@pytest.fixture
def one_model(tmp_path):
    """A compiled simulator op model and the file it is in; the test moves it where it wants it."""
    op_list = tmp_path / "op_list.json"
    op_list.write_text(json.dumps(ADD), encoding="utf-8")
    result = compile_singleop(op_list, tmp_path / "compiled", "Ascend910B1")
    assert result.ok
    [model] = result.written
    return model


def run(pytester, *args):
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def assert_one_usage_line(result, path, reason):
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.errlines + result.outlines if str(path) in line]
    assert len(lines) == 1, lines
    assert f"--model-dir={path}: {reason}" in lines[0] and "expected" in lines[0] and "aclcts singleop" in lines[0]


@pytest.mark.parametrize("backend", ["npu", "sim"])
def test_a_missing_folder_is_one_usage_line(pytester, tmp_path, backend):
    missing = tmp_path / "op_models"
    assert_one_usage_line(run(pytester, f"--backend={backend}", f"--model-dir={missing}"), missing, "no such folder")


def test_a_file_is_not_a_model_folder(pytester, one_model):
    assert_one_usage_line(run(pytester, "--backend=npu", f"--model-dir={one_model}"), one_model, "not a folder")


@pytest.mark.parametrize("backend", ["npu", "sim"])
def test_a_folder_without_om_files_holds_no_models(pytester, tmp_path, backend):
    folder = tmp_path / "op_models"
    (folder / "logs").mkdir(parents=True)
    (folder / "op_list.json").write_text("[]", encoding="utf-8")
    assert_one_usage_line(run(pytester, f"--backend={backend}", f"--model-dir={folder}"), folder, "holds no op models")


def test_a_model_deeper_than_set_model_dir_looks_does_not_count(pytester, tmp_path, one_model):
    folder = tmp_path / "op_models"
    (folder / "a" / "b" / "c").mkdir(parents=True)
    one_model.rename(folder / "a" / "b" / "c" / one_model.name)
    assert_one_usage_line(run(pytester, "--backend=npu", f"--model-dir={folder}"), folder, "holds no op models")


def test_under_xdist_the_run_still_stops_with_one_line(pytester, tmp_path):
    missing = tmp_path / "op_models"
    assert_one_usage_line(run(pytester, "--backend=npu", f"--model-dir={missing}", "-n", "2"), missing,
                          "no such folder")


@pytest.mark.parametrize("where", [(), ("a",), ("a", "b")])
def test_a_model_in_the_folder_or_two_levels_below_is_accepted(pytester, tmp_path, one_model, where):
    folder = tmp_path / "op_models"
    target = folder.joinpath(*where)
    target.mkdir(parents=True)
    one_model.rename(target / one_model.name)
    result = run(pytester, f"--model-dir={folder}")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1)
