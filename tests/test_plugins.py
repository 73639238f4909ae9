"""Plug-in bots: the entry-point group ``dominoai.bots`` and
:func:`dominoai.bots.register_plugin`; a plug-in loads when a spec first
names it."""

from __future__ import annotations

import importlib.metadata
import sys
import tomllib
from pathlib import Path

import pytest

from dominoai import Match
from dominoai.bots import BOTS, base, bot_names, make_bot, plugins, register_plugin

ROOT = Path(__file__).resolve().parents[1]

PLUGIN = '''
from dominoai.bots.base import BaseBot, Param


class FirstMove(BaseBot):
    """Plays the first legal move."""

    name = "{name}"
    PARAMS = {{"lead": Param(int, 0, "unused")}}

    def act(self, observation):
        return observation.legal_moves()[0]
'''


@pytest.fixture
def registry(monkeypatch, tmp_path):
    """A clean plug-in table (no installed entry points read), a folder on
    sys.path for plug-in modules, and the registry restored afterwards."""
    monkeypatch.setattr(base, "_PLUGINS", {})
    monkeypatch.setattr(base, "_ENTRY_POINTS", {})
    monkeypatch.syspath_prepend(str(tmp_path))
    before = dict(BOTS)
    yield tmp_path
    BOTS.clear()
    BOTS.update(before)
    for m in [m for m in sys.modules if m.startswith("plug_")]:
        del sys.modules[m]


def _plays(bot) -> None:
    hand = Match("block", seed=3).new_hand(leader=0)
    obs = hand.observe(0)
    assert bot.act(obs) == obs.legal_moves()[0]


def test_register_plugin_loads_on_first_use(registry):
    (registry / "plug_first.py").write_text(PLUGIN.format(name="first-move"))
    register_plugin("first-move", "plug_first:FirstMove")
    assert "plug_first" not in sys.modules and "first-move" not in bot_names()
    assert plugins() == {"first-move": "plug_first:FirstMove"}
    bot = make_bot("first-move:lead=2", seed=5)
    assert "first-move" in bot_names() and bot.lead == 2 and bot.seed == 5
    _plays(bot)


def test_entry_points_of_installed_packages(registry, monkeypatch):
    (registry / "plug_ep.py").write_text(PLUGIN.format(name="ep-bot"))
    eps = [importlib.metadata.EntryPoint("ep-bot", "plug_ep:FirstMove", "dominoai.bots"),
           importlib.metadata.EntryPoint("other", "plug_other:X", "another.group")]

    def entry_points(group=None):
        return [ep for ep in eps if ep.group == group]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(base, "_ENTRY_POINTS", None)   # read them again
    assert plugins() == {"ep-bot": "plug_ep:FirstMove"}
    _plays(make_bot("ep-bot"))


def test_a_plugin_that_cannot_load(registry):
    register_plugin("ghost", "plug_missing_module:Bot")
    with pytest.raises(ValueError, match="unknown bot 'nosuch'.*plug-in bots .*: ghost"):
        make_bot("nosuch")
    with pytest.raises(ValueError, match=r"bot 'ghost' cannot be loaded from plug_missing_module:Bot: "
                                         r"No module named 'plug_missing_module'"):
        make_bot("ghost")
    (registry / "plug_empty.py").write_text("")
    register_plugin("hollow", "plug_empty:Nothing")
    with pytest.raises(ValueError, match="bot 'hollow': plug_empty:Nothing names nothing"):
        make_bot("hollow")
    with pytest.raises(ValueError, match="module:attribute"):
        register_plugin("bad", "no-colon")
    with pytest.raises(ValueError, match="bad bot name"):
        register_plugin("a:b", "m:x")


def _declared() -> dict[str, str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return meta["project"]["entry-points"]["dominoai.bots"]


def test_the_registry_names_no_plugin():
    """``bots/base.py`` knows no plug-in's name nor what it needs installed."""
    text = (ROOT / "dominoai" / "bots" / "base.py").read_text()
    assert _declared()
    for name in _declared():
        assert f'"{name}"' not in text and f"'{name}'" not in text, name
    assert "pip install" not in text and "interop" not in text


def test_the_interop_bots_are_declared_entry_points():
    """Each entry point of the package's pyproject names the bot class of
    that name."""
    pytest.importorskip("pyspiel")
    pytest.importorskip("dominoes")
    import importlib
    for name, target in _declared().items():
        module, _, attr = target.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        assert cls.name == name and BOTS[name] is cls
