"""``machu analyze`` (agents/analysis.py) on records whose answers the test knows: it
plays the games itself, counting its own choices and watching every hand and summit as they
happen."""

from __future__ import annotations

import json
import random

import pytest

from machu_env import Game
from machu_env.agents.analysis import analyze, game_stats
from machu_env.cli import main
from machu_env.core.records import game_record

PREFER = ("sacrifice", "sunclock", "acquire", "offer", "buy", "sell", "place")


def _play(seed: int, greedy_seat: int) -> tuple[dict, dict]:
    """A 2-player game: ``greedy_seat`` takes the first legal action of a preferred kind (a
    sacrifice of llamas, a Sun Clock placement...), the other plays at random. Returns the record
    (agents ``greedy`` and ``random``) and what the test saw: per seat, its choices by kind and
    the summits it reached (a hand grown by one card, or 3 summit VP more)."""
    game, rng = Game(2, seed=seed), random.Random(seed)
    seen = {p: {"sacrifice": 0, "sunclock": 0, "acquire": 0, "trade": 0, "summit": 0}
            for p in range(2)}

    def hands():
        return [(pl["num_cards"], pl["summit_vp"]) for pl in game.view(None)["players"]]
    before = hands()
    while not game.is_over and len(game.history) < 2000:
        p, legal = game.current_player, game.legal_actions()
        pick = rng.choice(legal)
        if p == greedy_seat:
            for verb in PREFER:
                wanted = [a for a in legal if a.split()[0] == verb
                          and a not in ("sacrifice 0", "offer none")]
                if wanted:
                    pick = wanted[0]
                    break
        verb = pick.split()[0]
        if verb == "sacrifice" and pick != "sacrifice 0":
            seen[p]["sacrifice"] += 1
        elif verb in ("sunclock", "acquire"):
            seen[p][verb] += 1
        elif verb in ("buy", "sell"):
            seen[p]["trade"] += 1
        game.play(pick)
        after = hands()
        for q in range(2):
            seen[q]["summit"] += (after[q][0] - before[q][0]) + (after[q][1] - before[q][1]) // 3
        before = after
    names = ["greedy" if q == greedy_seat else "random" for q in range(2)]
    return game_record(game, names), {"seen": seen, "scores": game.scores(), "game": game}


def test_per_game_figures_match_what_the_player_did():
    record, truth = _play(seed=3, greedy_seat=0)
    stats = game_stats(json.loads(json.dumps(record)))
    assert stats["end"] == truth["game"].end and stats["decisions"] == len(truth["game"].history)
    for p in range(2):
        seat = stats["seats"][p]
        for kind, count in truth["seen"][p].items():
            assert seat["decisions"][kind] == count, (p, kind)
        for key in ("vp", "gold", "multiplier", "score"):
            assert seat[key] == truth["scores"][p][key]
        assert sum(seat["vp_by"].values()) == truth["scores"][p]["vp"]
    assert truth["seen"][0]["sacrifice"] + truth["seen"][0]["sunclock"] > 0  # it did choose


def test_the_summary_per_agent_and_pairing(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    truths = []
    for k in range(6):
        record, truth = _play(seed=10 + k, greedy_seat=k % 2)
        (folder / f"game_{k:05d}.json").write_text(json.dumps(record))
        truths.append((k % 2, truth))
    summary = analyze(folder)
    pairing = summary["pairings"]["greedy vs random"]
    assert summary["games"] == pairing["games"] == 6
    wins = sum(t["scores"][g]["winner"] for g, t in truths)  # (no ties in these seeds)
    assert pairing["agents"]["greedy"]["win_share"] == pytest.approx(wins / 6, abs=1e-3)
    sacrifices = sum(t["seen"][g]["sacrifice"] for g, t in truths) / 6
    assert pairing["agents"]["greedy"]["decisions"]["sacrifice"] == pytest.approx(sacrifices,
                                                                                 abs=1e-3)
    gold_wins = [t["scores"][max(range(2), key=lambda q: t["scores"][q]["gold"])]["winner"]
                 for _, t in truths
                 if t["scores"][0]["gold"] != t["scores"][1]["gold"]]
    assert pairing["gold_leader_won"] == pytest.approx(sum(gold_wins) / len(gold_wins),
                                                       abs=1e-3)
    assert sum(pairing["decided_by"].values()) == 6
    assert summary["agents"]["random"]["games"] == 6


def test_machu_analyze_writes_json_and_a_picture(tmp_path, capsys):
    folder = tmp_path / "t" / "records"
    folder.mkdir(parents=True)
    for k in range(2):
        (folder / f"game_{k}.json").write_text(json.dumps(_play(20 + k, k)[0]))
    assert main(["analyze", str(folder)]) in (0, None)
    out = capsys.readouterr().out
    assert "greedy vs random: 2 games" in out
    assert (tmp_path / "t" / "analysis" / "analysis.json").is_file()
    assert (tmp_path / "t" / "analysis" / "analysis.png").stat().st_size > 5000
    (folder / "bad.json").write_text("{}")
    assert main(["analyze", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and err.count("\n") == 1
    assert main(["analyze", str(tmp_path / "nothing")]) == 2
    assert "not a folder of game records" in capsys.readouterr().err
