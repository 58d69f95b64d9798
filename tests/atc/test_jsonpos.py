"""LocatedJson: the line of every object and array, from the C scanner's fast path and the located decoder alike."""

import json

import pytest

from aclcts.atc.jsonpos import DuplicateJsonKey, JsonTooDeep, LocatedJson

TEXT = '[\n  {"op": "Add",\n   "input_desc": [\n     {"shape": [1, 2]}],\n   "attr": []},\n\n  {}, 3, "x"]\n'


def test_every_object_and_array_has_the_line_it_starts_on():
    doc = LocatedJson(TEXT)
    first = doc.value[0]
    assert doc.line(doc.value) == 1 and doc.line(first) == 2 and doc.line(doc.value[1]) == 7
    assert doc.line(first["input_desc"]) == 3 and doc.line(first["input_desc"][0]) == 4
    assert doc.line(first["input_desc"][0]["shape"]) == 4 and doc.line(first["attr"]) == 5
    assert doc.line(doc.value[2]) is None and doc.line(doc.value[3]) is None


def test_the_value_is_what_json_decodes():
    assert LocatedJson(TEXT).value == json.loads(TEXT)


@pytest.mark.parametrize("text, error, line", [
    ('[{"a": 1,\n "a": 2}]', DuplicateJsonKey, 2),
    ("[\n" + "[" * 101 + "]" * 101 + "]", JsonTooDeep, 2),
])
def test_what_the_fast_path_cannot_take_still_fails_with_its_line(text, error, line):
    with pytest.raises(error) as caught:
        LocatedJson(text)
    assert caught.value.line == line


@pytest.mark.parametrize("text", ["[1,]", "[NaN]", "[1] x", "[1 2]", ""])
def test_bad_json_is_a_value_error(text):
    with pytest.raises(ValueError):
        LocatedJson(text)


def test_lines_of_many_elements_are_each_their_own():
    text = "[\n" + ",\n".join('{"i": %d}' % i for i in range(5000)) + "\n]"
    doc = LocatedJson(text)
    assert [doc.line(element) for element in doc.value] == list(range(2, 5002))
