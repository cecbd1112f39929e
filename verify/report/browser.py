"""Screenshots of the HTML report in a headless browser: the front page and one theorem
section, as a reader first sees them.

Chromium (or Chrome) is run offline (every host name resolves to nothing), with a throw-away profile, and
must finish within :data:`TIMEOUT` seconds.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping

from verify.errors import InputError

TIMEOUT = 180
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
#: the screenshots a report folder gets with ``verify report --screenshots``
SHOTS = ("screenshots/front.png", "screenshots/theorem.png")


def find_browser() -> str:
    """The path of a headless-capable Chromium; ``InputError`` naming ``--screenshots`` when there is none."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise InputError("--screenshots: no chromium found on PATH (apt-get install chromium)", "--screenshots")


def screenshot(page: Path, png: Path, fragment: str = "", width: int = 1200, height: int = 1600) -> None:
    """Render ``page`` (scrolled to ``#fragment`` when given) into ``png``; ``InputError`` when the browser
    writes nothing."""
    browser = find_browser()
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    with tempfile.TemporaryDirectory(prefix="verify-browser-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
               "--host-resolver-rules=MAP * ~NOTFOUND",  # offline: the page must not need the network
               "--hide-scrollbars", f"--window-size={width},{height}", f"--screenshot={png}", url]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InputError(f"--screenshots: {browser} failed: {exc}", "--screenshots") from None
    if not png.is_file():
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
        raise InputError(f"--screenshots: {browser} wrote no screenshot ({last})", "--screenshots")


def shown_section(report: Mapping) -> str:
    """The anchor of the theorem section to photograph: the first paper theorem (not a baseline) whose
    section has a figure and a decided verdict, else the first section."""
    sections = report["theorems"]
    for s in sections:
        if s["figures"] and s["paper"] != "baselines" and s["verdict"].get("verdict") in ("verified", "violated"):
            return s["anchor"]
    return sections[0]["anchor"] if sections else ""


def section_page(page: str, anchor: str) -> str:
    """The page's head and the one section with id ``anchor``, as a page of its own (a headless screenshot
    does not scroll to a fragment reliably); the whole page when the section is not found."""
    start = page.find(f'<section class="theorem" id="{anchor}"')
    end = page.find("</section>", start)
    head = page.find("<body>")
    if start < 0 or end < 0 or head < 0:
        return page
    sheet_start = page.find('<svg class="glyphs"')  # the figures' shared glyphs
    sheet = page[sheet_start:page.find("</svg>", sheet_start) + len("</svg>")] if sheet_start >= 0 else ""
    return page[:head + len("<body>")] + sheet + page[start:end + len("</section>")] + "</body></html>\n"


def take_screenshots(folder: Path, report: Mapping) -> list[str]:
    """Screenshots of ``folder/report.html`` into ``folder/screenshots/``: the front page and one theorem
    section; the relative paths written."""
    (folder / "screenshots").mkdir(exist_ok=True)
    front, theorem = SHOTS
    screenshot(folder / "report.html", folder / front)
    with tempfile.TemporaryDirectory(prefix="verify-section-") as tmp:
        single = Path(tmp) / "section.html"
        single.write_text(section_page((folder / "report.html").read_text(encoding="utf-8"), shown_section(report)),
                          encoding="utf-8")
        screenshot(single, folder / theorem)
    return list(SHOTS)


__all__ = ["SHOTS", "find_browser", "screenshot", "section_page", "shown_section", "take_screenshots"]
