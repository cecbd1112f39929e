"""The documentation the code cites lives in the repository: every ``docs/...`` path the code, the tests and
the README name exists, and nothing cites a file outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [p for root in ("verify", "theorems", "tests", "benchmarks") for p in (ROOT / root).rglob("*.py")]
SOURCES += [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]


def test_every_cited_doc_exists():
    cited = {m for p in SOURCES for m in re.findall(r"docs/[\w/.-]*\w\.md", p.read_text(encoding="utf-8"))}
    assert cited, "the code cites its documentation"
    assert sorted(c for c in cited if not (ROOT / c).is_file()) == []


def test_nothing_cites_a_file_outside_the_repository():
    outside = re.compile(r"DESIGN\.md|\bcatalogue\b|\.\./shared|shared folder")
    found = [f"{p.relative_to(ROOT)}:{i + 1}" for p in SOURCES if p.name != "test_docs.py"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines()) if outside.search(line)]
    assert found == []
