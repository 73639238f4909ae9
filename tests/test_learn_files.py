"""A training run's own files (dataset, checkpoint) that are damaged or
not such files at all: each is refused in one line naming the file and
the way on, by the library (ValueError) and by ``dominoai train``
(exit 2, nothing written)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dominoai.cli import main
from dominoai.learn.training import checkpoint_state, read_npz

HINT = "remove it to start again, or train in another --out folder"


def _checkpoint(path):
    """A small file in the checkpoint layout (``state`` JSON and a leaf)."""
    with open(path, "wb") as f:
        np.savez(f, state=np.array(json.dumps({"log": [], "settings": {"kind": "policy"}})),
                 leaf0=np.arange(4000, dtype=np.float32))


def test_a_checkpoint_reads_back(tmp_path):
    _checkpoint(tmp_path / "checkpoint.npz")
    assert checkpoint_state(tmp_path / "checkpoint.npz") == {"log": [], "settings": {"kind": "policy"}}


@pytest.mark.parametrize("damage, reason", [
    ("text", "not an .npz archive"),
    ("truncated", "a damaged .npz archive"),
    ("no state", "it has no 'state' array"),
])
def test_a_damaged_checkpoint_is_one_line(tmp_path, damage, reason):
    path = tmp_path / "checkpoint.npz"
    if damage == "text":
        path.write_text("junk\n")
    elif damage == "truncated":
        _checkpoint(path)
        path.write_bytes(path.read_bytes()[:2000])
    else:
        np.savez(path, leaf0=np.zeros(3))
    with pytest.raises(ValueError) as ei:
        checkpoint_state(path)
    assert str(ei.value) == f"{path} is not a dominoai checkpoint ({reason}); {HINT}"


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(ValueError, match=r"^cannot read .*gone\.npz: No such file or directory$"):
        read_npz(tmp_path / "gone.npz", "dataset", lambda z: None)


def test_ppo_refuses_a_damaged_checkpoint(tmp_path):
    pytest.importorskip("jax", reason="PPO's checkpoint holds jax trees: the [learn] extra")
    from dominoai.learn.ppo import _load_checkpoint
    path = tmp_path / "checkpoint.npz"
    path.write_text("junk\n")
    with pytest.raises(ValueError, match=r"is not a dominoai checkpoint \(not an \.npz archive\)"):
        _load_checkpoint(path, None, None)


@pytest.mark.parametrize("damage", ["text", "truncated"])
def test_train_refuses_a_damaged_dataset_in_one_line(tmp_path, capsys, damage):
    """``--resume`` in a folder whose ``data.npz`` is damaged: one line,
    exit 2, before any play, and the folder is left as it was."""
    out = tmp_path / "run"
    out.mkdir()
    data = out / "data.npz"
    if damage == "text":
        data.write_text("junk\n")
    else:
        np.savez_compressed(data, meta=np.array("{}"), obs=np.random.default_rng(0).random((500, 50)))
        data.write_bytes(data.read_bytes()[:3000])
    before = data.read_bytes()
    assert main(["train", "--variant", "block", "--deals", "2", "--epochs", "1", "--out", str(out),
                 "--resume", "--no-progress"]) == 2
    reason = "not an .npz archive" if damage == "text" else "a damaged .npz archive"
    assert capsys.readouterr().err == f"dominoai: error: {data} is not a dominoai dataset ({reason}); {HINT}\n"
    assert sorted(p.name for p in out.iterdir()) == ["data.npz"] and data.read_bytes() == before
