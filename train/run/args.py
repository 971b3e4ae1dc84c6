"""Every setting of a training run and of the probe, declared once (``settings.setting``: the
type, the default, the range and the help), in a module that imports neither torch nor the
envs, so that ``machu --help`` derives its options from it on the core install. ``PPOArgs``
holds the algorithm's settings (``ppo.PPOSettings`` adds their checks), ``TrainArgs`` the
run's (``config.TrainConfig``)."""

from __future__ import annotations

from dataclasses import dataclass

from machu_env.train.run.settings import redefault, setting

MAX_MINUTES = 7 * 24 * 60  # a week: the longest time budget a run or a recipe takes
MAX_THREADS = 256  # torch threads (torch.set_num_threads(100000) crashes the process)
MAX_WORKERS = 1024  # rollout workers
MAX_EVAL_GAMES = 100_000  # games per opponent per evaluation (all played at once)
MAX_POOL = 64  # max_snapshots, max_exploiters: frozen networks kept in the pool
MAX_SACRIFICES = 50  # stop_at_sacrifices: a goal of sacrifices a game (a game has far fewer)


@dataclass
class PPOArgs:
    """The algorithm's settings (sb3-contrib MaskablePPO's meaning); the probe's defaults."""


    n_envs: int = setting(128, "games played in parallel (0: sized to the machine, 64 a thread, "
                          "128 on 2 cores)", 0)
    n_steps: int = setting(128, "steps per game per PPO rollout (0: sized to the machine: "
                           "16,384 / n_envs, 128 on 2 cores)", 0)
    batch_size: int = setting(4096, "PPO minibatch size", 1)
    n_epochs: int = setting(4, "PPO epochs per rollout", 1, 100)
    learning_rate: float = setting(0.0003, "Adam learning rate", 0, 1, above=True)
    gamma: float = setting(0.995, "discount factor", 0, 1, above=True)
    gae_lambda: float = setting(0.95, "GAE lambda", 0, 1, above=True)
    clip_range: float = setting(0.2, "PPO clip range", 0, 10, above=True)
    ent_coef: float = setting(0.01, "entropy bonus", 0, 10)
    vf_coef: float = setting(0.5, "value loss weight", 0, 1000)
    max_grad_norm: float = setting(0.5, "gradient norm clip", 0, 1e6, above=True)
    precision: str = setting('fp32', "fp32, or bf16 (autocast; CPUs with bfloat16 arithmetic)",
                             choices=("fp32", "bf16"))
    ent_coef_final: float = setting(-1.0,
        "decay the entropy bonus linearly to this over the run (-1: no schedule)", 0, 10,
        unset=-1.0)
    magnet_coef: float = setting(0.0,
        "weight of the reverse KL to the magnet policy (MMD; train/ppo/ppo.py)", 0, 10)
    magnet_every: int = setting(0,
        "updates between magnet resets to the current policy (0: the uniform magnet)", 0)
    cut_as_loss: bool = setting(False,
        "a game still running at the decision limit counts as a loss (-1) instead of a time "
        "limit")
    learning_rate_final: float = setting(-1.0,
        "decay the learning rate linearly to this over the run (-1: no schedule)", 0, 1,
        unset=-1.0)
    torch_compile: bool = setting(False,
        "run the PPO update through torch.compile (needs a C++ compiler; compiling takes a "
        "while)")


@dataclass
class TrainArgs(PPOArgs):
    """A training run's own settings (and its defaults for ``n_envs``, ``n_steps`` and
    ``n_epochs``: sized, sized and 2, where the probe's are 128, 128 and 4).
    The defaults are the time-to-strength recipe: a fresh policy first imitates ``gold``."""


    # a run's own defaults for three of the algorithm's settings (their declarations: PPOArgs)
    n_envs: int = redefault(PPOArgs, "n_envs", 0)
    n_steps: int = redefault(PPOArgs, "n_steps", 0)
    n_epochs: int = redefault(PPOArgs, "n_epochs", 2)
    players: int = setting(2, "number of players", 2, 5)
    timesteps: int = setting(20000000, "learner decisions in total", 1, resumable=True)
    seed: int = setting(0, "seeds the games, the pool draws and torch", 0, 2**32 - 1)
    out: str = setting('runs/selfplay', "the run folder", resumable=True)
    net_arch: str = setting('',
        "the network: shared:256,256 (one trunk that both heads read) or 256,256 (a policy "
        "and a value network); empty: the --init policy's own shape, else shared:256,256")
    pool: str = setting('random:0.05,builder:0.25,gold:0.45,self:0.25',
        "opponent pool weights (random, builder, gold, racer, self)")
    reward: str = setting('win', "win, rank or score (machu_env.core.reward_modes)")
    snapshot_every: int = setting(1000000, "steps between snapshots", 1)
    max_snapshots: int = setting(8, "frozen snapshots kept in the pool", 1, MAX_POOL)
    eval_every: int = setting(0,
        "steps between evaluations (0: 65,536 with --stop-at, to stop near the goal; else "
        "500,000)", 0)
    eval_games: int = setting(400, "games per opponent per evaluation", 1, MAX_EVAL_GAMES)
    eval_opponents: str = setting('random,builder,gold',
        "the heuristics evaluated at every checkpoint (gold among them; gold alone is "
        "fastest)")
    stop_at: float = setting(0.0,
        "end the run at the first evaluation whose win share against gold reaches this (0: "
        "train all --timesteps)", 0, 1)
    stop_at_sacrifices: float = setting(0.0,
        "end the run at the first evaluation where the learner sacrifices this often a game "
        "against gold (0: never)", 0, MAX_SACRIFICES)
    imitate: str = setting('gold',
        "a fresh policy (not --init, not --resume) first imitates this compiled heuristic "
        "(gold, builder, racer, random) on its own games: a head start (\"\": none)")
    imitate_games: int = setting(2000, "--imitate: games of the heuristic at every seat", 1, 100000)
    imitate_epochs: int = setting(4, "--imitate: epochs over them", 1, 100)
    device: str = setting('auto', "torch device: auto (a GPU if there is one), cpu, cuda...",
                          resumable=True)
    threads: int = setting(0, "torch and numba threads (0: every core this process may use)",
                           0, MAX_THREADS, resumable=True)
    overlap: bool = setting(False,
        "collect the next rollout on a thread of its own while the learner updates (one "
        "update of policy lag; --threads are split between the two)", resumable=True)
    league: bool = setting(False,
        "league training: exploiters of the main agent join the pool "
        "(train/run/selfplay.py)")
    exploiter_every: int = setting(2000000, "league: main steps between exploiters", 1)
    exploiter_steps: int = setting(500000, "league: training steps of each exploiter", 1)
    exploiter_share: float = setting(0.5, "league: the exploiters' share of the self weight", 0, 1)
    max_exploiters: int = setting(4, "league: exploiters kept in the pool", 1, MAX_POOL)
    exploit_greedy: bool = setting(False,
        "league: exploiters train against the main agent's deterministic play (as tournaments "
        "and `machu exploit` play it) instead of its sampled play")
    exploiter_ppo: str = setting('learner',
        "league: the exploiters' PPO settings: learner (the learner's own) or probe (machu "
        "exploit's: clip 0.2, 4 epochs, whatever the learner's)", choices=("learner", "probe"))
    exploiter_init: str = setting('main',
        "league: where each exploiter starts: main (the main agent's weights) or last (the "
        "newest exploiter's, which keeps adapting)", choices=("main", "last"))
    init: str = setting('',
        "start from this trained policy (ppo-2p-v1, policy:<file>) instead of fresh weights")
    frozen: str = setting('',
        "comma-separated policies (shipped names, policy:<file>) that stay in the pool all "
        "run long beside the exploiters, sharing --exploiter-share with them: frozen "
        "exploiters of earlier probes, say")
    observation: int = setting(0,
        "the observation version: 1, 2 (with the race for the gold majority) or 3 (and the "
        "history summary); 0: the --init policy's own, else 1; --init from a shorter version "
        "widens its input", 0, 3)
    ray: str = setting('',
        "run the rollout workers as Ray actors and the evaluations against the heuristics "
        "as Ray tasks: --ray alone joins or starts a local instance; auto or ray://host:port "
        "a cluster (the ray extra)", resumable=True)
    rollout_workers: int = setting(0,
        "split the games over this many rollout workers, each with a copy of the policy "
        "(threads here; Ray actors with --ray); 0: one here, one per cluster CPU with --ray",
        0, MAX_WORKERS, resumable=True)
    eval_agents: str = setting('',
        "trained agents also evaluated at every checkpoint: 'ladder' (the shipped agents, "
        "weakest first, up to the first not beaten) or comma-separated names; they never "
        "enter training")
    eval_start: bool = setting(True,
        "evaluate the starting policy before training (it is best.safetensors until an "
        "evaluation beats it); off: the first evaluation is at --eval-every")
    league_games: int = setting(0,
        "league: games against each pool member per evaluation (0: --eval-games)", 0,
        MAX_EVAL_GAMES)
    pfsp: float = setting(0.0,
        "league: draw each exploiter and snapshot in proportion to (1 - your win share "
        "against it) ** PFSP (prioritised fictitious self-play; 0: equally)", 0, 10)
    minutes: float = setting(0.0,
        "end the run (with a checkpoint) once this many minutes have passed since it first "
        "started (0: no time budget)", 0, MAX_MINUTES, resumable=True)
    recipe: str = setting('',
        "train a shipped recipe from scratch, every phase (RECIPES); with it only "
        "RECIPE_OPTIONS apply (--minutes and --timesteps are budgets: its phases "
        "end at their share of either, so --timesteps gives the same schedule on any machine)")
    machine_class: str = setting('',
        "--recipe: the recipe's schedule for a class of machine (its batch settings; empty: "
        "the first class this machine meets, else base: the phases as written)")
    head_start: float = setting(0.0,
        "a curriculum: the share of training games in which the learner starts holding one "
        "priest card, free (to meet the temples; evaluations play the rules)", 0, 1)
