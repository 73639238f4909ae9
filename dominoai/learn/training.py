"""The training loop shared by the policy (:mod:`dominoai.learn.imitation`)
and the value network (:mod:`dominoai.learn.value`), with its files (needs
the ``[learn]`` extra: jax, optax).

:func:`fit` runs the loop over a dataset's rows: the rows of a held-out
share of the hands are kept out (:func:`split_hands`), the others are
shuffled each epoch (numpy's generator of ``[seed, epoch]``) and cut into
minibatches, each one Adam step (AdamW when ``weight_decay`` is above 0) on
the caller's loss. After each epoch the caller's metrics are measured on
both parts and logged, and a checkpoint (the parameters, the optimizer's
state, the log and the settings) is written, from which ``resume=True``
goes on: a resumed run logs the same numbers as an uninterrupted one.
With ``keep_best`` the parameters returned are those of the epoch with the
lowest held-out value of the first metric (early stopping; the training
itself runs every epoch).

:func:`write_log` writes a log as parquet, :func:`write_curve` draws it.
"""
from __future__ import annotations

import functools
import inspect
import json
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np
from tqdm.auto import tqdm

from .._files import atomic_write, is_npz
from ..errors import InputError, check_int, check_number
from ..rules import get_rules

__all__ = ["read_npz", "split_hands", "check_settings", "check_options", "refuse_unknown_options", "run_kind",
           "check_run_kind", "run_rules", "run_players", "other_settings", "save_checkpoint", "checkpoint_state",
           "load_checkpoint", "LoopSpec", "Objective", "fit", "FitResult", "write_log", "write_curve"]


def read_npz(path, what: str, read):
    """``read(z)`` of the ``.npz`` archive at ``path`` (``z`` from
    ``np.load``, no pickles): a dataset's or a checkpoint's arrays, read
    with a one-line refusal for any file that is not one.

    :param what: what the file should be, for the message (``"dataset"``,
        ``"checkpoint"``).
    :raises ValueError: the file cannot be read, is not an ``.npz``
        archive, is damaged (e.g. truncated) or lacks an array or field
        ``read`` takes: one line naming the file as given, and the way on
        (remove it, or train in another folder).
    """
    path = Path(path)
    hint = "remove it to start again, or train in another --out folder"
    try:
        archive = is_npz(path)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    if not archive:
        raise ValueError(f"{path} is not a dominoai {what} (not an .npz archive); {hint}")
    try:
        with np.load(path, allow_pickle=False) as z:
            return read(z)
    except (zipfile.BadZipFile, EOFError, OSError):
        reason = "a damaged .npz archive"
    except KeyError as e:   # numpy's words: "NAME is not a file in the archive"
        name = str(e.args[0] if e.args else "").replace(" is not a file in the archive", "")
        reason = f"it has no {name!r} array"
    except Exception as e:  # noqa: BLE001 - any other failure to read is "not such a file"
        reason = type(e).__name__
    raise ValueError(f"{path} is not a dominoai {what} ({reason}); {hint}")


def split_hands(hand: np.ndarray, held_out: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(train, held_out)`` (``int64``): a ``held_out`` share of
    the hands (at least one when there are two or more), drawn with ``seed``,
    goes to the second part with all its rows."""
    hands = np.unique(hand)
    rng = np.random.default_rng(seed)
    k = int(round(held_out * len(hands)))
    if held_out > 0 and len(hands) >= 2:
        k = min(max(k, 1), len(hands) - 1)
    test = np.zeros(int(hand.max()) + 1 if len(hand) else 0, bool)
    test[rng.choice(hands, size=k, replace=False)] = True
    is_test = test[hand]
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


def check_options(func: str, given: dict, valid) -> None:
    """Refuse an option that the public function ``func`` does not take.

    :param given: the options of the call, ``{name: value}``.
    :param valid: the names ``func`` takes, in the order the message lists them.
    :raises InputError: an option not in ``valid`` (the first one, in the
        order given), naming it and the valid ones in one line.

    >>> check_options("train_ppo", {"bogus": 1}, ["iterations", "seed"])
    Traceback (most recent call last):
    ...
    dominoai.errors.InputError: train_ppo() has no option 'bogus'; its options: iterations, seed
    """
    valid = list(valid)
    for k, v in given.items():
        if k not in valid:
            raise InputError(k, v, f"{func}() has no option {k!r}; its options: {', '.join(valid)}")


def refuse_unknown_options(func):
    """A decorator: a call of ``func`` with a keyword argument it does not
    take raises :class:`~dominoai.errors.InputError` naming it and the
    valid ones (:func:`check_options`), not Python's bare ``TypeError``.

    :raises TypeError: ``func`` takes ``**kwargs`` (every keyword is valid).
    """
    params = inspect.signature(func).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        raise TypeError(f"{func.__name__} takes any keyword: nothing to refuse")
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    @functools.wraps(func)
    def checked(*args, **kwargs):
        check_options(func.__name__, kwargs, names)
        return func(*args, **kwargs)
    return checked


def run_rules(preset: str, players=None):
    """The :class:`~dominoai.rules.Rules` of a training run: ``preset`` at
    tables of ``players`` (None: the preset's own count). A run resolves
    them once, in its spec, and passes them down.

    :raises InputError: a count the preset is not played by (the rules'
        message: ``block: players must be 2..4 (got 5)``).
    :raises ValueError: an unknown preset.
    """
    if players is None:
        return get_rules(preset)
    players = check_int("players", players, 2)
    try:
        return get_rules(preset, players=players)
    except ValueError as e:
        raise InputError("players", players, str(e)) from None


def run_players(preset: str, players=None) -> int:
    """The player count of a training run: ``players``, or the preset's own
    when None (:func:`run_rules`' count).

    :raises InputError: a count the preset is not played by.
    :raises ValueError: an unknown preset.
    """
    return run_rules(preset, players).players


def _shown(value) -> str:
    """A setting's value as the message of :func:`other_settings` writes it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return ",".join(str(v) for v in value)       # layer sizes: as --hidden takes them
        return "on"                                       # a block's names and version: it was on
    return str(value)


def other_settings(what: str, old: dict, new: dict, hint: str) -> InputError:
    """The error for a run that goes on from a file (``what``: "the
    checkpoint in DIR", "DIR/data.npz") written with other settings: each
    setting that differs, named as the call names it (``$name``, so a
    command names its option: :meth:`~dominoai.errors.InputError.worded`),
    with the file's value; a setting the file had no value for (None) is
    left out while another is named.

    >>> str(other_settings("run/checkpoint.npz", {"temperature": 1.0, "hidden": [16]},
    ...                    {"temperature": 2.0, "hidden": [16]}, "resume with the same settings"))
    'run/checkpoint.npz was made with other settings (temperature 1); resume with the same settings'
    """
    keys = [k for k in dict.fromkeys([*new, *old]) if old.get(k) != new.get(k)]
    named = [k for k in keys if old.get(k) is not None] or keys
    listed = ", ".join(f"${k} {_shown(old.get(k))}" for k in named)
    return InputError(named[0], new.get(named[0]), f"{what} was made with other settings ({listed}); {hint}",
                      *named[1:])


def check_settings(epochs, batch, learning_rate, held_out, weight_decay=0.0) -> tuple:
    """The loop's numbers checked: ``(epochs, batch, learning_rate,
    held_out, weight_decay)``.

    :raises InputError: a count below 1, a step that is not positive, a
        held-out share outside 0..0.9 or a negative weight decay.
    """
    epochs = check_int("epochs", epochs, 1)
    batch = check_int("batch", batch, 1)
    learning_rate = check_number("learning_rate", learning_rate, positive=True)
    held_out = check_number("held_out", held_out)
    if not 0.0 <= held_out <= 0.9:
        raise InputError("held_out", held_out, f"$held_out must be between 0 and 0.9 (got {held_out!r})")
    weight_decay = check_number("weight_decay", weight_decay)
    if weight_decay < 0:
        raise InputError("weight_decay", weight_decay, f"$weight_decay must be 0 or more (got {weight_decay!r})")
    return epochs, batch, learning_rate, held_out, weight_decay


@dataclass(frozen=True)
class LoopSpec:
    """The numbers of :func:`fit`'s loop, checked once when made
    (:func:`check_settings`).

    :param epochs: passes over the training rows in all (at least 1).
    :param batch: rows per step (at least 1).
    :param learning_rate: Adam's step (above 0).
    :param held_out: the share of hands kept out of training (0 to 0.9).
    :param seed: the split's and the shuffles' seed.
    :param weight_decay: AdamW's decay (0: plain Adam).
    :param keep_best: return the weights of the epoch with the lowest
        held-out value of the first metric.
    :raises InputError: any of them out of range (:func:`check_settings`).
    """

    epochs: int
    batch: int
    learning_rate: float
    held_out: float
    seed: int = 0
    weight_decay: float = 0.0
    keep_best: bool = False

    def __post_init__(self):
        checked = check_settings(self.epochs, self.batch, self.learning_rate, self.held_out, self.weight_decay)
        for k, v in zip(("epochs", "batch", "learning_rate", "held_out", "weight_decay"), checked):
            object.__setattr__(self, k, v)
        object.__setattr__(self, "seed", check_int("seed", self.seed, 0))
        object.__setattr__(self, "keep_best", bool(self.keep_best))


class Objective(NamedTuple):
    """What :func:`fit` minimises and measures.

    ``loss(params, arrays, idx) -> mean loss`` over the rows ``idx`` (an
    ``int32`` array), differentiable and jittable; ``sums(params, arrays,
    idx) -> tuple`` of sums over the rows, one per name of ``metrics``
    (jittable): each metric is logged as its sum over a part's rows divided
    by their count.
    """

    loss: Callable
    sums: Callable
    metrics: tuple


def save_arrays(path, data: dict, fields, meta: dict) -> Path:
    """Write the arrays ``data[f]`` for ``f`` in ``fields`` and ``meta``
    (JSON-compatible, stored as a JSON ``meta`` entry) to ``path``
    (``.npz``), whole or not at all; return the path. The datasets of
    :mod:`~dominoai.learn.imitation` and :mod:`~dominoai.learn.value` are
    written by it.

    :raises OSError: the folder cannot be written.
    """

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez_compressed(f, meta=np.array(json.dumps(meta, sort_keys=True)),
                                **{k: data[k] for k in fields})
    return atomic_write(Path(path), write)


def load_arrays(path, fields, what: str, version_key: str, version: int,
                optional: dict | None = None) -> tuple[dict, dict]:
    """``(data, meta)`` of a file written by :func:`save_arrays`: the arrays
    ``fields`` and the ``meta`` dict, whose ``version_key`` must equal
    ``version``. ``optional`` maps a field a file may lack (one added after
    it was written) to ``fill(rows)``, which makes the array it then gets.

    :raises ValueError: not such a file (``what`` names the kind in the
        message), or another version (one line each).
    """
    optional = optional or {}

    def read(z):
        meta = json.loads(str(z["meta"][()]))
        data = {k: z[k] for k in fields if k not in optional or k in z.files}
        rows = len(next(iter(data.values()))) if data else 0
        data.update({k: fill(rows) for k, fill in optional.items() if k in fields and k not in data})
        return data, meta
    data, meta = read_npz(path, what, read)
    if meta.get(version_key) != version:
        raise ValueError(f"{Path(path).name} was encoded with {version_key.replace('_', ' ')} "
                         f"{meta.get(version_key)}; this dominoai encodes version {version}")
    return data, meta


def require_jax():
    """``jax.numpy`` for training.

    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    try:
        import jax.numpy as jnp
        import optax  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ImportError("training needs jax and optax: pip install 'dominoai[learn]'") from e
    return jnp


def run_kind(folder) -> str | None:
    """The kind of training run (``"policy"``, ``"value"`` or ``"ppo"``) a
    ``dominoai train`` folder holds, read from its checkpoint or dataset;
    None for a folder without either, or one that does not say."""
    folder = Path(folder)
    try:
        if (folder / "checkpoint.npz").exists():
            with np.load(folder / "checkpoint.npz", allow_pickle=False) as z:
                state = json.loads(str(z["state"][()]))
            return "ppo" if "league" in state else state.get("settings", {}).get("kind")
        if (folder / "data.npz").exists():
            with np.load(folder / "data.npz", allow_pickle=False) as z:
                meta = json.loads(str(z["meta"][()]))
            return "value" if "world_encoding_version" in meta else "policy"
    except Exception:  # noqa: BLE001 - an unreadable file is refused by the run itself
        return None
    return None


def check_run_kind(folder, kind: str) -> None:
    """Refuse to go on in ``folder`` with a run of another kind.

    :raises ValueError: the folder holds a run of another kind (one line).
    """
    have = run_kind(folder)
    if have is not None and have != kind:
        raise ValueError(f"{Path(folder)} holds a --kind {have} run; go on with --kind {have}, "
                         "or give another --out")


def save_checkpoint(path: Path, tree, log, settings, **state) -> None:
    """Write ``tree`` (any JAX pytree of arrays: parameters and optimizer
    state), the log, the settings and ``state`` (JSON) to ``path``, whole or
    not at all."""
    import jax

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {f"leaf{i}": np.asarray(x) for i, x in enumerate(jax.tree_util.tree_leaves(tree))}

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, state=np.array(json.dumps({"log": log, "settings": settings, **state})), **arrays)
    atomic_write(path, write)


def checkpoint_state(path: Path) -> dict:
    """The JSON state of a checkpoint (:func:`save_checkpoint`, or PPO's):
    ``log``, ``settings`` and the rest, without reading its arrays, so that
    its settings are compared before its arrays are fitted to a network."""
    return read_npz(path, "checkpoint", lambda z: json.loads(str(z["state"][()])))


def load_checkpoint(path: Path, tree) -> tuple:
    """``(tree, log, settings, state)`` read from a checkpoint of
    :func:`save_checkpoint`, its arrays put into the structure of ``tree``.

    :raises ValueError: the checkpoint does not fit the structure (another network).
    """
    import jax
    path = Path(path)
    state, leaves = read_npz(path, "checkpoint", lambda z: (
        json.loads(str(z["state"][()])),
        [z[f"leaf{i}"] for i in range(sum(1 for k in z.files if k.startswith("leaf")))]))
    treedef = jax.tree_util.tree_structure(tree)
    if treedef.num_leaves != len(leaves) or any(
            np.shape(a) != np.shape(b) for a, b in zip(leaves, jax.tree_util.tree_leaves(tree))):
        raise ValueError(f"{path.name} does not fit this network (its layers differ)")
    tree = jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(x) for x in leaves])
    log, settings = state.pop("log"), state.pop("settings")
    return tree, log, settings, state


class FitResult:
    """What :func:`fit` returns: ``params`` (the trained parameters, or the
    best epoch's with ``keep_best``), ``log`` (one dict per epoch),
    ``train_rows`` and ``held_rows`` (the split's row indices),
    ``best_epoch`` (the epoch ``params`` come from) and ``seconds`` (this
    call's time)."""

    def __init__(self, params, log, train_rows, held_rows, best_epoch, seconds):
        self.params, self.log = params, log
        self.train_rows, self.held_rows = train_rows, held_rows
        self.best_epoch, self.seconds = best_epoch, seconds


@refuse_unknown_options
def fit(params, objective: Objective, arrays, hand, loop: LoopSpec, settings: dict, *, checkpoint=None,
        resume: bool = False, progress: str | None = None, desc: str = "", upgrade=None) -> FitResult:
    """Train ``params`` (a JAX pytree) over the rows of a dataset.

    :param objective: the loss and the metrics (:class:`Objective`); each
        metric is logged as ``train_NAME`` and ``held_NAME`` (NaN when a
        part is empty), in the order of its ``metrics``, then ``seconds``
        (the training's total so far).
    :param loop: the loop's numbers (:class:`LoopSpec`: epochs, batch,
        learning rate, held-out share, seed, weight decay, keep-best).
    :param arrays: the dataset's arrays (a pytree of JAX arrays with ``n``
        rows each), passed to ``loss`` and ``sums`` as arguments (not
        captured, so they are not compiled in as constants).
    :param hand: ``(n,)``, each row's hand (:func:`split_hands`).
    :param settings: what a checkpoint must match to be resumed (the
        caller's, named as the caller's arguments; the loop adds
        ``weight_decay`` and ``keep_best``).
    :param upgrade: ``upgrade(old) -> dict``: a checkpoint's settings in
        the caller's present form (a setting added since, at the value it
        had then); None: as they are.
    :param checkpoint: the checkpoint file written after each epoch (None: none).
    :param resume: go on from ``checkpoint`` when it exists: its epochs are
        not trained again, and ``epochs`` above them go on training (as if
        the run had been given them from the start).
    :param progress: ``"batches"`` (a bar of minibatches per epoch and one
        line per epoch), ``"epochs"`` (a bar of epochs) or None.
    :raises InputError: ``keep_best`` without held-out rows, an option
        ``fit`` does not take, a checkpoint of other settings
        (:func:`other_settings`), or one that has trained more than ``epochs``.
    """
    import jax
    import jax.numpy as jnp
    import optax

    t_call = time.perf_counter()
    loss, sums, metrics = objective
    epochs, batch, learning_rate, held_out, seed = (loop.epochs, loop.batch, loop.learning_rate, loop.held_out,
                                                    loop.seed)
    weight_decay, keep_best = loop.weight_decay, loop.keep_best
    settings = {**settings, "weight_decay": weight_decay, "keep_best": keep_best}
    opt = optax.adamw(learning_rate, weight_decay=weight_decay) if weight_decay > 0 else optax.adam(learning_rate)
    opt_state = opt.init(params)
    best = params if keep_best else None
    best_epoch = 0
    log: list = []
    ckpt = Path(checkpoint) if checkpoint is not None else None
    if resume and ckpt is not None and ckpt.exists():
        # a checkpoint written before weight_decay and keep_best were always kept has them only when set
        old = {"weight_decay": 0.0, "keep_best": False, **checkpoint_state(ckpt)["settings"]}
        if upgrade is not None:
            old = upgrade(old)
        if old != settings:
            raise other_settings(str(ckpt), old, settings,
                                 "resume with the same settings, or train in another folder")
        tree = (params, opt_state, best) if keep_best else (params, opt_state)
        tree, log, _, state = load_checkpoint(ckpt, tree)
        if len(log) > epochs:
            raise InputError("epochs", epochs, f"{ckpt} has trained {len(log)} "
                             f"epochs, more than the {epochs} of $epochs; give $epochs {len(log)} or more "
                             "(more go on training from it)")
        params, opt_state = tree[0], tree[1]
        if keep_best:
            best, best_epoch = tree[2], int(state.get("best_epoch", 0))
    tr, te = split_hands(hand, held_out, seed)
    if keep_best and len(te) == 0:
        raise InputError("keep_best", keep_best, "$keep_best picks the epoch by its held-out loss: give $held_out "
                         "above 0 and two hands or more", "held_out")

    @jax.jit
    def step(p, s, arrays, idx):
        lv, g = jax.value_and_grad(loss)(p, arrays, idx)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s, lv

    sums_j = jax.jit(sums)

    def measure(p, rows):
        if len(rows) == 0:
            return [float("nan")] * len(metrics)
        acc = [0.0] * len(metrics)
        for i in range(0, len(rows), 8192):
            got = sums_j(p, arrays, jnp.asarray(rows[i:i + 8192]))
            acc = [a + float(g) for a, g in zip(acc, got)]
        return [a / len(rows) for a in acc]

    spent = log[-1]["seconds"] if log else 0.0
    t0 = time.perf_counter()
    eps = range(len(log), epochs)
    if progress == "epochs":
        eps = tqdm(eps, desc=desc, unit="epoch", initial=len(log), total=epochs)
    for ep in eps:
        order = tr[np.random.default_rng([seed, ep]).permutation(len(tr))]
        steps = range(0, len(order), batch)
        if progress == "batches":
            steps = tqdm(steps, desc=f"epoch {ep + 1}/{epochs}", unit="batch", leave=False)
        for i in steps:
            params, opt_state, _ = step(params, opt_state, arrays, jnp.asarray(order[i:i + batch]))
        row = {"epoch": ep + 1}
        for part, rows in (("train", tr), ("held", te)):
            row.update({f"{part}_{m}": v for m, v in zip(metrics, measure(params, rows))})
        row["seconds"] = spent + time.perf_counter() - t0
        log.append(row)
        if keep_best:
            key = f"held_{metrics[0]}"
            if best_epoch == 0 or not (row[key] >= log[best_epoch - 1][key]):
                best, best_epoch = params, ep + 1
        if progress == "batches":
            tqdm.write(f"epoch {ep + 1}: " + ", ".join(
                f"{m} {row['train_' + m]:.3f} / held {row['held_' + m]:.3f}" for m in metrics))
        if ckpt is not None:
            tree = (params, opt_state, best) if keep_best else (params, opt_state)
            save_checkpoint(ckpt, tree, log, settings, **({"best_epoch": best_epoch} if keep_best else {}))
    if keep_best:
        params = best
    else:
        best_epoch = len(log)
    return FitResult(params, log, tr, te, best_epoch, time.perf_counter() - t_call)


def write_log(log: list, path) -> Path:
    """A training log (one dict per epoch) as a parquet file at ``path``,
    whole or not at all.

    :raises OSError: the folder cannot be written.
    """
    import pandas as pd

    df = pd.DataFrame(log)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda p: df.to_parquet(p, index=False))


def write_curve(log: list, path, panels, title: str = "") -> Path:
    """The learning curve of a training log as a figure, one panel per
    ``(metric, axis label)`` of ``panels``: the metric per epoch on the
    training rows and the held-out hands (left out when all NaN). Written
    whole or not at all, in the format of ``path``'s suffix.

    :raises OSError: the folder cannot be written.
    """
    from matplotlib.figure import Figure

    ep = [e["epoch"] for e in log]
    fig = Figure(figsize=(4.5 * len(panels), 3.4))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (m, label) in zip(axes, panels):
        ax.plot(ep, [e[f"train_{m}"] for e in log], "o-", label="training rows")
        held = [e[f"held_{m}"] for e in log]
        if not all(np.isnan(v) for v in held):
            ax.plot(ep, held, "s--", label="held-out hands")
        ax.set_xlabel("epoch")
        ax.set_ylabel(label)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda p: fig.savefig(p, format=path.suffix.lstrip(".") or "png", dpi=110))
    return path
