"""The README stays true: its examples run, and CI runs its test command."""
import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _commands():
    return re.findall(r"```bash\n(.+?)\n```", README)


def test_readme_examples_run():
    """The ``python`` blocks, run in order as one session (as a reader types them)."""
    blocks = re.findall(r"```python\n(.+?)```", README, re.S)
    assert blocks
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README", "README.md", 0)
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.attempted > 5 and result.failed == 0


def test_ci_runs_the_readme_test_command():
    cmds = _commands()
    test_cmd = [c for c in cmds if "pytest" in c]
    assert len(test_cmd) == 1, cmds
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd[0] in ci, f"{test_cmd[0]!r} is not a line of .ci/run"


def test_readme_main_job_is_a_dominoai_command():
    main = [c for c in _commands() if "pytest" not in c]
    assert len(main) == 1 and "dominoai " in main[0]


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
