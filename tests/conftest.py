"""Settings shared by the whole suite.

Hypothesis runs derandomized (its examples follow from the test's code, not
from a clock or a saved database), so a failure shows up on every run and
every machine alike; a test may still ask for more examples in its own
``@settings``. ``HYPOTHESIS_PROFILE=explore`` draws fresh examples instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

# The tools the tests start keep their settings in the user's config folder
# (matplotlib's ~/.config/matplotlib, Chromium's, Dask's): on a machine
# without ~/.config the suite would make one. The whole run, xdist's
# workers included (they inherit it), gets a config folder of its own,
# removed when the process that made it exits.
if "DOMINOAI_TEST_CONFIG" not in os.environ:
    import atexit

    _config = tempfile.mkdtemp(prefix="dominoai-test-config-")
    atexit.register(shutil.rmtree, _config, True)
    os.environ["DOMINOAI_TEST_CONFIG"] = _config
    os.environ["XDG_CONFIG_HOME"] = _config
    os.environ["MPLCONFIGDIR"] = os.path.join(_config, "matplotlib")

try:
    from hypothesis import settings
except ImportError:  # pragma: no cover - hypothesis comes with the test extra
    settings = None

if settings is not None:
    settings.register_profile("dominoai", derandomize=True, database=None, deadline=None)
    settings.register_profile("explore", derandomize=False, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dominoai"))


# ------------------------------------------------------------- compiling once
# The suite runs on pytest-xdist workers (pyproject's addopts). On an empty
# numba cache each worker would compile the big kernels it meets (insane's
# search, the batch simulation, the batched env) on its own, so two workers
# compiled the same ones twice. Instead, at the start of a session on two
# workers or more, each worker takes the next warm-up group nobody has
# taken (a claim file made with O_EXCL), compiles it into the one cache and
# marks it done, until none is left; a test whose file needs a group waits
# until that group is done, then loads its kernels from the cache. A group
# runs only when a test that needs it was collected; on one worker nothing
# runs ahead.

def _warm_search(rules) -> None:
    """The engine, hard, then insane and omniscient: one hand each."""
    from dominoai import _compile
    for _, call in _compile.tournament_steps(rules, ["hard", "insane", "omniscient"]):
        call()


def _warm_worlds(rules) -> None:
    """insane's belief kernels (the warm-up's ``worlds`` side step, compiled
    while the other worker compiles the engine and hard). The fused playout
    (the ``fused`` side step) is left to insane's hand in the search group:
    compiled here too, it was compiled on both workers at once."""
    from dominoai import _compile
    _compile.SIDE_STEPS["worlds"](rules)


def _warm_likelihood(rules) -> None:
    """insane's play model as a kernel of its own (``play_likelihood``,
    which the tests of the play model call). It reuses the search's row
    tables and hard's evaluator from the cache when the search group is
    done first."""
    import numpy as np

    from dominoai import Match
    from dominoai.bots.pimc import HARD_WEIGHTS, SearchSettings, new_scratch, play_likelihood
    m = Match("block", seed=1)
    h = m.new_hand(leader=0)
    for _ in range(4):
        h.play(h.legal_moves()[0])
    evs = np.ascontiguousarray(h.observe(0).event_array, np.int64).reshape(-1, 4).copy()
    play_likelihood(m.state_copy(), evs, len(evs), m.rules.vector(), -1,
                    SearchSettings.make(policy_weight=2.0, hard_weights=HARD_WEIGHTS), new_scratch(1, 1))


def _warm_simulation(rules) -> None:
    """``dominoai simulate``'s batch kernels (the lanes, the pair loop and
    ``simulate_fast``) and the engine's reference loop."""
    import numpy as np

    from dominoai import _compile
    from dominoai.engine import kernels
    _compile._simulate_zero(rules)
    kernels.simulate(rules.vector(), 0, 1, np.zeros(16, np.int64))


def _warm_learning(rules) -> None:
    """The batched env's kernels, with every opponent level."""
    import numpy as np

    from dominoai.learn import VectorEnv
    for level in ("easy", "medium", "hard"):
        env = VectorEnv(rules.preset, 2, opponents=level, seed=0, history=True)
        obs, mask = env.reset()
        for _ in range(3):
            obs, mask, *_ = env.step(np.argmax(mask, axis=1))


#: warm-up groups, by name: the steps that compile them. A test module says
#: which it needs with ``pytestmark = pytest.mark.kernels("search", ...)``.
#: They are taken in this order: the first two run side by side (the belief
#: kernels and the batch simulation while the other worker compiles the
#: engine, hard and the search), each later one goes to whichever worker is
#: free first: the env, then insane's play model, which evens out the two
#: workers' compiling (the search alone is the longest group). CPU seconds
#: on an empty cache, each group alone in one process, 2-core machine, two
#: groups at a time (2026-12-08, docs/reports/2026-12-08-cheaper-inlining.md):
#: search 211; side 93; learning 73; the play model 9 once the search is in
#: the cache.
WARM_GROUPS = {
    "search": [_warm_search],
    "side": [_warm_worlds, _warm_simulation],
    "learning": [_warm_learning],
    "likelihood": [_warm_likelihood],
}
#: what each group compiles, for the notice before a cold run
WARM_TEXT = {"search": "the engine and the bots' search", "side": "insane's beliefs and the batch simulation",
             "learning": "the batched env", "likelihood": "insane's play model"}
#: CPU seconds of each group on an empty cache (the quiet machine above),
#: for the notice's estimate when no earlier run of this version left one
WARM_TYPICAL = {"search": 211.0, "side": 93.0, "learning": 73.0, "likelihood": 9.0}


def _groups_of(item) -> set[str]:
    """The warm-up groups a collected test needs (its ``kernels`` marks)."""
    return {g for mark in item.iter_markers("kernels") for g in mark.args}


def pytest_collection_modifyitems(config, items):
    unknown = sorted({g for item in items for g in _groups_of(item)} - set(WARM_GROUPS))
    if unknown:
        raise pytest.UsageError(f"unknown warm-up group(s) {', '.join(unknown)} in a kernels mark; "
                                f"groups are: {', '.join(WARM_GROUPS)}")


def pytest_configure(config):
    config.addinivalue_line("markers", "kernels(*groups): the warm-up groups of compiled kernels the test "
                            f"needs ({', '.join(WARM_GROUPS)}); compiled once across xdist's workers")


def _module_groups(path: Path) -> set[str]:
    """The warm-up groups a test module's ``pytestmark`` names, read from its
    source (xdist's controller collects no items to ask)."""
    import ast
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return set()
    return {arg.value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "kernels"
            for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}


_NOTICE_GIVEN = []


def pytest_xdist_node_collection_finished(node, ids):
    """On xdist's controller, once: say what the workers compile first, and
    about how long, when a group the collected tests need has not been
    compiled for this version of the code (the terminal otherwise shows
    nothing while they do)."""
    if _NOTICE_GIVEN:
        return
    _NOTICE_GIVEN.append(True)
    config = node.config
    try:
        from dominoai import _compile
        root = Path(str(config.rootpath))
        files = {nodeid.split("::", 1)[0] for nodeid in ids}
        needed = set().union(*(_module_groups(root / f) for f in files)) if files else set()
        cold = [g for g in WARM_GROUPS if g in needed and not _compile.is_warm(f"tests-{g}")]
        if not cold:
            return
        cpu = 0.0
        for g in cold:
            found = _compile._estimate(f"tests-{g}")   # an earlier version's figure, else the default
            cpu += WARM_TYPICAL[g] if found == _compile._DEFAULT_SECONDS else found
        per_worker = cpu / max(1, min(len(cold), _compile._usable_cores()))
        text = (f"dominoai: the workers first compile the kernels of {'; '.join(WARM_TEXT[g] for g in cold)} "
                f"for this version of the code, {_compile.estimate_text(per_worker)} "
                "(later runs load them from the cache)")
    except Exception:  # the notice is a courtesy: never stop the run for it
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(text)


_WAIT_SECONDS = 1200      # a group never done (its worker died): the test goes on and compiles


def _warm_folder(tmp_path_factory) -> Path:
    """The folder all workers of this session share (their base temp's parent)."""
    return tmp_path_factory.getbasetemp().parent


@pytest.fixture(scope="session", autouse=True)
def _compile_once_across_workers(request, tmp_path_factory):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) < 2 or not worker.startswith("gw"):
        return
    needed = {g for item in request.session.items for g in _groups_of(item)}
    shared = _warm_folder(tmp_path_factory)
    from dominoai import _compile
    from dominoai.rules import get_rules
    rules = get_rules("draw")
    for g, steps in WARM_GROUPS.items():
        if g not in needed:
            continue
        try:
            os.close(os.open(shared / f"warm-claim-{g}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue                     # another worker took it
        seconds = {}
        cpu0 = time.process_time()
        failed = False
        with _compile._KernelNames() as kernels:   # counts the package's kernels compiled
            for step in steps:
                t0 = time.perf_counter()
                try:
                    step(rules)
                except Exception:   # the tests that need the step report the error in their own words
                    failed = True
                seconds[step.__name__] = round(time.perf_counter() - t0, 1)
        if not failed and not _compile.is_warm(f"tests-{g}"):  # for the next run's notice
            _compile.mark_warm(f"tests-{g}", time.process_time() - cpu0, compiled=kernels.count > 0)
        (shared / f"warm-done-{g}").write_text(f"{worker} {seconds}")   # the steps' seconds, for a look


@pytest.fixture(autouse=True)
def _wait_for_warm_groups(request, tmp_path_factory, _compile_once_across_workers):
    """Before a test whose file needs a warm-up group another worker compiles,
    wait until that group is done."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) < 2:
        return
    shared = _warm_folder(tmp_path_factory)
    for g in sorted(_groups_of(request.node)):
        if (shared / f"warm-claim-{g}").exists():
            deadline = time.monotonic() + _WAIT_SECONDS
            while not (shared / f"warm-done-{g}").exists() and time.monotonic() < deadline:
                time.sleep(0.2)


# ------------------------------------------------------------- a running server
class _LiveServer:
    """``dominoai serve``'s app on uvicorn in a thread, on a free port of
    127.0.0.1, over the SQLite file ``db``; bots think in one thread and
    move without a pause."""

    def __init__(self, db: Path):
        import socket
        import threading
        from concurrent.futures import ThreadPoolExecutor

        import uvicorn

        from dominoai.serve.app import create_app
        self.db = db
        self.pool = ThreadPoolExecutor(1)
        self.app = create_app(db, pool=self.pool, bot_pause=0.0)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        from dominoai.serve.app import warm_engine
        warm_engine()
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(30)
        self.pool.shutdown(wait=True)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """A running ``dominoai serve`` (``.url``, ``.ws_url``, ``.port``, ``.db``,
    ``.app``), one per test module; needs the serve extra."""
    for mod in ("starlette", "uvicorn", "websockets"):
        pytest.importorskip(mod, reason="dominoai serve needs the serve extra")
    with _LiveServer(tmp_path_factory.mktemp("live") / "serve.sqlite3") as srv:
        yield srv


# ------------------------------------------------------------- the home folder
# A run leaves the home folder as it found it. Tools the tests start write
# there unless told otherwise: Ray saves an auth token in ~/.ray, an IPython
# kernel makes ~/.ipython. Those tests give them a home of their own
# (``temporary_home``, ``ray_in_temporary_folders``; tests/notebook_runner.py
# for the notebooks' kernels), and each session checks that the home folder
# gained no entry, nor any file in the folders those tools use. The user
# cache (~/.cache, or $XDG_CACHE_HOME) is shared on purpose: numba's cached
# kernels and their warm-up markers live there.

#: folders of the home folder the tools the tests start would write to
HOME_WATCHED = (".ray", ".ipython", ".jupyter", ".local/share/jupyter")


def home_listing(home: Path) -> set[str]:
    """The entries of ``home`` and every file and folder under
    :data:`HOME_WATCHED` in it, as paths relative to ``home``."""
    out = {p.name for p in home.iterdir()} if home.is_dir() else set()
    for sub in HOME_WATCHED:
        top = home / sub
        if top.is_dir():
            out.update(str(p.relative_to(home)) for p in top.rglob("*"))
    return out


@pytest.fixture(scope="session", autouse=True)
def _home_gains_nothing():
    home = Path.home()
    before = home_listing(home)
    yield
    gained = sorted(home_listing(home) - before)
    assert not gained, f"the tests wrote to the home folder {home}: {gained}"


@pytest.fixture
def temporary_home(tmp_path, monkeypatch) -> Path:
    """HOME set to a new folder of the test's own (the user cache stays the
    real one, so compiled kernels are not compiled again); that folder."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache"))
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def ray_in_temporary_folders(temporary_home, monkeypatch):
    """For a test that starts a local Ray cluster: Ray's auth token goes to
    the temporary home, its session folder (logs, sockets) to a temporary
    folder removed afterwards instead of /tmp/ray. The folder is made with
    a short name: Ray's unix sockets inside it allow about 100 characters."""
    folder = tempfile.mkdtemp(prefix="ray-")
    monkeypatch.setenv("RAY_TMPDIR", folder)
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------- the page in a browser
@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright (never a downloaded browser);
    the test module skips first where either is missing."""
    import shutil

    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium") or shutil.which("chromium-browser"))
        yield b
        b.close()


@pytest.fixture
def seed(monkeypatch):
    """Fix the seed of the server's tables opened from now on."""
    import dominoai.serve.app as serve_app

    def fix(value: int):
        monkeypatch.setattr(serve_app, "fresh_seed", lambda: value)
    return fix
