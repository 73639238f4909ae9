"""The README stays true: its examples run, and CI runs its test command."""
import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _section(title):
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _commands(text=README):
    return re.findall(r"```bash\n(.+?)\n```", text)


def test_readme_examples_run():
    """The ``python`` blocks, run in order as one session (as a reader types them)."""
    blocks = re.findall(r"```python\n(.+?)```", README, re.S)
    assert blocks
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README", "README.md", 0)
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.attempted > 5 and result.failed == 0


def test_the_two_commands_come_first():
    """"Two commands" is the first section, and it holds exactly two commands:
    the main job (a ``dominoai`` command) and the tests."""
    assert README.split("\n## ", 2)[1].startswith("Two commands\n")
    cmds = _commands(_section("Two commands"))
    assert len(cmds) == 2, cmds
    assert "dominoai " in cmds[0] and "pytest" not in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    """The README's test command is a line of ``.ci/run``, and the only
    pytest command of the README."""
    test_cmd = [c for c in _commands() if "pytest" in c]
    assert len(test_cmd) == 1, test_cmd
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd[0] in ci, f"{test_cmd[0]!r} is not a line of .ci/run"


def test_readme_is_short_and_its_tour_names_the_jobs():
    """At most 250 lines; the tour names the jobs; the rules are one click away."""
    assert len(README.splitlines()) <= 250
    jobs = _section("A tour")
    for job in ("**Tournaments.**", "**Tuning.**", "**On a cluster.**", "**Plots in notebooks.**",
                "**Learning agents.**", "**Playing people.**"):
        assert job in jobs
    assert "(docs/rules.md)" in README.split("\n## ", 2)[0]


def test_readme_links_resolve():
    """Every relative link of the README names a file of the repository."""
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README)
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, missing


def test_readme_presets_table_lists_every_preset_with_its_players():
    """The "Presets" table names each preset of ``PRESETS`` once, with the
    numbers of players it allows (``2–4``, ``2``, ``4 (pairs)``)."""
    from dominoai.rules import PRESETS

    section = README.split("## Presets", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.M)
    assert sorted(name for name, _ in rows) == sorted(PRESETS)
    for name, players in rows:
        lo, hi = PRESETS[name][2]
        m = re.match(r"(\d)(?:–(\d))?", players.strip())
        assert m, (name, players)
        assert (int(m.group(1)), int(m.group(2) or m.group(1))) == (lo, hi), (name, players)
