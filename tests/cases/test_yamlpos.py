"""YAML loading with lines: libyaml's composer gives what PyYAML's gives, and errors keep PyYAML's wording."""

from pathlib import Path

import pytest
import yaml

from aclcts.core import yamlpos

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("cases/**/*.yaml"), *ROOT.glob("golden/**/*.yaml"), *ROOT.glob("error-codes/*.yaml")])


@pytest.mark.skipif(yamlpos.FAST_LOADER is yaml.SafeLoader, reason="this PyYAML is built without libyaml")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_libyaml_and_pyyaml_give_the_same_values_and_lines(path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    fast = yamlpos.load_with_lines(text, path.name)
    monkeypatch.setattr(yamlpos, "FAST_LOADER", yaml.SafeLoader)
    assert fast == yamlpos.load_with_lines(text, path.name)


@pytest.mark.parametrize("text", ["a: [1, 2\nb: 3\n", "a: b: c\n", "- x\ny: 1\n", "a: 'open\n"])
def test_invalid_yaml_is_worded_by_pyyaml(text):
    with pytest.raises(yaml.YAMLError) as pure:
        yaml.compose(text, Loader=yaml.SafeLoader)
    with pytest.raises(yamlpos.YamlSyntaxError) as ours:
        yamlpos.load_with_lines(text, "f.yaml")
    assert str(ours.value).endswith(f"not valid YAML: {pure.value.problem}")
    assert str(ours.value).startswith(f"f.yaml:{pure.value.problem_mark.line + 1}:")
