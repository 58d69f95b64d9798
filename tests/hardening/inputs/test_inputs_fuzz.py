"""Fuzzing the loaders: every malformed input ends in the loader's own one-line error, never another exception.

Seeds are the repository's real files (case files, the examples' single-op JSON, the example expectations, the CANN
9.0 error-code table, a small report, simulator models), mutated by byte flips, truncation, inserted bytes, invalid
UTF-8, a duplicated key and deep nesting, or by one value replaced with a random one or removed; fully random YAML and
JSON structures come beside them; msopst case files are mutated the same way, and --devices, --shard and the shard
engines' variables get text of digits and separators. The number of
inputs per loader is the hypothesis profile's max_examples times FACTOR (the `ci` profile: a few seconds in all), or
ACLCTS_FUZZ_EXAMPLES when set, e.g. ACLCTS_FUZZ_EXAMPLES=2000 for 12,000 inputs over the six loaders. The `ci`
profile derandomizes, so a long run explores new inputs only under another profile and seed:
ACLCTS_HYPOTHESIS_PROFILE=default ACLCTS_FUZZ_EXAMPLES=2000 pytest THIS_FILE -p no:xdist --hypothesis-seed=N.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclcts.atc.parser import SingleOpFileError, parse_singleop, read_singleop_text
from aclcts.cases import CaseFileError, expand_file
from aclcts.cases import strategies  # noqa: F401  (registers and loads the profiles: `ci` unless one is chosen)
from aclcts.cases.msopst import load_msopst_cases
from aclcts.core.error_codes import ErrorCodesError, load_error_codes
from aclcts.core.opmodel import ModelFormatError, OpModel
from aclcts.pytest_plugin.expectations import ExpectationsError, load_expectations
from aclcts.pytest_plugin.sharding import (MAX_DEVICE_ID, MAX_SHARDS, parse_devices, parse_shard,
                                           shard_from_environment)
from aclcts.report.records import ReportError, encode, read_report

ROOT = Path(__file__).resolve().parents[3]
FUZZ_ENV = "ACLCTS_FUZZ_EXAMPLES"
#: Inputs per loader, as a multiple of the profile's max_examples.
FACTOR = 5


def _examples() -> int:
    given_count = os.environ.get(FUZZ_ENV)
    return int(given_count) if given_count else settings.default.max_examples * FACTOR


FUZZ = settings(max_examples=_examples())

CASE_SEEDS = [p.read_bytes() for p in sorted(ROOT.glob("cases/**/*.yaml"))]
JSON_SEEDS = [p.read_bytes() for p in sorted(ROOT.glob("tests/examples/data/*.json"))]
MSOPST_DATA = ROOT / "tests" / "msopst" / "data"
MSOPST_SEEDS = [p.read_bytes() for p in sorted(MSOPST_DATA.glob("*.json"))]
EXPECTATION_SEEDS = [(ROOT / "expectations" / "example.yaml").read_bytes()]
ERROR_CODE_SEEDS = [(ROOT / "error-codes" / "cann-9.0.yaml").read_bytes()]
REPORT_SEEDS = [b"".join(encode(r) for r in [
    {"record": "run", "version": "1", "seed": 7, "settings": {"backend": "sim"}, "expectations": []},
    {"record": "environment", "soc": "Ascend910B1"},
    {"record": "case", "id": "conformance/test_execute.py::test_add[f32]", "status": "passed", "metrics": {"ulp": 0}},
    {"record": "case", "id": "conformance/test_execute.py::test_add[f16]", "status": "failed", "category": None},
    {"record": "summary", "passed": 1, "failed": 1},
])]
MODEL_SEEDS = [op.model.to_bytes() for data in JSON_SEEDS
               for op in parse_singleop(data.decode("utf-8"), "seed.json") if op.ok]
#: A model's header is 20 bytes; its body is JSON.
MODEL_HEADER = 20

#: Byte sequences that are not UTF-8: a lone continuation byte, a cut 2-byte sequence, an encoded surrogate, 0xff.
BAD_UTF8 = [b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xff", b"\xf8\x88\x80\x80\x80"]
#: A key line in YAML (`  key: ...`) and a key in JSON (`"key":`).
YAML_KEY = re.compile(rb"^[ \t]*[A-Za-z_][\w-]*:.*$", re.MULTILINE)
JSON_KEY = re.compile(rb'"[A-Za-z_]+"\s*:\s*("[^"]*"|-?\d+|true|false|null)')


@st.composite
def _mutated(draw: st.DrawFn, seeds: list[bytes], structured: str) -> bytes:
    """One seed changed by one or more of the mutations."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "utf8", "duplicate", "deep"]))
        at = draw(st.integers(0, len(data)))
        if kind == "flip" and data:
            data[min(at, len(data) - 1)] ^= draw(st.integers(1, 255))
        elif kind == "truncate":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "utf8":
            data[at:at] = draw(st.sampled_from(BAD_UTF8))
        elif kind == "duplicate":
            keys = list((YAML_KEY if structured == "yaml" else JSON_KEY).finditer(bytes(data)))
            if keys:
                key = draw(st.sampled_from(keys))
                copy = b"\n" + key.group(0) if structured == "yaml" else key.group(0) + b", "
                position = key.end() if structured == "yaml" else key.start()
                data[position:position] = copy
        else:
            depth = draw(st.sampled_from([50, 101, 1000, 100_000]))
            data[at:at] = b"[" * depth + b"1" + b"]" * depth
    return bytes(data)


_SCALARS = st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=12)
_KEYS = st.sampled_from(["op", "policy", "source", "inputs", "outputs", "dtypes", "shapes", "attrs", "const",
                         "values", "modes", "release", "entries", "id", "reason", "expires", "owner", "record",
                         "status", "version", "seed", "input_desc", "output_desc", "attr", "type", "format",
                         "shape", "name", "value", "x1", "y"]) | st.text(max_size=6)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
                       max_leaves=20)


def _random_yaml() -> st.SearchStrategy[bytes]:
    return _VALUES.map(lambda value: yaml.safe_dump(value, allow_unicode=True).encode("utf-8", "surrogatepass"))


def _random_json() -> st.SearchStrategy[bytes]:
    return _VALUES.map(lambda value: json.dumps(value).encode("utf-8"))


def _paths(value: object, path: tuple = ()) -> list[tuple]:
    """Every path into value's mappings and lists."""
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [path] + [found for key, child in children for found in _paths(child, path + (key,))]


@st.composite
def _replaced(draw: st.DrawFn, seeds: list[bytes], structured: str) -> bytes:
    """A seed's data with the value at one path replaced by a random value (or removed), written back."""
    text = draw(st.sampled_from(seeds)).decode("utf-8")
    data = yaml.safe_load(text) if structured == "yaml" else json.loads(text)
    path = draw(st.sampled_from(_paths(data)[1:] or [()]))
    if not path:
        data = draw(_VALUES)
    else:
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()):
            parent[path[-1]] = draw(_VALUES)
        else:
            del parent[path[-1]]
    if structured == "yaml":
        return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8", "surrogatepass")
    return json.dumps(data).encode("utf-8")


def _inputs(seeds: list[bytes], structured: str) -> st.SearchStrategy[bytes]:
    random = _random_yaml() if structured == "yaml" else _random_json()
    return _mutated(seeds, structured) | _replaced(seeds, structured) | random


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the file each example is written to."""
    return tmp_path_factory.mktemp("fuzz")


def _ends_in(error: type[Exception], load: Callable[[], object], source: Path | None = None) -> None:
    """load() returns or raises error with a one-line message (naming source); any other exception fails the test."""
    try:
        load()
    except error as exc:
        message = str(exc)
        assert "\n" not in message, message
        assert source is None or message.removeprefix("--singleop: ").startswith(f"{source}"), message


def _written(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


@FUZZ
@given(data=_inputs(CASE_SEEDS, "yaml"))
def test_case_files(scratch: Path, data: bytes) -> None:
    path = _written(scratch, "case.yaml", data)
    _ends_in(CaseFileError, lambda: expand_file(str(path)), path)


@FUZZ
@given(data=_inputs(JSON_SEEDS, "json"))
def test_single_op_json(scratch: Path, data: bytes) -> None:
    path = _written(scratch, "ops.json", data)

    def load() -> None:
        for op in parse_singleop(read_singleop_text(path), str(path)):
            assert all("\n" not in d.message and d.message.startswith(str(path)) for d in op.errors), op.errors
            if op.ok:
                OpModel.from_bytes(op.model.to_bytes())

    _ends_in(SingleOpFileError, load, path)


@FUZZ
@given(data=_inputs(EXPECTATION_SEEDS, "yaml"))
def test_expectation_files(scratch: Path, data: bytes) -> None:
    path = _written(scratch, "expectations.yaml", data)
    _ends_in(ExpectationsError, lambda: load_expectations(path), path)


@FUZZ
@given(data=_inputs(ERROR_CODE_SEEDS, "yaml"))
def test_error_code_files(scratch: Path, data: bytes) -> None:
    path = _written(scratch, "codes.yaml", data)
    _ends_in(ErrorCodesError, lambda: load_error_codes(path), path)


@FUZZ
@given(data=_mutated(REPORT_SEEDS, "json") | st.lists(_random_json() | _replaced(
    [line for seed in REPORT_SEEDS for line in seed.splitlines()], "json"), max_size=5).map(b"\n".join))
def test_report_lines(scratch: Path, data: bytes) -> None:
    path = _written(scratch, "run.jsonl", data)
    _ends_in(ReportError, lambda: read_report(path), path)


@FUZZ
@given(data=_mutated(MODEL_SEEDS, "json") | st.binary(max_size=64) | _mutated(
    [seed[MODEL_HEADER:] for seed in MODEL_SEEDS], "json").map(
    lambda body: MODEL_SEEDS[0][:12] + len(body).to_bytes(8, "little") + body))
def test_model_files(data: bytes) -> None:
    _ends_in(ModelFormatError, lambda: OpModel.from_bytes(data))


#: The msopst loader draws fuzz sub-cases with hypothesis itself, so its test nests one @given in another.
@settings(FUZZ, suppress_health_check=[HealthCheck.nested_given])
@given(data=_inputs(MSOPST_SEEDS, "json"))
def test_msopst_case_files(msopst_scratch: Path, data: bytes) -> None:
    path = _written(msopst_scratch, "st_case.json", data)
    _ends_in(CaseFileError, lambda: load_msopst_cases(str(path)), path)


@pytest.fixture(scope="module")
def msopst_scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the example msopst files' golden modules and .bin values, for each example's case file."""
    folder = tmp_path_factory.mktemp("msopst-fuzz")
    for source in MSOPST_DATA.iterdir():
        if source.suffix in (".py", ".bin"):
            (folder / source.name).write_bytes(source.read_bytes())
    return folder


#: Text that looks like a --devices or --shard value: digits (some very long), separators and a little else.
_SPEC_TEXT = st.lists(st.sampled_from(["0", "7", "63", "64", "1" * 30, "-", ",", "/", " ", "a", "", "99999999999"])
                      | st.text(max_size=3), max_size=8).map("".join)


@FUZZ
@given(text=_SPEC_TEXT)
def test_device_lists(text: str) -> None:
    try:
        devices = parse_devices(text)
    except ValueError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("--devices=")
        return
    assert devices and len(devices) == len(set(devices)) and all(0 <= d <= MAX_DEVICE_ID for d in devices)


@FUZZ
@given(text=_SPEC_TEXT)
def test_shard_specs(text: str) -> None:
    try:
        k, n = parse_shard(text)
    except ValueError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("--shard=")
        return
    assert 1 <= k <= n <= MAX_SHARDS


_ENGINE_NAMES = st.sampled_from(["CI_NODE_INDEX", "CI_NODE_TOTAL", "JOB_COMPLETION_INDEX", "ACLCTS_SHARD_COUNT",
                                 "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT",
                                 "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"])


@FUZZ
@given(environ=st.dictionaries(_ENGINE_NAMES, _SPEC_TEXT, max_size=6),
       count=st.none() | st.integers(-5, 2 ** 40))
def test_shard_environments(environ: dict[str, str], count: int | None) -> None:
    try:
        found = shard_from_environment(environ, count)
    except ValueError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("--shard=auto: ")
        return
    assert 1 <= found.k <= found.n
