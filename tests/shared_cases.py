"""The reference cases (``tests/data/cases``, described in its README) and
helpers the record, CLI and reference tests use alike."""
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "data" / "cases"


def case_files() -> list[Path]:
    """Every case record (not the ``.expected.json`` files), sorted: the
    hand-written cases, then ``generated/``.

    :raises FileNotFoundError: if ``tests/data/cases`` is missing (the cases
        are part of the repository, so a test run never skips them).
    """
    if not CASES_DIR.is_dir():
        raise FileNotFoundError(f"the reference cases are missing: {CASES_DIR}")
    files = sorted(CASES_DIR.glob("*.json")) + sorted((CASES_DIR / "generated").glob("*.json"))
    return [f for f in files if not f.name.endswith(".expected.json")]


def subset(expected, actual) -> bool:
    """Every key of ``expected`` is in ``actual`` with an equal value (recursively;
    lists must have the same length; types must match, so 0 != False)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and subset(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(subset(e, a) for e, a in zip(expected, actual)))
    return expected == actual and type(expected) is type(actual)


# A small valid Block record (the case block_pass_after_lead): the base
# that bad-input tests damage.
BLOCK = {
    "format": "dominoai.record/1",
    "rules": {"preset": "block", "players": 2},
    "hands": [{
        "deal": [["6:6", "6:5", "6:4", "6:3", "6:2", "6:1", "6:0"],
                 ["5:5", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]],
        "boneyard": ["4:3", "4:2", "4:1", "4:0", "3:3", "3:2", "3:1", "3:0", "2:2", "2:1",
                     "2:0", "1:1", "1:0", "0:0"],
        "leader": 0,
        "moves": [{"tile": "6:6"}, {"pass": True}, {"tile": "6:5", "end": "right"},
                  {"tile": "5:5", "end": "right"}, {"tile": "6:4", "end": "left"},
                  {"tile": "5:4", "end": "right"}, {"pass": True}, {"tile": "4:4", "end": "left"}],
    }],
}
