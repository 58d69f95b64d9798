"""YAML loading that remembers the line of every mapping key and sequence item, for error messages."""

from __future__ import annotations

from typing import Any

import yaml

Path = tuple[Any, ...]


class YamlSyntaxError(Exception):
    """The file is not valid YAML; the message names the file and line."""


def _convert(node: yaml.Node, path: Path, lines: dict[Path, int], source: str) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result = {}
        for key_node, value_node in node.value:
            key = _convert(key_node, path + ("<key>",), lines, source)
            result[key] = _convert(value_node, path + (key,), lines, source)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, path + (index,), lines, source) for index, item in enumerate(node.value)]
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node)
    except ValueError:
        field = next((str(part) for part in reversed(path) if isinstance(part, str) and part != "<key>"), "(file)")
        wanted = "an ISO date (YYYY-MM-DD)" if node.tag.endswith(":timestamp") else f"a valid {node.tag}"
        raise YamlSyntaxError(f"{source}:{node.start_mark.line + 1}: field '{field}': expected {wanted}, "
                              f"got {node.value!r}") from None
    finally:
        loader.dispose()


#: libyaml's composer where PyYAML has it (about 4x faster over the case library); errors are always worded by
#: PyYAML's own loader, so that the message does not depend on how PyYAML was built.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree of text, with PyYAML's own error if it is not valid YAML."""
    loader = FAST_LOADER
    try:
        return yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        if loader is yaml.SafeLoader:
            raise
    return yaml.compose(text, Loader=yaml.SafeLoader)


def load_with_lines(text: str, source: str) -> tuple[Any, dict[Path, int]]:
    """Parse YAML text; return the data and a map from each value's path to its 1-based line."""
    try:
        node = compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise YamlSyntaxError(f"{where}: not valid YAML: {problem}") from None
    lines: dict[Path, int] = {}
    if node is None:
        return None, lines
    return _convert(node, (), lines, source), lines


def line_of(lines: dict[Path, int], path: Path) -> int:
    """The line of path, or of its nearest enclosing value that has one."""
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)
