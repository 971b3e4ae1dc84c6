"""A tournament's seatings: every ordered selection of the players from the agents named,
counted and indexed without being built (40 names at 5 players make 78,960,960 of them)."""

from __future__ import annotations

import collections
import functools
from collections.abc import Sequence

MAX_AGENT_NAMES = 64  # names in one tournament (repeats included)


class Seatings(Sequence):
    """The distinct seatings: ordered selections of ``num_players`` of the agents (each entry
    of ``agents`` used at most once; repeat a name to seat it twice), in lexicographic order.
    Counted and indexed without being built (40 names at 5 players make 78,960,960 of them):
    seating ``i`` is computed from ``i`` when its game starts."""

    def __init__(self, agents: Sequence[str], num_players: int) -> None:
        if len(agents) < num_players:
            raise ValueError(f"{num_players} players need at least {num_players} agents "
                             f"(repeat a name to seat it more than once); got {len(agents)}: "
                             f"{list(agents)}")
        if len(agents) > MAX_AGENT_NAMES:
            raise ValueError(f"a tournament seats at most {MAX_AGENT_NAMES} agent names, got "
                             f"{len(agents)}")
        counts = collections.Counter(agents)
        self.names = sorted(counts)
        self.counts = [counts[n] for n in self.names]
        self.players = num_players
        self._len = _arrangements(_shape(self.counts, num_players), num_players)

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(f"seating {index} of {len(self)}")
        index %= len(self)
        counts, seating = list(self.counts), []
        for left in range(self.players - 1, -1, -1):
            for k, name in enumerate(self.names):
                if not counts[k]:
                    continue
                counts[k] -= 1
                n = _arrangements(_shape(counts, left), left)
                if index < n:
                    seating.append(name)
                    break
                index -= n
                counts[k] += 1
        return tuple(seating)


def _shape(counts: Sequence[int], k: int) -> tuple[int, ...]:
    """What the number of arrangements depends on: the counts (capped at ``k``), sorted."""
    return tuple(sorted((min(c, k) for c in counts if c), reverse=True))


@functools.lru_cache(maxsize=65536)
def _arrangements(shape: tuple[int, ...], k: int) -> int:
    """Distinct sequences of length ``k`` drawn from a multiset whose counts are ``shape``."""
    if k == 0:
        return 1
    total = last = 0
    for i, c in enumerate(shape):
        if i and c == shape[i - 1]:
            total += last  # (the same count: the same number of arrangements)
            continue
        rest = list(shape)
        rest[i] -= 1
        last = _arrangements(_shape(rest, k - 1), k - 1)
        total += last
    return total


def seatings(agents: Sequence[str], num_players: int) -> Seatings:
    """The distinct seatings of ``agents`` at ``num_players`` (``Seatings``)."""
    return Seatings(agents, num_players)
