"""Fixtures for the single-op JSON tests: parse one element, compile a file in tmp_path."""

import json

import pytest

from aclcts.atc import parse_singleop


@pytest.fixture
def parse_one():
    """Parse a JSON array holding the given elements and return its single operator."""
    def parse(*elements, soc_version="Ascend310"):
        ops = parse_singleop(json.dumps(list(elements)), "op.json", soc_version=soc_version)
        assert len(ops) == 1
        return ops[0]
    return parse


@pytest.fixture
def write_json(tmp_path):
    """Write a single-op JSON text (or list of elements) to tmp_path and return its path."""
    def write(content, name="op_list.json"):
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2))
        return path
    return write
