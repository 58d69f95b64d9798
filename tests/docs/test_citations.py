"""Every document the repository cites is in the repository: each cited docs/ page and heading anchor exists, the
error-code tables cite docs/contract sections that exist, and nothing cites the private reference notes the
contract was first written from (their names are assembled below so that this file does not cite them itself)."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from aclcts.core.error_codes import load_error_codes

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "contract"

#: Names of documents users of the repository do not have, and section signs that number such a document.
PRIVATE = [re.compile(p) for p in (
    re.escape("pyacl" + "-api.md"),
    re.escape("atc" + "-singleop.md"),
    re.escape("shared" + "/reference"),
    r"(?<![\w-])" + re.escape("precision" + ".md"),
    r"(?<![\w/-])" + re.escape("msopst" + ".md"),
    "\u00a7" + r"\s*\d",
)]
#: A repository path of a Markdown page under docs/, with an optional heading anchor.
DOCS_CITATION = re.compile(r"(?<![\w./-])(?:\.\./)*(docs/[\w./-]*?\.md)(#[\w-]+)?")
#: A relative Markdown link inside a page: [text](page.md#anchor) or [text](#anchor).
MARKDOWN_LINK = re.compile(r"\]\((?!https?:)([\w./-]*?\.md)?(#[\w-]+)?\)")
#: Suffixes of files that are read as text.
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".txt", ".toml", ".ini", ".cfg", ".json", ""}


@cache
def tracked_files() -> tuple[Path, ...]:
    """The repository's text files: tracked ones and new ones git does not ignore."""
    listing = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=False)
    if listing.returncode != 0:
        pytest.fail(f"git ls-files failed in {ROOT}: {listing.stderr.strip()}")
    paths = (ROOT / line for line in listing.stdout.splitlines())
    return tuple(p for p in paths if p.suffix in TEXT_SUFFIXES and p.is_file())


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """The heading anchors of a Markdown page (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    result = set()
    in_fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else re.match(r"#{1,6} (.+)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
    return frozenset(result)


def shown(path: Path) -> Path:
    """A path as a message shows it: relative to the repository when inside it."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def unresolved(page: Path, anchor: str | None) -> str | None:
    """Why a cited page (and anchor) does not resolve, or None when it does."""
    if not page.is_file():
        return f"{shown(page)} does not exist"
    if anchor and anchor.lstrip("#") not in anchors(page):
        return f"{shown(page)} has no heading with anchor {anchor}"
    return None


def lines_of(path: Path):
    """(line number, text) of a text file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return
    yield from enumerate(text.splitlines(), 1)


def test_nothing_cites_a_document_outside_the_repository():
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}"
             for path in tracked_files() for number, line in lines_of(path)
             if any(p.search(line) for p in PRIVATE)]
    assert not found, "citations of documents users do not have:\n" + "\n".join(found)


def test_every_cited_docs_page_and_anchor_exists():
    broken = []
    for path in tracked_files():
        for number, line in lines_of(path):
            for match in DOCS_CITATION.finditer(line):
                why = unresolved(ROOT / match.group(1), match.group(2))
                if why:
                    broken.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}: {why}")
    assert not broken, "\n".join(broken)


def test_every_link_between_docs_pages_resolves():
    broken = []
    for path in tracked_files():
        if path.suffix != ".md":
            continue
        for number, line in lines_of(path):
            for match in MARKDOWN_LINK.finditer(line):
                target, anchor = match.group(1), match.group(2)
                if target is None and anchor is None:
                    continue
                why = unresolved((path.parent / target).resolve() if target else path, anchor)
                if why:
                    broken.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}: {why}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("table", sorted((ROOT / "error-codes").glob("*.yaml")), ids=lambda p: p.name)
def test_every_error_code_scenario_cites_an_existing_contract_section(table):
    loaded = load_error_codes(table)
    base = ROOT / loaded.document
    broken = [f"{e.source}: {e.section}: {why}" for e in loaded.scenarios.values()
              if (why := unresolved(base / e.section.split("#")[0], "#" + e.section.split("#")[1]))]
    assert not broken, "\n".join(broken)


def test_a_missing_anchor_is_reported(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## The `execute_v2` check order\n\n```\n# not a heading\n```\n", encoding="utf-8")
    assert anchors(page) == {"title", "the-execute_v2-check-order"}
    assert "no heading with anchor #not-a-heading" in unresolved(page, "#not-a-heading")


def test_every_contract_page_is_listed_in_its_index():
    index = (CONTRACT / "README.md").read_text(encoding="utf-8")
    pages = {p.name for p in CONTRACT.glob("*.md")} - {"README.md"}
    assert pages and all(f"]({name})" in index for name in pages), sorted(p for p in pages if f"]({p})" not in index)
