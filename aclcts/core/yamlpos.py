"""YAML loading that remembers the line of every mapping key and sequence item, for error messages.

Stricter than YAML itself: a key given twice in one mapping, a key that is not a plain value, nesting deeper than
core.inputs.MAX_NESTING_DEPTH and aliases expanding to more than MAX_YAML_VALUES values are errors.
"""

from __future__ import annotations

from typing import Any

import yaml

from aclcts.core.inputs import MAX_NESTING_DEPTH, MAX_YAML_VALUES, one_line

Path = tuple[Any, ...]


class YamlSyntaxError(Exception):
    """The file is not valid YAML; the message names the file and line."""


def _field(path: Path) -> str:
    name = next((str(part) for part in reversed(path) if isinstance(part, str) and part != "<key>"), "(file)")
    return one_line(name)


class _Converter:
    """Turns a node tree into plain data, recording lines and checking keys and size."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines: dict[Path, int] = {}
        self.values = 0
        self.loader = yaml.SafeLoader("")

    def convert(self, node: yaml.Node, path: Path, depth: int) -> Any:
        self.values += 1
        line = node.start_mark.line + 1
        if self.values > MAX_YAML_VALUES:
            raise YamlSyntaxError(f"{self.source}:{line}: expected at most {MAX_YAML_VALUES} values (aliases counted "
                                  "at every use), got more")
        if depth > MAX_NESTING_DEPTH and isinstance(node, yaml.CollectionNode):
            raise YamlSyntaxError(f"{self.source}:{line}: expected at most {MAX_NESTING_DEPTH} levels of nesting "
                                  "(aliases included), got more")
        self.lines[path] = line
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, path + (index,), depth + 1) for index, item in enumerate(node.value)]
        return self.scalar(node, path)

    def mapping(self, node: yaml.MappingNode, path: Path, depth: int) -> dict:
        result: dict[Any, Any] = {}
        first: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = self.convert(key_node, path + ("<key>",), depth + 1)
            line = key_node.start_mark.line + 1
            try:
                seen = key in first
            except TypeError:
                raise YamlSyntaxError(f"{self.source}:{line}: field '{_field(path)}': expected a plain value as a "
                                      f"mapping key, got a {type(key).__name__}") from None
            if seen:
                raise YamlSyntaxError(f"{self.source}:{line}: duplicate key {key!r} (first given on line "
                                      f"{first[key]})")
            first[key] = line
            result[key] = self.convert(value_node, path + (key,), depth + 1)
        return result

    def scalar(self, node: yaml.Node, path: Path) -> Any:
        try:
            return self.loader.construct_object(node)
        except ValueError:
            wanted = "an ISO date (YYYY-MM-DD)" if node.tag.endswith(":timestamp") else f"a valid {node.tag}"
            raise YamlSyntaxError(f"{self.source}:{node.start_mark.line + 1}: field '{_field(path)}': expected "
                                  f"{wanted}, got {node.value!r}") from None
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or str(exc)
            raise YamlSyntaxError(f"{self.source}:{node.start_mark.line + 1}: field '{_field(path)}': expected a "
                                  f"plain YAML value, got {node.value!r} ({problem})") from None


#: libyaml's composer where PyYAML has it (about 4x faster over the case library); errors are always worded by
#: PyYAML's own loader, so that the message does not depend on how PyYAML was built.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def check_depth(text: str, source: str) -> None:
    """YamlSyntaxError if text nests deeper than MAX_NESTING_DEPTH (checked on the event stream, before composing:
    libyaml's composer recurses without a limit); a syntax error stops the check, for compose to report."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=FAST_LOADER):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_NESTING_DEPTH:
                    raise YamlSyntaxError(f"{source}:{event.start_mark.line + 1}: expected at most "
                                          f"{MAX_NESTING_DEPTH} levels of nesting, got more")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return


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
    check_depth(text, source)
    try:
        node = compose(text)
    except yaml.reader.ReaderError as exc:
        raise YamlSyntaxError(f"{source}:{text.count(chr(10), 0, exc.position) + 1}: not valid YAML: character "
                              f"#x{exc.character:04x} at character offset {exc.position} is not allowed") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlSyntaxError(f"{where}: not valid YAML: {problem}") from None
    except RecursionError:
        raise YamlSyntaxError(f"{source}: expected at most {MAX_NESTING_DEPTH} levels of nesting, got more") from None
    if node is None:
        return None, {}
    converter = _Converter(source)
    try:
        return converter.convert(node, (), 1), converter.lines
    finally:
        converter.loader.dispose()


def line_of(lines: dict[Path, int], path: Path) -> int:
    """The line of path, or of its nearest enclosing value that has one."""
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)
