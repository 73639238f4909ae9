"""Value models over whole worlds as files: :class:`ValueModel` and its loader.

A value model is the model format of :mod:`dominoai.nets.model` with the
world vector of :mod:`dominoai.nets.world_encode` as its input
(``WORLD_SIZE`` inputs, 1 output, points) and the header fields ``input``
(``"world"``) and ``world_encoding_version``. The search loads one with
:func:`load_value_model`; :mod:`dominoai.learn.value` makes the data and
trains it. This module imports numpy and numba only.
"""
from __future__ import annotations

import numpy as np

from .forward import forward_batch
from .model import Model, ModelError, check_header, checked_model, read_model_file
from .world_encode import WORLD_ENCODING_VERSION, WORLD_SIZE, world_scale

__all__ = ["MAX_WIDTH", "ValueModel", "new_value_model", "load_value_model"]

#: the widest hidden layer a value or policy network may have inside the
#: search (the search's scratch vectors are this long)
MAX_WIDTH = 512


class ValueModel(Model):
    """A value network over the world vector (``WORLD_SIZE`` inputs, 1
    output, points): :class:`~dominoai.nets.model.Model` with the world
    vector's input size, scale (:func:`~dominoai.nets.world_encode.world_scale`)
    and encoding version. Build one with :func:`new_value_model`,
    :meth:`from_params` (``kind="value"``) or :func:`load_value_model`."""

    def _check_shapes(self, where: str) -> None:
        h = self.header
        if h.get("kind") != "value":
            raise ModelError(f"{where}: a world value model has kind 'value' (got {h.get('kind')!r})")
        layers = [int(x) for x in h.get("layers") or []]
        ok = (len(self.params) >= 1 and len(layers) == len(self.params) + 1
              and self.scale.shape == (WORLD_SIZE,) and layers[0] == WORLD_SIZE and layers[-1] == 1
              and all(w.ndim == 2 and b.shape == (w.shape[1],) and w.shape[0] == layers[i]
                      and w.shape[1] == layers[i + 1] for i, (w, b) in enumerate(self.params))
              and max(layers[1:]) <= MAX_WIDTH)
        if not ok:
            raise ModelError(f"{where}: its layers {layers} do not fit a value model over the world "
                             f"vector ({WORLD_SIZE} inputs, 1 output, layers of at most {MAX_WIDTH})")

    @classmethod
    def from_params(cls, params, kind: str = "value", preset: str = "block", scale=None,
                    **header) -> "ValueModel":
        """As :meth:`Model.from_params <dominoai.nets.model.Model.from_params>`,
        with the world vector's scale and header fields (``input``,
        ``world_encoding_version``).

        :raises ModelError: ``kind`` not ``"value"``, or shapes that do not
            chain from ``WORLD_SIZE`` to 1.
        """
        head = {"input": "world", "world_encoding_version": WORLD_ENCODING_VERSION, **header}
        return super().from_params(params, kind, preset,
                                   scale=world_scale() if scale is None else scale, **head)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The values (``float32``, ``(n, 1)``, or ``(1,)`` for one input) of
        world vectors ``x`` (``(n, WORLD_SIZE)`` or ``(WORLD_SIZE,)``), by the
        numba kernel.

        :raises ValueError: ``x``'s last axis is not ``WORLD_SIZE`` long.
        """
        x = np.asarray(x, np.float32)
        one = x.ndim == 1
        xs = np.ascontiguousarray(x[None] if one else x)
        if xs.ndim != 2 or xs.shape[1] != WORLD_SIZE:
            raise ValueError(f"world vectors have {WORLD_SIZE} entries (got shape {x.shape})")
        out = np.empty((xs.shape[0], 1), np.float32)
        forward_batch(xs, *self.packed(), out)
        return out[0] if one else out


def new_value_model(preset: str, hidden=(128, 64), seed: int = 0, **header) -> ValueModel:
    """A value model with fresh weights (He-normal, zero biases, the head's
    weights 100 times smaller) from ``numpy``'s generator of ``seed``.

    :raises ModelError: an unknown preset, or a layer wider than :data:`MAX_WIDTH`.
    """
    rng = np.random.default_rng(seed)
    sizes = [WORLD_SIZE, *[int(h) for h in hidden], 1]
    params = []
    for i in range(len(sizes) - 1):
        std = np.sqrt(2.0 / sizes[i]) * (0.01 if i == len(sizes) - 2 else 1.0)
        params.append((rng.normal(0.0, std, (sizes[i], sizes[i + 1])).astype(np.float32),
                       np.zeros(sizes[i + 1], np.float32)))
    return ValueModel.from_params(params, "value", preset, **header)


def load_value_model(name_or_path, preset: str | None = None, players: int | None = None) -> ValueModel:
    """A shipped value model by name (``PRESET-value``,
    :func:`~dominoai.nets.model.shipped_models`) or a model file.

    :param preset: when given, the model must have been trained for it.
    :param players: when given, the model must have been trained at tables
        of that many players (:attr:`~dominoai.nets.model.Model.players`).
    :raises ModelError: an unknown name, a file that is not a model of this
        format, a newer format version, not a value model over the world
        vector, another world encoding version, the wrong preset or the
        wrong players (one line each).
    """
    _, where, header, scale, params = read_model_file(name_or_path, kind="value")
    if header.get("kind") != "value" or header.get("input") != "world":
        raise ModelError(f"{where} is not a value model over the world vector")
    check_header(where, header, preset, ("world_encoding_version", "world encoding", WORLD_ENCODING_VERSION))
    return checked_model(ValueModel(params, scale, header), where, players)
