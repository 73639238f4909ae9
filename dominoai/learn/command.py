"""The ``dominoai train`` subcommand: a policy or a value network taught by
a bot's games (:func:`dominoai.learn.imitation.run_policy`,
:func:`dominoai.learn.value.run_value`), or a policy improved by PPO
(:func:`dominoai.learn.ppo.run_ppo`).

Every option is checked, each refusal one line, before anything is
written. Importing this module loads neither numba nor JAX: they are
imported when the command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import shutil
import sys
from pathlib import Path

from .._cli_support import UsageError, flag, int_at_least, presets_help, usage_error
from .._files import nearest_existing
from ..errors import InputError, check_jobs

__all__ = ["add_parser", "cmd_train"]


#: the options the policy and the value share, with their defaults
_TEACHING = {"deals": 2000, "epochs": 20, "learning_rate": 1e-3, "held_out": 0.1, "jobs": 1, "backend": None}
#: each kind's own ``train`` options and their defaults (an option of another kind is refused)
_TRAIN_OPTIONS = {
    "policy": {**_TEACHING, "teacher": "insane", "hidden": "128,128", "batch": 512,
               "action_features": False, "weight_decay": 0.0, "keep_best": False, "imitate": "choice",
               "temperature": 1.0},
    "value": {**_TEACHING, "teacher": "hard", "hidden": "64,32", "batch": 256,
              "rollouts": 8, "rollout_policy": None, "exact": 12, "max_nodes": 20000},
    "ppo": {"init": None, "iterations": 200, "num_envs": 256, "steps": 32, "hard_share": 0.5, "epochs": 4,
            "batch": 1024, "learning_rate": 3e-4, "clip": 0.1, "kl": 0.02},
}


#: options of ``train`` that need another to act: (option, its condition on
#: the arguments, the refusal); checked on the options as given, before the
#: defaults are filled in
_TRAIN_NEEDS = (
    ("keep_best", lambda a: a.held_out is None or not a.held_out <= 0,
     "--keep-best picks the epoch by its held-out loss: it needs --held-out above 0"),
    ("max_nodes", lambda a: a.exact is None or a.exact > 0,
     "--max-nodes is the exact solve's budget: it needs --exact above 0"),
    ("temperature", lambda a: a.imitate == "values",
     "--temperature applies to --imitate values only; add --imitate values or drop --temperature"),
)

#: the characters of a model's name (results record it beside the hash)
_MODEL_NAME = r"[A-Za-z0-9][A-Za-z0-9._+-]*"


def add_parser(sub) -> None:
    """Add the ``train`` subcommand to ``sub`` (the command's subparsers)."""
    tr = sub.add_parser("train", help="train a policy or value network, or improve a policy by PPO "
                                      "(needs dominoai[learn])",
                        description="--kind policy: play the teacher against itself on --deals deals (each in "
                                    "every seat rotation), keep each decision (observation vector, legal ids, "
                                    "the chosen id, the hand's margin) as DIR/data.npz, then train a policy "
                                    "network to predict the teacher's move. --kind value: keep every world "
                                    "after a play of the teacher's games, valued by the exact solver where it "
                                    "solves and by rollouts elsewhere, as DIR/data.npz, then train a value "
                                    "network on it. --kind ppo: start from the policy --init and improve it "
                                    "by PPO on the batched env against a league (hard, the start and earlier "
                                    "checkpoints). Each writes DIR/model.npz (for neural:model=DIR/model.npz "
                                    "or insane's value_model), DIR/log.parquet and DIR/curve.png.")
    tr.add_argument("--variant", required=True, metavar="NAME", help=f"a preset: {presets_help()}")
    tr.add_argument("--players", type=int_at_least(2), metavar="N",
                    help="number of players (default: the preset's)")
    tr.add_argument("--kind", choices=tuple(_TRAIN_OPTIONS), default="policy",
                    help="policy: imitate --teacher's moves (default); value: a world's value; "
                         "ppo: improve the policy --init by PPO")
    tr.add_argument("--deals", type=int_at_least(1), metavar="N",
                    help="policy, value: deals the teacher plays (default 2000)")
    tr.add_argument("--teacher", metavar="SPEC",
                    help="policy, value: the bot that plays the games (default: insane for a policy, "
                         "hard for a value)")
    tr.add_argument("--epochs", type=int_at_least(1), metavar="E",
                    help="passes over the training rows (policy, value: in all, default 20, so a resumed run "
                         "trains those its checkpoint lacks; ppo: over each iteration's, default 4)")
    tr.add_argument("--hidden", metavar="SIZES",
                    help="policy, value: hidden layer sizes, comma-separated (default 128,128 for a policy, "
                         "64,32 for a value)")
    tr.add_argument("--batch", type=int_at_least(1), metavar="N",
                    help="rows per training step (default: policy 512, value 256, ppo 1024)")
    tr.add_argument("--learning-rate", type=float, metavar="LR",
                    help="the optimizer's step (Adam, or AdamW with --weight-decay; default: policy and "
                         "value 0.001, ppo 0.0003)")
    tr.add_argument("--held-out", type=float, metavar="SHARE",
                    help="policy, value: share of the hands kept out of training to measure it (default 0.1)")
    tr.add_argument("--seed", type=int_at_least(0), default=0, metavar="S",
                    help="seed of the deals (a policy's offset by 10000), the split and the weights; ppo: of "
                         "each iteration's games and the critic's start (default 0)")
    pol = tr.add_argument_group("policy")
    pol.add_argument("--action-features", action="store_true", default=None,
                     help="add the action-feature block: a learned weighting of what each legal move scores, "
                          "sheds and leaves to the next seat (hard's features)")
    pol.add_argument("--weight-decay", type=float, metavar="WD",
                     help="AdamW's weight decay (default 0: plain Adam)")
    pol.add_argument("--keep-best", action="store_true", default=None,
                     help="keep the weights of the epoch with the lowest held-out loss (needs --held-out above 0)")
    pol.add_argument("--imitate", choices=("choice", "values"),
                     help="what the network learns: choice, the id the teacher chose (default); values, "
                          "the softmax of the teacher's move values over --temperature")
    pol.add_argument("--temperature", type=float, metavar="T",
                     help="--imitate values: the softmax's temperature, in the values' unit (points; default 1)")
    val = tr.add_argument_group("value")
    val.add_argument("--rollouts", type=int_at_least(1), metavar="N",
                     help="rollouts per world not solved exactly (default 8)")
    val.add_argument("--rollout-policy", choices=("random", "medium", "hard"),
                     help="the rollouts' policy (default: insane's in the preset)")
    val.add_argument("--exact", type=int_at_least(0), metavar="N",
                     help="solve exactly when at most N tiles can still be played (default 12; 0: never)")
    val.add_argument("--max-nodes", type=int_at_least(1), metavar="N",
                     help="the exact solve's node budget per world (default 20000; needs --exact above 0)")
    ppo = tr.add_argument_group("ppo")
    ppo.add_argument("--init", metavar="MODEL",
                     help="the policy to start from, a shipped name or a .npz file (default: the "
                          "preset's shipped policy)")
    ppo.add_argument("--iterations", type=int_at_least(1), metavar="N",
                     help="rounds of play and update, in all (default 200; the first 5 train the critic "
                          "only)")
    ppo.add_argument("--num-envs", type=int_at_least(1), metavar="N",
                     help="games played at once (default 256)")
    ppo.add_argument("--steps", type=int_at_least(1), metavar="N",
                     help="the learner's decisions per game slot per iteration, and more until a hand has ended "
                          "(default 32)")
    ppo.add_argument("--hard-share", type=float, metavar="SHARE",
                     help="share of the games against hard; the rest against the start and earlier "
                          "checkpoints (default 0.5)")
    ppo.add_argument("--clip", type=float, metavar="EPS", help="the ratio's clip range (default 0.1)")
    ppo.add_argument("--kl", type=float, metavar="COEF",
                     help="weight of the KL divergence from the starting policy in the loss (default 0.02)")
    tr.add_argument("--jobs", type=int, metavar="N",
                    help="policy, value: processes playing the teacher (-1: every core; at most the cores, "
                         "with a note; default 1)")
    tr.add_argument("--backend", choices=("dask", "ray"),
                    help="policy, value: play the teacher on a cluster through joblib")
    tr.add_argument("--out", required=True, metavar="DIR", help="the run's folder")
    tr.add_argument("--name", metavar="NAME",
                    help="the model's name, as results record it beside its hash: letters, digits, '.', '_', "
                         "'+' and '-' (default: the --out folder's name)")
    tr.add_argument("--resume", action="store_true",
                    help="go on in DIR: reuse its dataset (policy, value) and continue from its checkpoint "
                         "(the same settings; a changed one is refused, named)")
    tr.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="progress bars on stderr and, for policy and value, one line per epoch on stdout "
                         "(default on; --no-progress: only the closing line; the log is in DIR/log.parquet)")
    tr.set_defaults(func=cmd_train)


def _model_name(args) -> str:
    """The trained model's name: ``--name``, else the ``--out`` folder's
    name; a note on stderr when a shipped model has it (``neural:model=NAME``
    names the shipped one; a trained model is given by its file)."""
    given = args.name is not None
    name = args.name if given else os.path.basename(os.path.abspath(args.out))
    if not re.fullmatch(_MODEL_NAME, name):
        where = f"--name {name!r}" if given else f"the --out folder's name {name!r}"
        raise UsageError(f"{where} cannot name a model: use letters, digits, '.', '_', '+' and '-'"
                         + ("" if given else " (or give --name)"))
    from ..nets.model import shipped_models
    if name in shipped_models():
        print(f"dominoai: note: a shipped model is also named {name!r}; results tell the two apart by their "
              f"hash only (give another --name to tell them apart by name)", file=sys.stderr)
    return name


def _train_usage(e: Exception) -> UsageError:
    """The one-line error of a ``train`` library exception, each setting it
    names written as its option (``preset`` as ``--variant``; a setting the
    command has no option for, as the library names it)."""
    options = {k for opts in _TRAIN_OPTIONS.values() for k in opts} | {"players", "seed", "name", "out"}
    flags = {"preset": "--variant", "rows": "the dataset's rows"}
    if isinstance(e, InputError):
        return UsageError(e.worded(lambda f: flags.get(f) or (flag(f) if f in options else f)))
    return UsageError(str(e))


def cmd_train(args) -> int:
    """``dominoai train``: check the options of ``--kind`` against the others, fill in its
    defaults, then train; a folder the run made is removed again when it fails
    before writing a file."""
    from ..rules import get_rules, preset_names
    if args.variant not in preset_names():
        raise UsageError(f"unknown preset {args.variant!r}; presets are: {', '.join(preset_names())}")
    try:       # the tables' size, as the tournament takes it (the preset's count by default)
        args.players = get_rules(args.variant, **({} if args.players is None else {"players": args.players})).players
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not args.out.strip():
        raise UsageError("--out must name the run's folder (got an empty name)")
    own = _TRAIN_OPTIONS[args.kind]
    for k in dict.fromkeys(k for opts in _TRAIN_OPTIONS.values() for k in opts):
        if k not in own and getattr(args, k) is not None:
            kinds = " or ".join(kind for kind, opts in _TRAIN_OPTIONS.items() if k in opts)
            raise UsageError(f"--{k.replace('_', '-')} is an option of --kind {kinds}, not of --kind {args.kind}")
    for k, ok, refusal in _TRAIN_NEEDS:
        if k in own and getattr(args, k) and not ok(args):
            raise UsageError(refusal)
    for k, v in own.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    out = Path(args.out)
    if args.resume and not (out.is_dir() and any(out.iterdir())):
        # a mistyped --out would otherwise start a new run without a word
        where = "an empty folder" if out.is_dir() else "no such folder"
        print(f"dominoai: note: nothing to resume at --out {args.out} ({where}): training a new run", file=sys.stderr)
    with _cleared_if_empty(args.out):
        if args.kind == "ppo":
            return _train_ppo(args)
        return _train_teaching(args)


def _cleared_if_empty(out):
    """A context: when the body fails or is interrupted (Ctrl-C), remove the
    folders of ``out``'s path it made, if no file was written in them. A
    folder that existed before is never removed."""
    have = nearest_existing(out)
    target = Path(os.path.abspath(out))
    top = None          # the first folder of the path that does not exist yet
    if have != target:
        top = target
        while top.parent != have:
            top = top.parent

    @contextlib.contextmanager
    def ctx():
        try:
            yield
        except BaseException:
            if top is not None and top.is_dir() and all(p.is_dir() for p in top.rglob("*")):
                shutil.rmtree(top, ignore_errors=True)
            raise
    return ctx()


def _train_teaching(args) -> int:
    """``dominoai train --kind policy|value``: every option checked before
    anything is written."""
    policy = args.kind == "policy"
    try:
        hidden = tuple(int(x) for x in args.hidden.split(","))
        if not hidden or min(hidden) < 1:
            raise ValueError
    except ValueError:
        raise UsageError(f"--hidden must be positive integers joined by commas (got {args.hidden!r})") from None
    if not (args.learning_rate > 0 and args.learning_rate < float("inf")):
        raise UsageError(f"--learning-rate must be a positive finite number (got {args.learning_rate})")
    if not 0.0 <= args.held_out <= 0.9:
        raise UsageError(f"--held-out must be between 0 and 0.9 (got {args.held_out})")
    if policy and not (args.weight_decay >= 0 and args.weight_decay < float("inf")):
        raise UsageError(f"--weight-decay must be 0 or a positive number (got {args.weight_decay})")
    if policy and not (args.temperature > 0 and args.temperature < float("inf")):
        raise UsageError(f"--temperature must be a positive finite number (got {args.temperature})")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} is a file, not a folder")
    from ..bots import make_bot
    from ..bots.command import refuse_missing_model
    try:
        check_jobs(args.jobs)
        make_bot(args.teacher)
    except ValueError as e:
        raise usage_error(e) from None
    from ..rules import get_rules
    # e.g. a neural teacher without a model, or one trained at tables of another size
    refuse_missing_model(args.teacher, get_rules(args.variant, players=args.players))
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        raise UsageError("dominoai train needs jax and optax: pip install 'dominoai[learn]'") from None
    name = _model_name(args)
    common = dict(preset=args.variant, deals=args.deals, epochs=args.epochs, teacher=args.teacher, hidden=hidden,
                  batch=args.batch, learning_rate=args.learning_rate, held_out=args.held_out, seed=args.seed,
                  jobs=args.jobs, backend=args.backend, name=name, players=args.players)
    from .runs import PolicyRunSpec, ValueRunSpec
    try:
        if policy:
            from .imitation import run_policy as run
            spec = PolicyRunSpec(action_features=args.action_features, weight_decay=args.weight_decay,
                                 keep_best=args.keep_best, imitate=args.imitate, temperature=args.temperature,
                                 **common)
        else:
            from .value import run_value as run
            spec = ValueRunSpec(rollouts=args.rollouts, rollout_policy=args.rollout_policy, exact=args.exact,
                                max_nodes=args.max_nodes, **common)
        res = run(spec, args.out, resume=args.resume, progress=args.progress)
    except ValueError as e:
        raise _train_usage(e) from None
    except OSError as e:
        raise UsageError(f"cannot write the run's files in {args.out}: {e.strerror or e}") from None
    last = res.log[-1]
    part = "held" if args.held_out > 0 else "train"     # without held-out hands: the training rows'
    where = "held-out" if part == "held" else "training-row"
    if policy:
        print(f"model: {os.path.join(args.out, 'model.npz')} ({res.model.ident}); "
              f"{where} accuracy {last[part + '_accuracy']:.3f}, loss {last[part + '_loss']:.3f} "
              f"after {_epochs(last['epoch'])}")
    else:
        print(f"model: {os.path.join(args.out, 'model.npz')} ({res.model.ident}); "
              f"{where} mean squared error {last[part + '_mse']:.3f} after {_epochs(last['epoch'])}")
    return 0


def _epochs(n: int) -> str:
    """``"1 epoch"``, ``"20 epochs"``."""
    return f"{n} epoch" + ("" if n == 1 else "s")


def _train_ppo(args) -> int:
    """``dominoai train --kind ppo``: every option checked before anything is written."""
    if not (args.learning_rate > 0 and math.isfinite(args.learning_rate)):
        raise UsageError(f"--learning-rate must be a positive finite number (got {args.learning_rate})")
    if not 0.0 <= args.hard_share <= 1.0:
        raise UsageError(f"--hard-share must be between 0 and 1 (got {args.hard_share})")
    if not 0.0 < args.clip < 1.0:
        raise UsageError(f"--clip must be above 0 and below 1 (got {args.clip})")
    if not (args.kl >= 0 and math.isfinite(args.kl)):
        raise UsageError(f"--kl must be 0 or a positive number (got {args.kl})")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} is a file, not a folder")
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        raise UsageError("dominoai train needs jax and optax: pip install 'dominoai[learn]'") from None
    from ..nets.model import check_players, default_model_name, load_model
    from .ppo import DEFAULTS
    from .ppo import run_ppo as run
    from .runs import PPORunSpec
    name = _model_name(args)
    try:
        init = args.init or default_model_name(args.variant, "policy")
        start = load_model(init, preset=args.variant, kind="policy")
        if start.has_action_features:
            raise UsageError(f"--init {init}: PPO trains policies without the action-feature block; "
                                 "give --init a policy trained without --action-features")
        try:
            check_players(start, args.players, hint=False)
        except ValueError as e:
            raise UsageError(f"--init {init}: {e}; give --init a policy trained with "
                             f"--players {args.players}") from None
        spec = PPORunSpec(preset=args.variant, init=init, name=name, players=args.players,
                          iterations=args.iterations, num_envs=args.num_envs, steps=args.steps,
                          hard_share=args.hard_share, epochs=args.epochs, batch=args.batch,
                          learning_rate=args.learning_rate, clip=args.clip, kl=args.kl, seed=args.seed)
        res = run(spec, args.out, resume=args.resume, progress=args.progress)
    except ValueError as e:
        raise _train_usage(e) from None
    except OSError as e:
        raise UsageError(f"cannot write the run's files in {args.out}: {e.strerror or e}") from None
    last = res.log[-1]
    evals = [e for e in res.log if e["eval_hard"] == e["eval_hard"]]
    tail = (f"; greedy margin {evals[-1]['eval_hard']:+.2f} against {'hard'}, "
            f"{evals[-1]['eval_init']:+.2f} against the start" if evals else "")
    print(f"model: {os.path.join(args.out, 'model.npz')} ({res.model.ident}); {last['iteration']} iterations, "
          f"{last['hands']} hands{tail}")
    warmup = DEFAULTS["value_warmup"]
    if args.iterations <= warmup:     # the run is kept (its critic goes on with --resume): a note, not a refusal
        print(f"dominoai: note: all {args.iterations} of --iterations are value warm-up (the first {warmup} train "
              f"the critic only): the model is the starting policy {init} unchanged; give --iterations above "
              f"{warmup} (with --resume, the run goes on from here)", file=sys.stderr)
    return 0
