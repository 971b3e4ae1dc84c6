"""Recorded play: games of any agents — the compiled heuristics (``random``, ``builder``,
``gold``, ``racer``, played inside the batch kernels) and single trained policies (``ppo-2p``,
``policy:<file>``, asked in one batched forward pass per decision round) — played many at a time
on the batch engine, every decision recorded (the decider's observation and legal actions, the
action) in chunks. The imitation that starts a training run (``imitate``) and the datasets of
``machu dataset`` (``dataset``) read them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from machu_env.core.checks import check_int, check_seed
from machu_env.core.game import Game
from machu_env.engine import batch as K
from machu_env.engine import pool as O
from machu_env.engine import recording as R
from machu_env.engine.observation import OBS_MAX_SIZE, OBS_SIZES
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.rules.data import NUM_CARDS

COMPILED = {name: kind for kind, name in enumerate(O.COMPILED_NAMES)}
MAX_GAMES = 10_000_000


@dataclass
class Chunk:
    """The recorded games of one batch (``n`` games, up to ``T`` decisions each)."""

    first: int  # the index of its first game
    seatings: list[list[str]]  # the agent of every seat, per game
    obs: np.ndarray  # (decisions, OBS_MAX_SIZE) float32: the decider's view before each move
    masks: np.ndarray  # (decisions, NUM_ACTIONS) int8: its legal actions
    rows: np.ndarray  # (n, T): the row of game i's t-th decision in obs and masks
    actions: np.ndarray  # (n, T) int32
    seats: np.ndarray  # (n, T) int8: who decided
    lengths: np.ndarray  # (n,)
    final_obs: np.ndarray  # (n, players, OBS_MAX_SIZE): every seat's view of the last state
    games: list[Game]  # the last state of every game (scores, end) with its deal and history


class _Policy:
    """A single trained policy asked in batches (its file's temperature; seeded sampling)."""

    def __init__(self, name: str, seed: int) -> None:
        import torch

        from machu_env.agents import make_agent
        from machu_env.agents.policy import PolicyAgent
        from machu_env.agents.policy_file import observation_version

        agent = make_agent(name, seed)
        if not isinstance(agent, PolicyAgent) or agent.is_population:
            raise ValueError(f"agent {name!r}: machu dataset plays the compiled heuristics "
                             f"({', '.join(COMPILED)}) and single trained policies (shipped "
                             "names, policy:<file>); not populations, search or mcts")
        self.net, self.temperature, _ = agent.members[0]
        self.size = OBS_SIZES[observation_version(self.net.config)]
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            x = torch.as_tensor(obs[:, :self.size])
            m = torch.as_tensor(masks.astype(bool))
            if self.temperature == 0:
                return self.net.probabilities(x, m).argmax(1).numpy().astype(np.int32)
            p = self.net.probabilities(x, m, self.temperature)
            return torch.multinomial(p, 1, generator=self.generator)[:, 0].numpy().astype(
                np.int32)


def check_agents(agents: list[str], num_players: int) -> None:
    """One agent for every seat, or one for all; ValueError naming what is allowed."""
    if not agents or len(agents) not in (1, num_players) or not all(
            isinstance(a, str) and a for a in agents):
        raise ValueError(f"give one agent for all seats or one per seat ({num_players}), "
                         f"comma-separated; got {agents!r}")


def play_recorded(agents: list[str], num_players: int, games: int, seed: int = 0,
                  chunk: int = 512, max_decisions: int = 1000) -> Iterator[Chunk]:
    """Play ``games`` games, ``chunk`` at a time; game ``g`` seats ``agents`` rotated by ``g``
    (every agent plays every seat). A game still running after ``max_decisions`` decisions is
    cut (its episodes end truncated)."""
    check_int("num_players", num_players, 2, 5)
    check_int("games", games, 1, MAX_GAMES)
    check_int("chunk", chunk, 1, 4096)
    check_int("max_decisions", max_decisions, 10, 5000)
    seed = check_seed("seed", seed)
    check_agents(agents, num_players)
    seating = agents * num_players if len(agents) == 1 else list(agents)
    policies = {name: _Policy(name, seed + 7 * k) for k, name in enumerate(dict.fromkeys(seating))
                if name not in COMPILED}
    names = list(dict.fromkeys(seating))
    for first in range(0, games, chunk):
        n = min(chunk, games - first)
        yield _play_chunk(first, n, seating, names, policies, num_players, seed, max_decisions)


def _play_chunk(first, n, seating, names, policies, num_players, seed, max_decisions) -> Chunk:
    states = np.zeros((n, L.STATE_SIZE), dtype=np.int32)
    bufs = np.zeros((n, NUM_ACTIONS), dtype=np.int32)
    counts = np.zeros(n, dtype=np.int32)
    rngs = K.seed_streams(seed, n, 1 + first // n if n else 1)  # a stream per chunk
    K.reset_all(states, bufs, counts, rngs, num_players, False)
    initial = states.copy()
    seatings = [seating[-(g % num_players):] + seating[:-(g % num_players)] if g % num_players
                else list(seating) for g in range(first, first + n)]
    kinds = np.full((n, num_players), -1, dtype=np.int64)  # compiled kind per seat, or -1
    owner = np.zeros((n, num_players), dtype=np.int64)  # the agent's index in ``names``
    for i, row in enumerate(seatings):
        for p, name in enumerate(row):
            kinds[i, p] = COMPILED.get(name, -1)
            owner[i, p] = names.index(name)
    seats = np.zeros((n, max_decisions), dtype=np.int8)
    rows = np.zeros((n, max_decisions), dtype=np.int64)  # the row of each decision
    actions = np.zeros((n, max_decisions), dtype=np.int32)
    lengths = np.zeros(n, dtype=np.int64)
    noise = np.zeros((n, NUM_ACTIONS), dtype=np.float64)
    obs_parts, mask_parts, total = [], [], 0
    while True:
        live = np.flatnonzero((counts > 0) & (lengths < max_decisions))
        if not live.size:
            break
        obs = np.empty((live.size, OBS_MAX_SIZE), dtype=np.float32)
        masks = np.empty((live.size, NUM_ACTIONS), dtype=np.int8)
        R.record_deciders(states, bufs, counts, live, lengths, obs, masks, seats, rows, total)
        obs_parts.append(obs)
        mask_parts.append(masks)
        total += live.size
        deciders = states[live, L.DECIDER]
        chosen = np.zeros(live.size, dtype=np.int32)
        compiled = kinds[live, deciders] >= 0
        if compiled.any():
            idx = live[compiled]
            out = np.zeros(idx.size, dtype=np.int32)
            R.compiled_choices(states, bufs, counts, rngs, kinds, O.HEURISTIC_WEIGHTS, noise,
                               idx, out)
            chosen[compiled] = out
        for name, policy in policies.items():
            mine = ~compiled & (owner[live, deciders] == names.index(name))
            if mine.any():
                chosen[mine] = policy(obs[mine], masks[mine])
        if not masks[np.arange(live.size), chosen].all():  # what step_recorded would trust
            raise ValueError("an agent chose an action outside its legal mask; nothing of "
                             "this chunk is written")
        R.step_recorded(states, bufs, counts, live, chosen, lengths, actions)
    final = np.zeros((n, num_players, OBS_MAX_SIZE), dtype=np.float32)
    R.final_observations(states, num_players, final)
    games_out = [_game(states[i], bufs[i], counts[i], initial[i], actions[i, :lengths[i]],
                       seats[i, :lengths[i]], num_players) for i in range(n)]
    return Chunk(first, seatings, np.concatenate(obs_parts), np.concatenate(mask_parts), rows,
                 actions, seats, lengths, final, games_out)


def _game(state, buf, count, initial, actions, seats, num_players) -> Game:
    """The finished (or cut) game as a ``Game`` with its deal and history (no replay)."""
    from machu_env.rules.actions import ACTION_NOTATION

    game = Game._from_arrays(num_players, None, False, state, buf, count,
                             [(int(p), ACTION_NOTATION[a]) for p, a in zip(seats, actions,
                                                                             strict=True)])
    hands = [[c for c in range(NUM_CARDS) if int(initial[L.player_base(p) + L.P_HAND]) >> c & 1]
             for p in range(num_players)]
    top, size = int(initial[L.DECK_TOP]), int(initial[L.DECK_COUNT])
    game.setup = {"start_player": int(initial[L.START_PLAYER]), "hands": hands,
                  "deck": [int(initial[L.DECK + (top + k) % NUM_CARDS]) for k in range(size)]}
    return game


# --- writing: Minari's HDF5 layout, fast -----------------------------------------------------
