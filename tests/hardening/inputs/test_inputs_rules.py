"""The shared input rules (core.inputs) and the stricter YAML and JSON readers built on them."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml

from aclcts.atc.jsonpos import DuplicateJsonKey, JsonTooDeep, LocatedJson
from aclcts.cases import CaseFileError, case_files, expand_file
from aclcts.core import inputs, yamlpos
from aclcts.core.inputs import DuplicateKeyError, InputFileError, decode_utf8, read_bytes, too_deep, unique_keys
from aclcts.core.yamlpos import YamlSyntaxError, load_with_lines


def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bytes(path, "test", 10) == b"x" * 10
    with pytest.raises(InputFileError, match=r"^.*/f: the test file is larger than the limit of 9 bytes$"):
        read_bytes(path, "test", 9)


def test_a_character_device_is_refused_unread():
    with pytest.raises(InputFileError, match="^/dev/null: cannot read the test file: a character device, not a "):
        read_bytes("/dev/null", "test", 10)


def test_a_folder_and_a_missing_file_are_refused(tmp_path):
    with pytest.raises(InputFileError, match="a folder, not a regular file"):
        read_bytes(tmp_path, "test", 10)
    with pytest.raises(InputFileError, match="cannot read the test file: No such file"):
        read_bytes(tmp_path / "missing", "test", 10)


def test_bad_utf8_names_line_byte_and_offset():
    with pytest.raises(InputFileError) as info:
        decode_utf8(b"a: 1\nb: \xe2\x82\n", "f.yaml")
    assert str(info.value).startswith("f.yaml:2: not UTF-8 text: byte 0xe2 at byte offset 8 ")


def test_unique_keys_refuses_a_repeated_key_and_keeps_order():
    assert list(unique_keys([("b", 1), ("a", 2)])) == ["b", "a"]
    with pytest.raises(DuplicateKeyError) as info:
        unique_keys([("a", 1), ("b", 2), ("a", 3)])
    assert info.value.key == "a"


@pytest.mark.parametrize("depth, deep", [(3, False), (inputs.MAX_NESTING_DEPTH, False),
                                         (inputs.MAX_NESTING_DEPTH + 1, True)])
def test_too_deep_counts_objects_and_arrays(depth, deep):
    value: object = 1
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    text = "[" * depth
    assert too_deep(value, text) is deep


def test_a_socket_in_a_case_folder_is_skipped_with_a_warning(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "s.yaml"))
    try:
        warned: list[str] = []
        assert case_files([str(folder)], warn=warned.append) == []
        assert warned == [f"{folder / 's.yaml'}: skipped, not read as a case file: a socket, not a regular file"]
        with pytest.raises(CaseFileError, match="s.yaml: cannot read the case file: a socket, not a regular file"):
            case_files([str(folder / "s.yaml")])
    finally:
        server.close()


@pytest.mark.parametrize("text, line, wanted", [
    ("? [a, b]\n: 1\n", 1, "expected a plain value as a mapping key, got a list"),
    ("a: 1\n<<: {b: 2}\n", 2, "merge"),
    ("a: !custom 1\n", 1, "field 'a': expected a plain YAML value"),
    ("a:\n  b: 1\n  c: 2\n  b: 3\n", 4, "duplicate key 'b' (first given on line 2)"),
    ("a: 1\nb: \x00\n", 2, "character #x0000 at character offset 8 is not allowed"),
])
def test_yaml_that_yaml_allows_but_aclcts_does_not(text, line, wanted):
    with pytest.raises(YamlSyntaxError) as info:
        load_with_lines(text, "f.yaml")
    assert str(info.value).startswith(f"f.yaml:{line}: ") and wanted in str(info.value)


def test_aliases_expanding_beyond_the_value_limit_are_refused(monkeypatch):
    monkeypatch.setattr(yamlpos, "MAX_YAML_VALUES", 50)
    text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
    with pytest.raises(YamlSyntaxError, match="at most 50 values"):
        load_with_lines(text, "f.yaml")
    assert load_with_lines("a: &a [1, 2]\nb: [*a, *a]\n", "f.yaml")[0] == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


def test_json_duplicate_keys_name_both_lines_and_nested_objects_are_checked_too():
    with pytest.raises(DuplicateJsonKey) as info:
        LocatedJson('[{"a": 1,\n  "b": {"c": 1,\n\n  "c": 2}}]')
    assert (info.value.key, info.value.first_line, info.value.line) == ("c", 2, 4)
    assert LocatedJson('{"a": {"b": 1}, "b": {"a": 2}}').value == {"a": {"b": 1}, "b": {"a": 2}}


def test_json_nesting_limit_names_the_line():
    depth = inputs.MAX_NESTING_DEPTH
    assert LocatedJson("[" * depth + "]" * depth).value is not None
    with pytest.raises(JsonTooDeep) as info:
        LocatedJson("\n" + "[" * (depth + 1) + "]" * (depth + 1))
    assert info.value.line == 2


CASES = Path(__file__).resolve().parents[3] / "cases"
MINIMAL_CASE = ["op: Add", "policy: elementwise", "source: REG_OP(Add)", "inputs: [x1, x2]", "outputs: [y]",
                "dtypes: [float32]", "shapes: [[[2], [2]]]"]


@pytest.mark.parametrize("extra, field", [
    (["name: {a: 1}"], "name"),
    (["values: [1, 2]"], "values"),
    (["attrs: 3"], "attrs"),
    (["shapes: [[[2]]]", "const: {x2: [[1], {}]}"], "const.x2"),
    (["dtypes: [{x1: [float32], '*': float32}]"], "dtypes[0].x1"),
    (["values: {x1: {integers: [{}, 8]}}"], "values.x1.integers"),
    (["values: {x1: {integers: [[], 8]}}"], "values.x1.integers"),
    (["values: {x1: {integers: null}}"], "values.x1.integers"),
    (["values: {x1: {integers: [0, 9223372036854775808]}}"], "values.x1.integers"),
    (["values: {x1: {uniform: [5, 1]}}"], "values.x1.uniform"),
    (["values: {x1: {uniform: [-1.7e+308, 1.7e+308]}}"], "values.x1.uniform"),
    (["values: {x1: {uniform: [.nan, 1]}}"], "values.x1.uniform"),
    (["values: {default: {positive: [-1, 1]}}"], "values.default.positive"),
    (["values: {x1: {normal: [0, -1]}}"], "values.x1.normal"),
    (["values: {x1: {choice: []}}"], "values.x1.choice"),
    (["values: {x1: {choice: [1, [2]]}}"], "values.x1.choice"),
    (["values: {x1: {special: [2]}}"], "values.x1.special"),
    (["values: {x1: {special: 0.25}}"], "values.x1.special"),
])
def test_malformed_case_values_the_fuzz_found_are_case_file_errors(tmp_path, extra, field):
    kept = [text for text in MINIMAL_CASE if text.split(":")[0] not in {e.split(":")[0] for e in extra}]
    source = tmp_path / "case.yaml"
    source.write_text("\n".join(kept + extra) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        expand_file(str(source))
    assert str(info.value).startswith(f"{source}:{len(kept) + len(extra)}: {field}: "), str(info.value)


@pytest.mark.parametrize("library_file, change, field, words", [
    ("pooling/max_pool_nchw.yaml", {"shapes": [[[2, 9, 8]]]}, "shapes[0]", "MaxPool: IndexError"),
    ("reshaping/concat_v2_negative_axis.yaml", {"const": {"concat_dim": []}}, "shapes[0]", "ConcatV2: IndexError"),
    ("scan/cumprod_d.yaml", {"shapes": [[[6]]]}, "shapes", "CumprodD: axis 1 out of range for rank 1"),
])
def test_shapes_the_reference_refuses_the_fuzz_found_are_case_file_errors(tmp_path, library_file, change, field,
                                                                           words):
    data = yaml.safe_load((CASES / library_file).read_text(encoding="utf-8")) | change
    source = tmp_path / "case.yaml"
    source.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        expand_file(str(source))
    message = str(info.value)
    assert message.startswith(f"{source}:") and f": {field}: " in message and words in message, message
    assert "\n" not in message


def test_a_newline_in_a_key_is_escaped_so_the_message_stays_one_line(tmp_path):
    source = tmp_path / "case.yaml"
    source.write_text("\n".join(MINIMAL_CASE) + '\n"bad\\nkey": 1\n', encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        expand_file(str(source))
    assert "\n" not in str(info.value) and "bad\\nkey" in str(info.value)
