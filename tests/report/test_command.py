"""``verify report``: outputs, HTML structure, links, determinism, bad input, and a real browser look."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

import theorems
from verify.check.suite import select
from verify.commands import main
from verify.report import generate
from verify.report.generate import MARKER

RICH = "bok2024/tables10-12"  # a theorem, its "as printed" variant (an erratum), and the Bok et al. tables
RICH_ONLY = RICH + "*"
CHEAP = "baselines/gaussian-mechanism/gdp"


def _report(out: Path, only: str, seed: int = 0, *extra: str) -> Path:
    cache = out.parent / f".{out.name}-cache"  # never the working directory's .verify-cache
    assert main(["report", "--out", str(out), "--only", only, "--jobs", "1", "--seed", str(seed), "--cache",
                 str(cache), *extra]) in (0, 1)
    return out


@pytest.fixture(scope="module")
def rich(tmp_path_factory) -> Path:
    return _report(tmp_path_factory.mktemp("rich") / "out", RICH_ONLY)


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections: set[str] = set()
        self.figures: list[dict] = []
        self.svg_in_figure = 0
        self.urls: list[str] = []
        self.anchors: set[str] = set()
        self.links: list[str] = []
        self._figure_depth = 0
        self.tags: set[str] = set()
        self.duplicates: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if "id" in a:
            if a["id"] in self.anchors:
                self.duplicates.append(a["id"])
            self.anchors.add(a["id"])
        if tag == "section" and "data-theorem" in a:
            self.sections.add(a["data-theorem"])
        if tag == "figure":
            self.figures.append(a)
            self._figure_depth += 1
        if tag == "svg" and self._figure_depth:
            self.svg_in_figure += 1
        for name in ("href", "src", "xlink:href", "action", "data"):
            if name in a and a[name]:
                self.urls.append(a[name])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        if "style" in a and "url(" in a["style"]:
            self.urls.append(a["style"])

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure_depth -= 1


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_html_has_every_selected_theorem_every_figure_inline_and_no_external_url(rich):
    page = _parse(rich / "report.html")
    expected = {t.id for t in select(theorems.all(), RICH_ONLY)}
    assert expected == {RICH, RICH + "/as-printed"}
    assert page.sections == expected
    files = sorted(p.name for p in (rich / "figures").glob("*.svg"))
    assert files, "no figure written"
    assert sorted(Path(f["data-figure"]).name for f in page.figures) == files
    assert page.svg_in_figure == len(page.figures)  # each figure is an inline <svg>, not a link
    assert "img" not in page.tags and "script" not in page.tags and "link" not in page.tags
    external = [u for u in page.urls if not u.startswith("#")]
    assert external == []
    text = (rich / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"url\(\s*['\"]?https?:", text)
    assert set(page.links) <= page.anchors  # in-page links resolve
    assert page.duplicates == []  # inline SVGs do not share ids


def test_markdown_links_only_to_files_that_exist(rich):
    text = (rich / "report.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", text)
    files = [t for t in targets if not t.startswith("#")]
    assert any(t.startswith("figures/") for t in files)
    for t in files:
        assert not re.match(r"\w+://", t), t
        assert (rich / t).is_file(), t
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for t in targets:
        if t.startswith("#"):
            assert t[1:] in anchors, t


def test_report_content_errata_and_reproduction(rich):
    report = json.loads((rich / "report.json").read_text())
    errata = {e["theorem"]: e for e in report["errata"]}
    kinds = {ev["kind"] for ev in errata[RICH]["evidence"]}
    # the as-printed E* fails the scaling check and the printed E* column does not come out
    assert "failed scaling check" in kinds and "table mismatch" in kinds
    tables = {t["id"]: t for t in report["reproduction"]["tables"]}
    assert {"bok2024/table7", "bok2024/table10"} <= set(tables)
    assert tables["bok2024/table7"]["counts"] == {"match": 18}
    md = (rich / "report.md").read_text(encoding="utf-8")
    assert "**31 ≠ 41**" in md  # Table 10's first E*, highlighted
    assert 'class="mismatch"' in (rich / "report.html").read_text(encoding="utf-8")


def test_same_seed_gives_byte_identical_json(tmp_path, capsys):
    one = _report(tmp_path / "one", CHEAP, 5, "--no-cache")
    two = _report(tmp_path / "two", CHEAP, seed=5)  # computed, and cached
    three = _report(tmp_path / "two", CHEAP, seed=5)  # the same folder and cache: read back
    assert "reused 3 cached result(s), computed 0" in capsys.readouterr().out.splitlines()[-1]
    assert (one / "report.json").read_bytes() == (two / "report.json").read_bytes()
    assert (three / "report.html").read_bytes() == (one / "report.html").read_bytes()
    for svg in (one / "figures").glob("*.svg"):
        assert svg.read_bytes() == (two / "figures" / svg.name).read_bytes()


def test_rerun_replaces_the_previous_report_and_nothing_else(tmp_path):
    out = tmp_path / "out"
    _report(out, CHEAP)
    assert (out / MARKER).is_file()
    (out / "notes.txt").write_text("mine")  # a user's file beside a previous report survives a rerun
    stale = out / "figures" / "gone.svg"
    listed = json.loads((out / MARKER).read_text())
    listed["files"].append("figures/gone.svg")  # a figure the previous report had and this one has not
    (out / MARKER).write_text(json.dumps(listed))
    stale.write_text("<svg/>")
    _report(out, CHEAP, seed=1)
    assert (out / "notes.txt").read_text() == "mine"
    assert not stale.exists() and json.loads((out / "report.json").read_text())["meta"]["seed"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out-cache", "out"]  # no temporary directory left


def test_a_folder_that_is_not_a_report_is_refused_and_left_alone(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    err = _bad(["report", "--out", str(out), "--only", CHEAP], capsys)
    assert "--out" in err and "thesis.tex" in err
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_empty_folder_is_used(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    _report(out, CHEAP)
    assert (out / "report.json").is_file() and (out / MARKER).is_file()


def _bad(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    return err


def test_out_is_a_file(tmp_path, capsys):
    file = tmp_path / "report"
    file.write_text("keep me")
    err = _bad(["report", "--out", str(file), "--only", CHEAP], capsys)
    assert "not a directory" in err
    assert file.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_out_not_writable(tmp_path, capsys):
    if os.geteuid() == 0:
        target = Path("/proc/verify-report-test")  # not writable even for root
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "out"
    err = _bad(["report", "--out", str(target), "--only", CHEAP], capsys)
    assert "--out" in err
    assert not target.exists()


def test_bad_arguments(tmp_path, capsys):
    assert "does not exist" in _bad(["report", "--out", str(tmp_path / "no" / "such"), "--only", CHEAP], capsys)
    assert "no theorem id matches" in _bad(["report", "--out", str(tmp_path / "o"), "--only", "zzz-none"], capsys)
    assert "--seed" in _bad(["report", "--out", str(tmp_path / "o"), "--seed", "-1"], capsys)
    assert not (tmp_path / "o").exists()


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_headless_chromium_screenshot_is_not_blank(rich, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    assert (rich / "report.html").stat().st_size < 3 * 2**20  # compact figures: the page stays light
    shot = tmp_path / "shot.png"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
           "--host-resolver-rules=MAP * ~NOTFOUND",  # no network: the page must render offline
           "--hide-scrollbars", "--window-size=1200,1600", f"--screenshot={shot}",
           (rich / "report.html").resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert shot.is_file(), proc.stderr[-2000:]
    import matplotlib.image as mpimg
    import numpy as np

    image = np.asarray(mpimg.imread(shot))[..., :3]
    assert image.shape[0] >= 1000 and image.shape[1] >= 1000
    ink = np.mean(image.min(axis=-1) < 0.85)  # share of pixels that are not (near) white
    assert ink > 0.02, f"screenshot looks blank ({ink:.4f} of pixels drawn)"
    assert image.std() > 0.05


def test_a_failing_piece_becomes_a_gap_not_a_crash(monkeypatch):
    from verify.report import build

    original = build.theorem_section

    def broken(*args, curves=True, **kwargs):
        if curves:
            raise RuntimeError("figure backend exploded")
        return original(*args, curves=curves, **kwargs)

    monkeypatch.setattr(build, "theorem_section", broken)
    result = generate.theorem_job(CHEAP, "quick", 0)
    assert result.section["id"] == CHEAP and result.svgs == {}
    assert any("figure backend exploded" in g for g in result.section["gaps"])
    assert result.verdict.id == CHEAP


def test_report_states_the_mutation_score_of_its_verified_theorems(tmp_path):
    """The search's self-test is in the report as in `verify run`: the known-unsound mutants of the verified
    Gaussian-mechanism bound (a closed form) are counted, and the score line is on the front of both pages."""
    out = _report(tmp_path / "out", CHEAP)
    report = json.loads((out / "report.json").read_text())
    score = report["mutation"]["score"]
    assert score["known_unsound"] >= 1 and score["killed"] == score["known_unsound"]
    assert [t["id"] for t in report["mutation"]["theorems"]] == [CHEAP]
    line = report["meta"]["mutation"]
    assert line.startswith(f"mutation score: {score['killed']}/{score['known_unsound']}")
    assert line in (out / "report.md").read_text(encoding="utf-8").replace("\\", "")
    assert line in (out / "report.html").read_text(encoding="utf-8")


class _Text(HTMLParser):
    """The page's visible text: everything outside tags and comments, inline SVG excluded (figures are
    checked as files), MathML included."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._svg = 0

    def handle_starttag(self, tag, attrs):
        self._svg += tag == "svg"

    def handle_endtag(self, tag):
        self._svg -= tag == "svg"

    def handle_data(self, data):
        if not self._svg:
            self.parts.append(data)


def test_no_raw_latex_no_python_error_and_no_empty_point_reach_the_page(rich):
    html = (rich / "report.html").read_text(encoding="utf-8")
    parser = _Text()
    parser.feed(html)
    text = " ".join(parser.parts)
    for raw in ("\\frac", "$$", "\\mathrm", "\\left", "\\sqrt", "\\otimes"):
        assert raw not in text, raw
    assert not re.search(r"\\[A-Za-z]{2,}", text), re.search(r".{40}\\[A-Za-z]{2,}.{20}", text)
    assert "<!--" not in html  # matplotlib's comments quote mathtext source
    assert "ValueError" not in html and "Traceback" not in html
    assert "drawn at no point" not in text and not re.search(r"drawn at [^:<]*: *(<code>)? *(</code>)?\.", html)
    forms = sum(1 + bool(t.paper_form) for t in select(theorems.all(), RICH_ONLY))
    assert html.count("<math") == forms  # every canonical bound and paper's form, as MathML


def test_front_page_rolls_up_and_links_the_violated_record(rich):
    html = (rich / "report.html").read_text(encoding="utf-8")
    order = [html.index(f'id="{a}"') for a in ("front", "errata", "violations", "checklist", "summary", "theorems")]
    assert order == sorted(order)  # the front page comes before the per-theorem material
    errata = html[html.index('id="errata"'):html.index('id="violations"')]
    assert '<a href="#thm-bok2024-tables10-12-as-printed">' in errata  # the violated record, first
    assert "table reproduction: 27 printed cell(s) do not come out" in errata
    assert "printed table wrong (scaling failed); guarantee sound" in html
    report = json.loads((rich / "report.json").read_text())
    [row] = [r for r in report["summary"] if r["id"] == RICH + "/as-printed"]
    assert row["status"].startswith("printed table wrong") and row["ratio_label"].startswith("worst exact/bound")
    md = (rich / "report.md").read_text(encoding="utf-8")
    assert "## At a glance" in md and "## Violations" in md and "## Reproduction checklist" in md
    assert "\\operatorname{SwitchAt}" in md and "Swit" not in md.replace("SwitchAt", "")


def test_screenshots_are_written_into_the_report_and_listed(tmp_path):
    if _chromium() is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    out = _report(tmp_path / "out", CHEAP, 0, "--screenshots")
    import matplotlib.image as mpimg
    import numpy as np

    listed = json.loads((out / MARKER).read_text())["files"]
    for name in ("screenshots/front.png", "screenshots/theorem.png"):
        assert name in listed
        image = np.asarray(mpimg.imread(out / name))[..., :3]
        assert np.mean(image.min(axis=-1) < 0.85) > 0.02, name  # not blank


def test_a_cache_that_is_a_file_is_refused(tmp_path, capsys):
    file = tmp_path / "cache"
    file.write_text("x")
    err = _bad(["report", "--out", str(tmp_path / "o"), "--only", CHEAP, "--cache", str(file)], capsys)
    assert "--cache" in err and "not a directory" in err
    assert not (tmp_path / "o").exists()


def test_the_committed_report_is_compact_and_whole():
    """reports/latest/report.html: under 3 MB with every figure inline, every theorem's section, the median ratio
    beside the largest, long evidence folded."""
    root = Path(__file__).resolve().parents[2] / "reports" / "latest"
    html = (root / "report.html").read_text(encoding="utf-8")
    report = json.loads((root / "report.json").read_text())
    assert len(html.encode()) < 3 * 2**20
    assert html.count("<figure") == len(report["figures_index"]) and "<img" not in html
    assert all(f'data-theorem="{s["id"]}"' in html for s in report["theorems"])
    assert "; median " in html and "<details><summary>" in html
    statuses = [e.get("status") for e in report["errata"]]
    assert "unchecked" not in statuses and 0 < statuses.count("notation") <= 5  # every erratum has a check
    assert all(e["replay"] for e in report["errata"] if e.get("status") == "confirmed")  # and a replay line
    glyphs = re.findall(r'id="(g\d+)"', html)
    assert html.count('<svg class="glyphs"') == 1 and len(glyphs) == len(set(glyphs))  # each glyph defined once


def test_compact_paths_keep_their_commands():
    """A line-to letter is dropped only where SVG implies it (after a move-to or a line-to): after a curve the
    next pair would extend the curve (the glyphs of the figures' text are quadratic curves)."""
    from verify.report.page import scoped_svg

    svg = '<svg><path d="M 1 2 L 3 4 L 5 6 Q 7 8 9 10 L 11 12 L 13 14 z M -1 2 L 3 -4"/></svg>'
    assert scoped_svg(svg, "x") == '<svg><path d="M1 2 3 4 5 6Q7 8 9 10L11 12 13 14zM-1 2 3 -4"/></svg>'
