"""What a probe means in words: the exploiter's win share against break-even, where it places the
agent among the shipped agents' probes, and how this probe differs from the published protocol."""

from __future__ import annotations

from typing import Any

PROTOCOL_STEPS = 1_500_000  # the published probes' exploiter training (docs/probing.md)
# the published probes' seeds: a shipped agent's figure is the mean of one probe on each
PROTOCOL_SEEDS = (101, 103, 105, 107, 109, 111)


def verdict(summary: dict[str, Any], requested_steps: int | None = None) -> list[str]:
    """The lines a user reads: the exploiter's win share with its interval against
    break-even and its score margin; where that places the agent among the shipped agents'
    probes (every one of them is beaten more often than break-even, so that alone does not
    discriminate); and what makes this probe differ from the protocol (fewer steps, the steps
    past ``--steps``, the best of several exploiters)."""
    share, (lo, hi) = summary["exploiter_win_share"], summary["ci95"]
    even, players = summary["break_even"], summary["players"]
    meaning = ("a fresh exploiter beats it more often than break-even" if lo > even else
               "no exploiter found that beats it more often than break-even")
    lines = [f"verdict: the exploiter won {share:.1%} (95 % CI {lo:.1%}-{hi:.1%}) of "
             f"{summary['eval_games']:,} games against {summary['agent']} (break-even "
             f"{even:.0%}), margin {summary['exploiter_margin']:+.1f} points: {meaning}"]
    shipped = shipped_probes(players)
    steps = summary["steps"]
    if shipped and steps < PROTOCOL_STEPS:  # (a less trained exploiter wins less: no place)
        lines.append(f"a short probe: {steps:,} steps where the protocol trains "
                     f"{PROTOCOL_STEPS:,}; a less trained exploiter wins less, so compare it "
                     "only with probes of the same length (the shipped agents' are "
                     f"{PROTOCOL_STEPS:,} steps)")
    elif shipped:
        easier = [n for n, v in shipped if v < share]
        place = ("harder to exploit than every shipped agent" if not easier else
                 "easier to exploit than every shipped agent" if len(easier) == len(shipped)
                 else f"between {easier[-1]} and {shipped[len(easier)][0]}")
        lines.append(f"the shipped {players}-player agents' probes (1.5M steps, lower is "
                     "harder to exploit): " + ", ".join(f"{n} {v:.1%}" for n, v in shipped)
                     + f"; this one is {place}")
    if steps < PROTOCOL_STEPS and not shipped:
        lines.append(f"a short probe: {steps:,} steps where the protocol trains "
                     f"{PROTOCOL_STEPS:,}; a less trained exploiter wins less, so this figure "
                     "understates the protocol's")
    if requested_steps is not None and steps > requested_steps:
        lines.append(f"trained {steps:,} steps: whole rollouts (n_envs x n_steps), the first "
                     f"past --steps {requested_steps:,}")
    if "member_starts" in summary:
        lines.append(f"the best of {len(summary['member_starts'])} exploiters (one per "
                     "member of the population); its interval does not allow for picking the "
                     "best, so read it as an upper figure")
    return lines


def shipped_probes(players: int) -> list[tuple[str, float]]:
    """(name, probe win share) of the shipped agents for ``players`` that have one, lowest
    (hardest to exploit) first; the recommended one named by its alias too."""
    from machu_env.agents.catalogue import catalogue

    out = []
    for row in catalogue(players):
        probe = row.get("probe") or {}
        if isinstance(probe.get("value"), (int, float)):
            name = f"{row['alias']} ({row['name']})" if row["alias"] else row["name"]
            out.append((name, float(probe["value"])))
    return sorted(out, key=lambda x: x[1])
