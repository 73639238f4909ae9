"""The doctests of the package are collected without the optional extras:
with open_spiel, pettingzoo, gymnasium and dominoes hidden from the import
system, ``--doctest-modules`` (the suite's own options, from pyproject.toml)
skips the interop modules instead of stopping at collection; the same
collection without ``--doctest-ignore-import-errors`` fails, so the hiding
works and the option is what makes the difference."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # runs pytest in another process

ROOT = Path(__file__).resolve().parents[1]

HIDE = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium", "dominoes")

# A meta-path finder that refuses the optional libraries, then pytest's
# collection of the package's doctests, run in a fresh interpreter.
PROG = f"""
import sys
HIDE = {HIDE!r}

class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDE:
            raise ImportError(f"{{name}} is hidden by the test")
        return None

sys.meta_path.insert(0, Hide())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def _collect(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROG, "--collect-only", "-q", "-p", "no:cacheprovider",
                           *args, "dominoai/interop", "dominoai/rules.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_doctests_are_collected_without_the_interop_extra():
    ok = _collect()
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "error" not in ok.stdout.lower(), ok.stdout
    assert "dominoai/rules.py::" in ok.stdout           # the doctests that need no extra are collected
    # without the option, the same collection stops at the first hidden import
    bad = _collect("-o", "addopts=--doctest-modules")
    assert bad.returncode != 0
    assert "is hidden by the test" in bad.stdout + bad.stderr
