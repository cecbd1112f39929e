"""The README quotes every figure a benchmark last measured, word for word, and no other benchmark figure.

Each benchmark that measures a figure the README states records it, with its setting, the machine and the
sentence to quote, in ``benchmarks/results/`` (``benchmarks/figures.py``).  A figure that moved without the
README following, or a README figure no benchmark recorded, fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
RESULTS = sorted((ROOT / "benchmarks" / "results").glob("*.json"))


def _entries():
    for path in RESULTS:
        for key, entry in json.loads(path.read_text()).items():
            yield path.stem, key, entry


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_every_recorded_figure_is_quoted_word_for_word():
    entries = list(_entries())
    assert entries, "no benchmark has recorded a figure (benchmarks/results/ is empty)"
    for benchmark, key, entry in entries:
        assert (ROOT / "benchmarks" / f"{benchmark}.py").is_file(), f"{benchmark}: no such benchmark"
        assert entry["setting"] and entry["machine"] and entry["values"], (benchmark, key)
        assert _flat(entry["quote"]) in _flat(README), f"README does not quote {benchmark}/{key}: {entry['quote']}"


def test_every_benchmark_figure_in_the_readme_was_recorded():
    """A README sentence naming a benchmark (``benchmarks/bench_X.py``) and stating a figure (a number with x,
    s or %) is a recorded quote."""
    quotes = [_flat(entry["quote"]) for _, _, entry in _entries()]
    for paragraph in re.split(r"\n\s*\n", README):
        text = _flat(paragraph)
        for match in re.finditer(r"`benchmarks/(bench_\w+)\.py[^`]*`", text):
            rest = text[match.end():match.end() + 200]
            figure = re.match(r"\s*[:(]?\s*[^.]*?\d+(\.\d+)?\s*(x|s|%)", rest)
            if figure:
                assert any(q in text and match.group(1) in q for q in quotes), \
                    f"README states a figure of {match.group(1)} that no recorded quote holds: {text[:160]}"
