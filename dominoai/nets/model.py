"""Learned networks as files: the model format, loading by name, the forward pass.

A *model* is a multilayer perceptron over the observation vector of
:mod:`dominoai.engine.encode` (``OBS_SIZE`` = 153 inputs): each input scaled
by a fixed factor (:func:`input_scale`), hidden layers with ReLU, and a
linear head, ``N_ACTIONS`` = 113 logits for a **policy** or 1 output for a
**value**. It is saved as one ``.npz`` file (no pickles) holding

- ``header``: a JSON text (below);
- ``scale``: ``float32``, ``(OBS_SIZE,)``;
- ``w0, b0, w1, b1, ...``: each layer's weights ``float32``,
  ``(fan_in, fan_out)``, and bias ``(fan_out,)``;
- a policy with the **action-feature block** (:mod:`dominoai.nets.features`)
  also ``fw`` (``float32``, ``(last hidden size, N_ACTION_FEATURES)``) and
  ``fb`` (``(N_ACTION_FEATURES,)``): each legal action's logit gets
  ``sum_f (fb[f] + (h @ fw)[f]) * feature[action, f]`` added, ``h`` the
  last hidden layer's activations (so the weights of the features depend
  on the position).

The header's fields:

=====================  ======================================================
``format``             ``"dominoai-mlp"``
``format_version``     1, or 2 for a policy with the action-feature block
                       (an older dominoai refuses it rather than ignore it)
``name``               the model's name (a shipped model's is its file's stem)
``kind``               ``"policy"`` or ``"value"``
``encoding_version``   :data:`~dominoai.engine.encode.ENCODING_VERSION` it was
                       trained on
``preset``             the preset it was trained for (``"block"``)
``players``            the players at the tables it was trained on (the
                       preset's count; a header without it, written before
                       it was recorded, means the preset's count, the only
                       one a model was trained for then)
``layers``             the layer sizes, ``[153, 128, 128, 113]``
``training_command``   the command that trained it
``data``               the data sizes (``{"deals": .., "decisions": ..}``)
``code_hash``          :func:`code_hash` of the sources that trained it
``created``            the UTC date and time, ISO 8601
``action_features``    with the block only: the feature names, in order
                       (:data:`~dominoai.nets.features.ACTION_FEATURES`)
``action_features_version``  with the block only:
                       :data:`~dominoai.nets.features.ACTION_FEATURES_VERSION`
=====================  ======================================================

The model's own content hash (:attr:`Model.sha256`, of the scale, weights
and biases) is computed on load, never stored: results and records name a
model by ``name`` and hash (:attr:`Model.ident`), never by a path.

:func:`load_model` finds a shipped model by name (the files of
``dominoai/nets/models/``, :func:`shipped_models`) or reads a file, and
refuses with one line (:class:`ModelError`) a file that is not a model or
holds a NaN or infinite number, or whose encoding version, kind, preset or
players do not match, or whose action-feature block is not this
dominoai's. The forward pass runs
in the numba kernels of :mod:`dominoai.nets.forward` (no JAX at play
time); :mod:`dominoai.learn.jaxnet` defines the same network in JAX for
training.

This module imports numpy and numba only.
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .._files import atomic_write, is_npz
from ..engine.encode import ENCODING_VERSION, F_RAW, N_ACTIONS, OBS_SIZE
from ..errors import InputError
from ..rules import get_rules, preset_names
from .features import ACTION_FEATURES, ACTION_FEATURES_VERSION, forward_features_batch
from .forward import forward_batch

__all__ = ["FORMAT", "FORMAT_VERSION", "KINDS", "MODELS_DIR", "ModelError", "Model", "input_scale", "new_model",
           "load_model", "check_header", "checked_model", "check_players", "read_model_file", "shipped_models",
           "default_model_name", "code_hash"]

#: the header's ``format``: what a model file says it is (``str``)
FORMAT = "dominoai-mlp"
#: the newest header ``format_version`` this dominoai reads and writes (``int``):
#: 2, a policy with the action-feature block
FORMAT_VERSION = 2
#: the format version of a model without the action-feature block
PLAIN_FORMAT_VERSION = 1
#: what a model's head outputs: ``policy`` (``N_ACTIONS`` logits) or ``value`` (1 number)
KINDS = ("policy", "value")
#: the folder of the shipped models (package data), ``NAME.npz`` each
MODELS_DIR = Path(__file__).parent / "models"


class ModelError(InputError):
    """A model file that cannot be used here: not a model, non-finite
    weights, another encoding version, kind, preset or players, or an
    unknown name. The message is one line (the command line prints it and
    exits with status 2). An :class:`~dominoai.errors.InputError` (so a
    ``ValueError``) of the argument ``field`` (default ``"model"``)."""

    def __init__(self, message: str, field: str = "model", value=None):
        super().__init__(field, value, str(message).replace("$", "$$"))


def input_scale() -> np.ndarray:
    """The factor each observation entry is multiplied by before the first
    layer (``float32``, ``(OBS_SIZE,)``): 1 for the 0/1 entries, 0.1 for the
    plain numbers (pips, counts, points) from ``F_RAW`` on."""
    s = np.ones(OBS_SIZE, np.float32)
    s[F_RAW:] = 0.1
    return s


def _out_size(kind: str) -> int:
    return N_ACTIONS if kind == "policy" else 1


@dataclass(eq=False)
class Model:
    """A loaded (or new) network.

    ``params``: one ``(w, b)`` pair per layer (``float32``, ``(fan_in,
    fan_out)`` and ``(fan_out,)``); ``scale``: ``float32``, ``(OBS_SIZE,)``;
    ``header``: the JSON header as a dict (see the module); ``action``:
    ``(fw, fb)`` of the action-feature block (``float32``), or None. Build one with
    :func:`new_model`, :meth:`from_params` or :func:`load_model`.
    """

    params: list
    scale: np.ndarray
    header: dict
    action: tuple | None = None
    _packed: tuple | None = field(default=None, repr=False)
    _sha: str | None = field(default=None, repr=False)

    # ------------------------------------------------------------ the header
    @property
    def name(self) -> str:
        """The model's name (a shipped model's is its file's stem)."""
        return str(self.header.get("name", ""))

    @property
    def kind(self) -> str:
        """``"policy"`` or ``"value"``."""
        return self.header["kind"]

    @property
    def preset(self) -> str:
        """The preset the model was trained for."""
        return self.header["preset"]

    @property
    def players(self) -> int:
        """The players at the tables the model was trained on: the
        header's ``players``, or, in a header written before it was
        recorded, the preset's player count (the only one then trained for)."""
        return int(self.header.get("players") or get_rules(self.preset).players)

    @property
    def layers(self) -> tuple:
        """The layer sizes, input first: ``(153, 128, 128, 113)``."""
        return tuple(int(x) for x in self.header["layers"])

    @property
    def sha256(self) -> str:
        """The content hash (64 hex digits): sha256 of the scale, then each
        layer's ``fan_in, fan_out`` (``int64``), weights and bias
        (``float32``, little-endian, C order). Equal weights give equal
        hashes whatever the header says. With the action-feature block,
        ``fw``'s shape, ``fw`` and ``fb`` follow, in the same way."""
        if self._sha is None:
            h = hashlib.sha256()
            h.update(np.ascontiguousarray(self.scale, "<f4").tobytes())
            for w, b in self.params:
                h.update(np.asarray(w.shape, "<i8").tobytes())
                h.update(np.ascontiguousarray(w, "<f4").tobytes())
                h.update(np.ascontiguousarray(b, "<f4").tobytes())
            if self.action is not None:
                fw, fb = self.action
                h.update(b"action")
                h.update(np.asarray(fw.shape, "<i8").tobytes())
                h.update(np.ascontiguousarray(fw, "<f4").tobytes())
                h.update(np.ascontiguousarray(fb, "<f4").tobytes())
            self._sha = h.hexdigest()
        return self._sha

    @property
    def ident(self) -> str:
        """How results and records name the model: ``"NAME@HASH12"`` (the
        first 12 hex digits of :attr:`sha256`)."""
        return f"{self.name}@{self.sha256[:12]}"

    @property
    def has_action_features(self) -> bool:
        """True for a policy with the action-feature block."""
        return self.action is not None

    @classmethod
    def from_params(cls, params, kind: str, preset: str, scale=None, action=None, **header) -> "Model":
        """A model of ``params`` (a sequence of ``(w, b)`` pairs, or of dicts
        with ``"w"`` and ``"b"``, any array type: JAX's too) for ``kind`` and
        ``preset``; ``header`` adds or overrides header fields
        (``name``, ``training_command``, ``data``; ``players`` defaults to
        the preset's count). ``action``: ``(fw, fb)``
        (or ``{"fw", "fb"}``) of the action-feature block, for a policy.

        :raises ModelError: an unknown kind or preset, or shapes that do not
            chain from ``OBS_SIZE`` to the kind's output size.
        """
        pairs = []
        for p in params:
            w, b = (p["w"], p["b"]) if isinstance(p, dict) else p
            pairs.append((np.asarray(w, np.float32).copy(), np.asarray(b, np.float32).copy()))
        layers = [int(pairs[0][0].shape[0])] + [int(w.shape[1]) for w, _ in pairs] if pairs else []
        if isinstance(action, dict):
            action = (action["fw"], action["fb"])
        if action is not None:
            action = (np.asarray(action[0], np.float32).copy(), np.asarray(action[1], np.float32).copy())
        head = {"format": FORMAT, "format_version": PLAIN_FORMAT_VERSION, "name": "", "kind": kind,
                "encoding_version": ENCODING_VERSION, "preset": preset, "layers": layers,
                **({"players": get_rules(preset).players} if preset in preset_names() else {}),
                "training_command": "", "data": {}, "code_hash": code_hash(),
                "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        if action is not None:
            head.update(format_version=FORMAT_VERSION, action_features=list(ACTION_FEATURES),
                        action_features_version=ACTION_FEATURES_VERSION)
        head.update(header)
        m = cls(pairs, input_scale() if scale is None else np.asarray(scale, np.float32).copy(), head, action)
        m._check_shapes("the new model")
        return m

    def _check_shapes(self, where: str) -> None:
        h = self.header
        if h.get("kind") not in KINDS:
            raise ModelError(f"{where}: kind must be one of {', '.join(KINDS)} (got {h.get('kind')!r})")
        if h.get("preset") not in preset_names():
            raise ModelError(f"{where}: unknown preset {h.get('preset')!r}")
        layers = list(h.get("layers") or [])
        want = [OBS_SIZE] + [int(w.shape[1]) for w, _ in self.params[:-1]] + [_out_size(h["kind"])]
        shapes_ok = (len(self.params) >= 1 and len(layers) == len(self.params) + 1
                     and self.scale.shape == (OBS_SIZE,)
                     and all(w.ndim == 2 and b.shape == (w.shape[1],) and w.shape[0] == layers[i]
                             and w.shape[1] == layers[i + 1] for i, (w, b) in enumerate(self.params)))
        if not shapes_ok or layers != want:
            raise ModelError(f"{where}: its layers {layers} do not fit a {h['kind']} over the "
                             f"observation vector ({OBS_SIZE} inputs, {_out_size(h['kind'])} outputs)")
        if self.action is not None:
            fw, fb = self.action
            nf = len(h.get("action_features") or [])
            if h["kind"] != "policy" or len(layers) < 3:
                raise ModelError(f"{where}: an action-feature block needs a policy with a hidden layer")
            if fw.shape != (layers[-2], nf) or fb.shape != (nf,):
                raise ModelError(f"{where}: its action-feature weights {fw.shape} do not fit its last hidden "
                                 f"layer ({layers[-2]}) and its {nf} action features")

    # ------------------------------------------------------------ the forward pass
    def packed(self, block: bool = False) -> tuple:
        """The network as :mod:`dominoai.nets.forward` takes it: ``(scale,
        weights, shapes)``, ``float32`` ``(OBS_SIZE,)``, ``float32`` flat and
        ``int64`` ``(n_layers, 2)`` (built once).

        :param block: the caller also adds the action-feature block
            (:func:`dominoai.nets.features.policy_pick_features`, with
            :attr:`action`).
        :raises ModelError: the model has the block and ``block`` is False:
            a forward pass without it would play another policy (e.g.
            insane's ``rollout_policy=neural``, which does not compute it).
        """
        if self.action is not None and not block:
            raise ModelError(f"model {self.name!r} adds action features to its logits; this forward pass "
                             "does not compute them (use a policy without the action-feature block)")
        if self._packed is None:
            flat = np.concatenate([np.concatenate([w.ravel(), b]) for w, b in self.params])
            shapes = np.array([w.shape for w, _ in self.params], np.int64)
            self._packed = (np.ascontiguousarray(self.scale, np.float32),
                            np.ascontiguousarray(flat, np.float32), shapes)
        return self._packed

    def forward(self, x: np.ndarray, ids=None, feats=None) -> np.ndarray:
        """The outputs (``float32``, ``(n, n_out)``, or ``(n_out,)`` for one
        input) of observation vectors ``x`` (``(n, OBS_SIZE)`` or
        ``(OBS_SIZE,)``): logits of a policy (every id, legal or not), the
        value of a value network. Runs the numba kernel.

        A policy with the action-feature block needs each input's actions
        and their features: ``ids`` (``int``, ``(n, k)``, -1 pads) and
        ``feats`` (``float32``, ``(n, k, N_ACTION_FEATURES)``), as
        :func:`~dominoai.learn.features.dataset_features` gives them; only
        the listed actions get the feature term.

        :raises ValueError: ``x``'s last axis is not ``OBS_SIZE`` long, or
            the block's actions are missing or of the wrong shape.
        """
        x = np.asarray(x, np.float32)
        one = x.ndim == 1
        xs = np.ascontiguousarray(x[None] if one else x)
        if xs.ndim != 2 or xs.shape[1] != OBS_SIZE:
            raise ValueError(f"observation vectors have {OBS_SIZE} entries (got shape {x.shape})")
        out = np.empty((xs.shape[0], self.layers[-1]), np.float32)
        if self.action is None:
            forward_batch(xs, *self.packed(), out)
            return out[0] if one else out
        if ids is None or feats is None:
            raise ValueError("this policy adds its actions' features: give ids and feats")
        ids = np.ascontiguousarray(np.asarray(ids, np.int64).reshape(len(xs), -1))
        feats = np.ascontiguousarray(np.asarray(feats, np.float32).reshape(ids.shape + (-1,)))
        fw, fb = self.action
        if feats.shape[2] < fb.shape[0]:       # the model's features are the first ones
            raise ValueError(f"feats must have {fb.shape[0]} features per action (got {feats.shape[2]})")
        forward_features_batch(xs, *self.packed(block=True), fw, fb, ids, feats, out)
        return out[0] if one else out

    # ------------------------------------------------------------ files
    def save(self, path, **header) -> Path:
        """Write the model to ``path`` (``.npz``), whole or not at all;
        ``header`` updates header fields first (``name`` defaults to the
        file's stem when the model has none).

        :raises OSError: the folder cannot be written.
        """
        path = Path(path)
        self.header.update(header)
        if not self.header.get("name"):
            self.header["name"] = path.stem
        arrays = {"header": np.array(json.dumps(self.header, sort_keys=True)),
                  "scale": np.asarray(self.scale, np.float32)}
        for i, (w, b) in enumerate(self.params):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        if self.action is not None:
            arrays["fw"], arrays["fb"] = self.action

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                np.savez(f, **arrays)
        return atomic_write(path, write)


def new_model(kind: str, preset: str, hidden=(128, 128), seed: int = 0, **header) -> Model:
    """A model with fresh weights (He-normal weights, zero biases; the
    head's weights 100 times smaller), drawn from ``numpy``'s generator of
    ``seed``. ``hidden``: the hidden layer sizes.

    :raises ModelError: an unknown kind or preset.
    """
    if kind not in KINDS:
        raise ModelError(f"kind must be one of {', '.join(KINDS)} (got {kind!r})")
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE, *[int(h) for h in hidden], _out_size(kind)]
    params = []
    for i in range(len(sizes) - 1):
        std = np.sqrt(2.0 / sizes[i]) * (0.01 if i == len(sizes) - 2 else 1.0)
        params.append((rng.normal(0.0, std, (sizes[i], sizes[i + 1])).astype(np.float32),
                       np.zeros(sizes[i + 1], np.float32)))
    return Model.from_params(params, kind, preset, **header)


_SHIPPED: tuple = (None, {})


def shipped_models() -> dict:
    """The shipped models, ``{name: path}`` (the ``.npz`` files of
    :data:`MODELS_DIR`), sorted by name (listed again when the folder
    changes)."""
    global _SHIPPED
    try:
        stamp = MODELS_DIR.stat().st_mtime_ns
    except OSError:
        return {}
    if _SHIPPED[0] != stamp:
        _SHIPPED = (stamp, {p.stem: p for p in sorted(MODELS_DIR.glob("*.npz"))})
    return dict(_SHIPPED[1])


def default_model_name(preset: str, kind: str = "policy") -> str:
    """The name of the shipped ``kind`` model for ``preset``:
    ``"PRESET-KIND"`` (``"block-policy"``).

    :raises ModelError: no such model is shipped (the message names the
        presets that have one).
    """
    name = f"{preset}-{kind}"
    if name not in shipped_models():
        have = sorted(n[: -len(kind) - 1] for n in shipped_models() if n.endswith("-" + kind))
        raise ModelError(f"no {kind} model is shipped for {preset}; presets with one: "
                         f"{', '.join(have) or 'none'}")
    return name


def _looks_like_path(s: str) -> bool:
    return s.endswith(".npz") or os.sep in s or "/" in s or (os.altsep or "/") in s


def _kind_of(path) -> str | None:
    """The ``kind`` in a model file's header (None when unreadable)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return json.loads(str(z["header"][()])).get("kind")
    except Exception:  # noqa: BLE001 - a hint only
        return None


def read_model_file(name_or_path, kind: str | None = None, action: bool = False) -> tuple:
    """Find a shipped model by name (:func:`shipped_models`) or a model file,
    read it and check its format: ``(path, where, header, scale, params)``
    (``where`` names the model in errors; ``params`` the ``(w, b)`` float32
    pairs), and with ``action`` a sixth item: ``(fw, fb)`` of the
    action-feature block, or None. ``kind`` words the hint for an unknown
    name: the shipped models of that kind.

    :raises ModelError: an unknown name, a file that cannot be read, is
        not a model of this format (``not a dominoai model file: ...``) or
        holds a NaN or infinite number (``non-finite weights in ...``), a
        newer format version (one line each).
    """
    text = str(name_or_path)
    shipped = shipped_models()
    if isinstance(name_or_path, Path) or _looks_like_path(text) or text not in shipped:
        path = Path(text)
        if not path.is_file():
            if _looks_like_path(text) or isinstance(name_or_path, Path):
                raise ModelError(f"no model file {text}")
            what = f"{kind} model" if kind else "model"
            have = [n for n, p in shipped.items() if kind is None or _kind_of(p) == kind]
            raise ModelError(f"unknown {what} {text!r}; shipped {what}s: {', '.join(have) or 'none'} "
                             "(or give a .npz file)")
        where = f"model file {text}"
        shown = text
    else:
        path = shipped[text]
        where = f"model {text!r}"
        shown = f"{path.name} (the shipped model {text!r})"

    def refuse(why: str) -> ModelError:
        return ModelError(f"not a dominoai model file: {shown} ({why})")
    try:
        archive = is_npz(path)
    except OSError as e:
        raise ModelError(f"cannot read the model file {shown}: {e.strerror or e}") from None
    if not archive:
        raise refuse("it is not an .npz archive")
    try:
        with np.load(path, allow_pickle=False) as z:
            for k in ("header", "scale", "w0", "b0"):
                if k not in z.files:
                    raise refuse(f"it has no {k!r} array")
            try:
                header = json.loads(str(z["header"][()]))
            except ValueError:
                raise refuse("its header is not JSON") from None
            arrays = {"scale": np.asarray(z["scale"], np.float32)}
            n = sum(1 for k in z.files if k.startswith("w"))
            for i in range(n):
                for k in (f"w{i}", f"b{i}"):
                    if k not in z.files:
                        raise refuse(f"it has no {k!r} array")
                    arrays[k] = np.asarray(z[k], np.float32)
            if "fw" in z.files and "fb" in z.files:
                arrays["fw"], arrays["fb"] = np.asarray(z["fw"], np.float32), np.asarray(z["fb"], np.float32)
    except ModelError:
        raise
    except zipfile.BadZipFile:
        raise refuse("a damaged .npz archive") from None
    except Exception as e:  # noqa: BLE001 - any other failure to read is "not a model"
        raise refuse(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'unreadable'}") from None
    if not isinstance(header, dict):
        raise refuse("its header is not a JSON object")
    if header.get("format") != FORMAT:
        raise refuse(f"format {header.get('format')!r}, expected {FORMAT!r}")
    if not isinstance(header.get("format_version"), int) or header["format_version"] > FORMAT_VERSION:
        raise ModelError(f"{where} has format version {header.get('format_version')!r}; this dominoai "
                         f"reads up to {FORMAT_VERSION}")
    bad = [k for k, a in arrays.items() if not np.isfinite(a).all()]
    if bad:
        raise ModelError(f"non-finite weights in {shown}: {', '.join(bad)} hold NaN or infinite numbers")
    players = header.get("players")
    if players is not None and not (isinstance(players, int) and not isinstance(players, bool)
                                    and 2 <= players <= 4):
        raise refuse(f"its players {players!r} are not 2, 3 or 4")
    scale = arrays["scale"]
    params = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
    block = (arrays["fw"], arrays["fb"]) if "fw" in arrays else None
    if not header.get("name"):
        header["name"] = path.stem
    if (block is not None) != ("action_features" in header):
        raise refuse("its action-feature block is incomplete")
    return (path, where, header, scale, params, block) if action else (path, where, header, scale, params)


def load_model(name_or_path, preset: str | None = None, kind: str | None = None,
               players: int | None = None) -> Model:
    """A shipped model by name (:func:`shipped_models`) or a model file.

    :param preset: when given, the model must have been trained for it.
    :param kind: when given, ``"policy"`` or ``"value"``: the model must be one.
    :param players: when given, the model must have been trained at tables
        of that many players (:attr:`Model.players`).
    :raises ModelError: an unknown name, a file that cannot be read, is
        not a model of this format or holds non-finite weights, a newer
        format version, another encoding version or action-feature block,
        or the wrong kind, preset or players (one line each).
    """
    _, where, header, scale, params, block = read_model_file(name_or_path, kind=kind, action=True)
    if kind is not None and header.get("kind") != kind:
        raise ModelError(f"{where} is a {header.get('kind')} model, not a {kind} model")
    check_header(where, header, preset)
    if block is not None:
        names = list(header.get("action_features") or [])
        if (header.get("action_features_version") != ACTION_FEATURES_VERSION
                or names != list(ACTION_FEATURES)[:len(names)] or not names):
            raise ModelError(f"{where} adds action features {names} of version "
                             f"{header.get('action_features_version')!r}; this dominoai computes "
                             f"{list(ACTION_FEATURES)} of version {ACTION_FEATURES_VERSION}")
    return checked_model(Model(params, scale, header, block), where, players)


def check_header(where: str, header: dict, preset: str | None = None,
                 encoding: tuple = ("encoding_version", "observation encoding", ENCODING_VERSION)) -> None:
    """Refuse a model file's ``header`` (read from ``where``) encoded with
    another version, or (``preset`` given) trained for another preset.

    :param encoding: ``(header key, its words, this dominoai's version)``:
        the observation encoding by default, the world encoding for a value model.
    :raises ModelError: the version or the preset differs (one line).
    """
    key, words, version = encoding
    if header.get(key) != version:
        raise ModelError(f"{where} was trained on {words} version {header.get(key)!r}; "
                         f"this dominoai encodes version {version}")
    if preset is not None and header.get("preset") != preset:
        raise ModelError(f"{where} was trained for {header.get('preset')}, not for {preset}")


def checked_model(model: Model, where: str, players: int | None = None) -> Model:
    """``model`` (read from ``where``) once its layers fit it and, with
    ``players``, it was trained at tables of that many (:func:`check_players`).

    :raises ModelError: layers that do not fit, or other players (one line).
    """
    model._check_shapes(where)
    if players is not None:
        check_players(model, players)
    return model


def check_players(model: Model, players: int, hint: bool = True) -> None:
    """Refuse ``model`` at a table of ``players`` players when it was trained
    at tables of another count (its input would hold what it never saw).

    :param hint: end the message with the command that trains a model for
        that count (``dominoai train --players N``); False: the caller
        words its own way on.
    :raises ModelError: the counts differ (one line).
    """
    if model.players != players:
        way = f"; dominoai train --players {players} trains one for them" if hint else ""
        raise ModelError(f"model {model.name!r} was trained on {model.players}-player hands of "
                         f"{model.preset}, not {players}-player ones{way}")


_CODE_HASH: str | None = None


def code_hash() -> str:
    """A hash of the package's Python sources (16 hex digits): sha256 over
    every ``dominoai/**/*.py`` file's path (relative, ``/``-separated) and
    bytes, in path order. Models record it as the code that trained them."""
    global _CODE_HASH
    if _CODE_HASH is None:
        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for p in sorted(root.rglob("*.py")):
            rel = p.relative_to(root).as_posix()
            if "__pycache__" in rel:
                continue
            h.update(rel.encode() + b"\0" + p.read_bytes() + b"\0")
        _CODE_HASH = h.hexdigest()[:16]
    return _CODE_HASH
