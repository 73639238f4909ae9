"""Training runs as specs (:mod:`dominoai.learn.runs`): checked once,
the rules resolved once, and the ``dominoai train`` command derived from
the spec the same as the one trained models record."""
import json
import shlex

import numpy as np
import pytest

from dominoai.errors import InputError
from dominoai.learn.runs import PolicyRunSpec, PPORunSpec, RunFolder, ValueRunSpec, command_of

#: settings, and the command the hand-built policy command of before wrote for them
POLICY = [
    ({'preset': 'block',
      'deals': 3,
      'teacher': 'insane',
      'epochs': 2,
      'hidden': (16,),
      'batch': 64,
      'learning_rate': 0.001,
      'held_out': 0.1,
      'seed': 0},
     ('dominoai train --variant block --kind policy --deals 3 --teacher insane --epochs 2 --hidden 16 '
      '--batch 64 --learning-rate 0.001 --held-out 0.1 --seed 0')),
    ({'preset': 'block',
      'deals': 2000,
      'teacher': 'hard',
      'epochs': 20,
      'hidden': (128, 128),
      'batch': 512,
      'learning_rate': 0.01,
      'held_out': 0.0,
      'seed': 5,
      'players': 3},
     ('dominoai train --variant block --players 3 --kind policy --deals 2000 --teacher hard --epochs '
      '20 --hidden 128,128 --batch 512 --learning-rate 0.01 --held-out 0 --seed 5')),
    ({'preset': 'draw',
      'deals': 10,
      'teacher': 'insane',
      'epochs': 3,
      'hidden': (32, 16),
      'batch': 128,
      'learning_rate': 0.0003,
      'held_out': 0.2,
      'seed': 1,
      'action_features': True,
      'weight_decay': 0.0001,
      'keep_best': True,
      'imitate': 'values',
      'temperature': 1.5},
     ('dominoai train --variant draw --kind policy --deals 10 --teacher insane --epochs 3 --hidden '
      '32,16 --batch 128 --learning-rate 0.0003 --held-out 0.2 --seed 1 --action-features '
      '--weight-decay 0.0001 --keep-best --imitate values --temperature 1.5')),
    ({'preset': 'all_fives',
      'deals': 7,
      'teacher': 'insane',
      'epochs': 1,
      'hidden': (),
      'batch': 1,
      'learning_rate': 2,
      'held_out': 0.9,
      'seed': 3,
      'imitate': 'values',
      'temperature': 0.25,
      'players': 4,
      'weight_decay': 0.0},
     ('dominoai train --variant all_fives --players 4 --kind policy --deals 7 --teacher insane '
      '--epochs 1 --hidden  --batch 1 --learning-rate 2 --held-out 0.9 --seed 3 --imitate values '
      '--temperature 0.25')),
    ({'preset': 'kozel',
      'deals': 1000000,
      'teacher': 'medium',
      'epochs': 100,
      'hidden': (8,),
      'batch': 1000000,
      'learning_rate': 1e-05,
      'held_out': 0.05,
      'seed': 123,
      'keep_best': True},
     ('dominoai train --variant kozel --kind policy --deals 1000000 --teacher medium --epochs 100 '
      '--hidden 8 --batch 1000000 --learning-rate 1e-05 --held-out 0.05 --seed 123 --keep-best')),
]

VALUE = [
    ({'preset': 'draw',
      'deals': 3,
      'teacher': 'hard',
      'rollouts': 8,
      'rollout_policy': 'random',
      'exact': 12,
      'max_nodes': 20000,
      'epochs': 2,
      'hidden': (8,),
      'batch': 64,
      'learning_rate': 0.001,
      'held_out': 0.1,
      'seed': 0},
     ('dominoai train --variant draw --kind value --deals 3 --teacher hard --rollouts 8 '
      '--rollout-policy random --exact 12 --max-nodes 20000 --epochs 2 --hidden 8 --batch 64 '
      '--learning-rate 0.001 --held-out 0.1 --seed 0')),
    ({'preset': 'draw',
      'deals': 4,
      'teacher': 'insane',
      'rollouts': 2,
      'rollout_policy': 'hard',
      'exact': 0,
      'max_nodes': 1,
      'epochs': 6,
      'hidden': (64, 32),
      'batch': 256,
      'learning_rate': 0.003,
      'held_out': 0.0,
      'seed': 9,
      'players': 3},
     ('dominoai train --variant draw --players 3 --kind value --deals 4 --teacher insane --rollouts 2 '
      '--rollout-policy hard --exact 0 --max-nodes 1 --epochs 6 --hidden 64,32 --batch 256 '
      '--learning-rate 0.003 --held-out 0 --seed 9')),
    ({'preset': 'all_fives',
      'deals': 2000,
      'teacher': 'hard',
      'rollouts': 8,
      'rollout_policy': 'hard',
      'exact': 12,
      'max_nodes': 20000,
      'epochs': 20,
      'hidden': (64, 32),
      'batch': 256,
      'learning_rate': 0.001,
      'held_out': 0.1,
      'seed': 0,
      'players': 4},
     ('dominoai train --variant all_fives --players 4 --kind value --deals 2000 --teacher hard '
      '--rollouts 8 --rollout-policy hard --exact 12 --max-nodes 20000 --epochs 20 --hidden 64,32 '
      '--batch 256 --learning-rate 0.001 --held-out 0.1 --seed 0')),
]

PPO = [
    (('block', 'block-policy', {}),
     ('dominoai train --variant block --kind ppo --init block-policy --iterations 200 --num-envs 256 '
      '--steps 32 --hard-share 0.5 --epochs 4 --batch 1024 --learning-rate 0.0003 --clip 0.1 --kl 0.02 '
      '--seed 0')),
    (('block',
      'block-policy',
      {'players': 3,
       'iterations': 6,
       'num_envs': 8,
       'steps': 4,
       'hard_share': 0.5,
       'epochs': 1,
       'batch': 32,
       'learning_rate': 0.001,
       'clip': 0.2,
       'kl': 0.0,
       'seed': 2}),
     ('dominoai train --variant block --players 3 --kind ppo --init block-policy --iterations 6 '
      '--num-envs 8 --steps 4 --hard-share 0.5 --epochs 1 --batch 32 --learning-rate 0.001 --clip 0.2 '
      '--kl 0 --seed 2')),
    (('draw',
      'mine.npz',
      {'iterations': 1, 'hard_share': 1.0, 'kl': 0.5, 'seed': 7, 'learning_rate': 0.0003, 'players': 2}),
     ('dominoai train --variant draw --kind ppo --init mine.npz --iterations 1 --num-envs 256 --steps '
      '32 --hard-share 1 --epochs 4 --batch 1024 --learning-rate 0.0003 --clip 0.1 --kl 0.5 --seed 7')),
]


@pytest.mark.parametrize("settings, command", POLICY)
def test_policy_command_is_the_one_models_record(settings, command):
    assert command_of(PolicyRunSpec(**settings)) == command


@pytest.mark.parametrize("settings, command", VALUE)
def test_value_command_is_the_one_models_record(settings, command):
    assert command_of(ValueRunSpec(**settings)) == command


@pytest.mark.parametrize("given, command", PPO)
def test_ppo_command_is_the_one_models_record(given, command):
    preset, init, settings = given
    assert command_of(PPORunSpec(preset=preset, **settings), init=init) == command


def _spec_of_command(words):
    """The spec ``dominoai train`` builds for the command ``words`` (after
    ``dominoai train``), with the command's defaults."""
    from dominoai.cli import _TRAIN_OPTIONS, build_parser
    args = build_parser().parse_args(["train", *words, "--out", "run"])
    given = {k: v if getattr(args, k) is None else getattr(args, k) for k, v in _TRAIN_OPTIONS[args.kind].items()}
    if args.kind == "ppo":
        return PPORunSpec(preset=args.variant, players=args.players, seed=args.seed, **given), given["init"]
    given["hidden"] = tuple(int(h) for h in given["hidden"].split(","))
    cls = PolicyRunSpec if args.kind == "policy" else ValueRunSpec
    return cls(preset=args.variant, players=args.players, seed=args.seed, **given), None


def test_each_shipped_models_command_is_derived_again_from_its_spec():
    from dominoai.nets.model import shipped_models
    checked = 0
    for name, path in shipped_models().items():
        with np.load(path) as z:
            command = json.loads(str(z["header"][()]))["training_command"]
        words = shlex.split(command)
        if words[:2] != ["dominoai", "train"]:
            continue
        spec, init = _spec_of_command(words[2:])
        assert command_of(spec, **({"init": init} if init else {})) == command, name
        checked += 1
    assert checked >= 5


def test_a_spec_resolves_its_rules_once_and_is_frozen():
    import dataclasses
    spec = PolicyRunSpec("block", deals=3, players=3, hidden=[16])
    assert spec.rules.players == 3 and spec.players == 3 and spec.preset_players == 2
    assert spec.hidden == (16,) and spec.loop.epochs == 20 and spec.data_seed == 10_000
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.deals = 4
    v = ValueRunSpec("all_fives")
    assert v.rollout_policy == "hard" and v.players == v.preset_players == v.rules.players
    assert PPORunSpec("block").settings()["players"] == 2


@pytest.mark.parametrize("cls, settings, field", [
    (PolicyRunSpec, {"deals": 0}, "deals"),
    (PolicyRunSpec, {"imitate": "best"}, "imitate"),
    (PolicyRunSpec, {"temperature": 0}, "temperature"),
    (PolicyRunSpec, {"held_out": 0.95}, "held_out"),
    (PolicyRunSpec, {"action_features": True, "hidden": ()}, "hidden"),
    (PolicyRunSpec, {"players": 5}, "players"),
    (ValueRunSpec, {"rollout_policy": "smart"}, "rollout_policy"),
    (ValueRunSpec, {"max_nodes": 0}, "max_nodes"),
    (PPORunSpec, {"clip": 1.0}, "clip"),
    (PPORunSpec, {"hard_share": 0.001, "num_envs": 4}, "hard_share"),
])
def test_a_bad_setting_is_refused_naming_it(cls, settings, field):
    with pytest.raises(InputError) as e:
        cls(**settings)
    assert e.value.field == field and "\n" not in str(e.value)


def test_the_folder_refuses_a_used_folder_and_names_what_differs(tmp_path):
    from dominoai.learn.value import DATA_FIELDS, load_dataset, save_dataset
    out = tmp_path / "run"
    out.mkdir()
    (out / "model.npz").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"already holds model.npz; add --resume"):
        RunFolder(out, "value", ("data.npz", "model.npz"))
    folder = RunFolder(out, "value", ("data.npz", "model.npz"), resume=True)
    assert folder.reuse_dataset(load_dataset, {"deals": 3}, 2) == (None, None)
    data = {k: np.zeros((0,) + shape, dt) for k, (dt, shape, _) in DATA_FIELDS.items()}
    save_dataset(out / "data.npz", data, preset="draw", deals=3, seed=10_000)
    with pytest.raises(InputError, match=r"data.npz was made with other settings \(deals 3\)") as e:
        folder.reuse_dataset(load_dataset, {"preset": "draw", "deals": 4, "seed": 10_000}, 2,
                             {"preset": "draw", "deals": 4, "seed": 0})
    assert e.value.field == "deals"
    with pytest.raises(InputError, match=r"\(seed 0\)"):
        folder.reuse_dataset(load_dataset, {"preset": "draw", "deals": 3, "seed": 10_001}, 2,
                             {"preset": "draw", "deals": 3, "seed": 1})
    _, meta = folder.reuse_dataset(load_dataset, {"preset": "draw", "deals": 3, "players": 2}, 2)
    assert meta["deals"] == 3
    with pytest.raises(ValueError, match=r"holds a --kind value run"):
        RunFolder(out, "policy", ("data.npz",), resume=True)
