"""The documentation: the site builds offline with ``--strict``, and no file
of the repository speaks of how the work was organised instead of what the
product does."""
from __future__ import annotations

import doctest
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Words about the organisation of the work, not about the product: a work
# session ("stop" and its number), a tracker entry ("issue" and its number),
# a review round by a newcomer. This file spells them (its samples write the
# space as "#" and the hyphen as "%", so that no line of it reads as one);
# the scan skips it alone.
SELF = Path(__file__).resolve()
FORBIDDEN = [
    re.compile(r"\bstops? \d+(?![.\d])", re.I),
    re.compile(r"\bstop-\d+\b", re.I),
    re.compile(r"\bissues? \d+\b", re.I),
    re.compile(r"\bissue-\d+\b", re.I),
    re.compile(r"fresh[-]user", re.I),
]

TEXT_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".cfg", ".ini", ".ipynb",
                 ".json", ".csv", ".html", ".js", ".css", ".svg", ""}


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: git ls-files is unavailable")
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if (name and path.suffix.lower() in TEXT_SUFFIXES and path.is_file()
                and path.resolve() != SELF):
            files.append(path)
    return files


def forbidden_hits(text: str) -> list[str]:
    """The forbidden phrases in ``text``, in order."""
    return [m.group(0) for rx in FORBIDDEN for m in rx.finditer(text)]


def test_the_scan_catches_each_kind_of_phrase():
    """The patterns are not vacuous: each kind is caught, in any case, and
    ordinary words that merely look alike are not."""
    # "#" stands for a space, "%" for a hyphen
    caught = ("since stop#22,", "Stop#19 measured", "issue#14", "Issues#11 and",
              "the issue%10 layout", "the fresh%user check", "stops#19 and 20", "the stop%19 rows")
    for sample in caught:
        text = sample.replace("#", " ").replace("%", "-")
        assert forbidden_hits(text), text
    for sample in ("rows stop at the edge", "a non-stop run", "tissue 4", "issues a warning",
                   "the stop button", "seed 14", "rows that stop#1.5 units short"):
        text = sample.replace("#", " ")
        assert not forbidden_hits(text), text


def test_no_file_speaks_of_how_the_work_was_organised():
    files = _tracked_text_files()
    assert len(files) > 50
    hits = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for hit in forbidden_hits(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {hit!r}")
    assert not hits, "\n".join(hits)


@pytest.mark.e2e
def test_the_site_builds_offline_and_strict(tmp_path):
    """``mkdocs build --strict`` of mkdocs.yml succeeds: every page is in the
    navigation, every link and anchor resolves, every API page renders."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{module} is not installed (pip install -e '.[docs]')")
    out = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for page in ("index.html", "rules/index.html", "api/index.html", "reports/index.html"):
        assert (out / page).is_file(), page
    api = (out / "api" / "index.html").read_text()
    assert "get_rules" in api and "run_tournament" in api
    # the pages load nothing from the network: no remote stylesheet, font or script
    remote = re.compile(r"<(?:link|script)[^>]*(?:href|src)=\"(?:https?:)?//", re.I)
    for page in out.rglob("*.html"):
        assert not remote.search(page.read_text()), page


def test_the_site_fetches_nothing_at_build_time():
    """No web fonts, no external inventories: the build runs offline."""
    config = (ROOT / "mkdocs.yml").read_text()
    assert re.search(r"^\s*font:\s*false\s*$", config, re.M)
    assert "inventories" not in config and "import:" not in config
    assert "http://" not in config and "https://" not in config


DOCTEST_PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")
                       if ">>> " in p.read_text())


@pytest.mark.parametrize("page", DOCTEST_PAGES)
def test_the_docs_examples_run(page):
    """Each page's ``>>>`` examples, run in order as one session."""
    text = (ROOT / page).read_text()
    blocks = re.findall(r"```python\n(.+?)```", text, re.S)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page, page, 0)
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.attempted > 0 and result.failed == 0


def test_some_pages_have_examples():
    assert {"docs/getting-started.md", "docs/bots.md"} <= set(DOCTEST_PAGES)
