"""HTML replays (machu_env.views.replay_html, ``machu replay --html``, ``machu tournament --html``):
one self-contained page per game; the real-browser check is in test_browser.py."""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
from html import escape

import pytest

from machu_env import Game
from machu_env.cli import main
from machu_env.core.records import game_record
from machu_env.views.phrases import LABELS, say
from machu_env.views.replay_html import html_replay, replay_frames
from machu_env.views.svg import board_svg


def _finished(n: int = 2, seed: int = 3) -> Game:
    game, rnd = Game(n, seed=seed), random.Random(seed)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    return game


def _unpack(page: str) -> tuple[dict, list[str]]:
    meta = json.loads(re.search(r'<script type="application/json" id="meta">(.*?)</script>',
                                page, re.S).group(1))
    packed = re.search(r'<script type="text/plain" id="frames">(.*?)</script>', page,
                       re.S).group(1)
    return meta, gzip.decompress(base64.b64decode(packed)).decode().split("\0")


def test_the_page_holds_every_board_the_log_and_the_scores():
    game = _finished()
    page = html_replay(game_record(game, ["gold", "random"]))
    assert not re.search(r"(src|href)=\"?https?:", page)  # self-contained: no network
    meta, frames = _unpack(page)
    assert len(frames) == len(game.history) + 1 and len(meta["log"]) == len(game.history)
    replayed = Game(2, seed=3)
    assert frames[0] == board_svg(replayed)
    for k, (p, action) in enumerate(game.history):
        replayed.play(action)
        assert meta["log"][k]["player"] == p and meta["log"][k]["action"] == action
        assert meta["agents"][p] == ["gold", "random"][p] and "agent" not in meta["log"][k]
    assert frames[-1] == board_svg(game, None, game.history[-1])  # the last move outlined
    assert meta["result"]["scores"] == game.scores()
    for control in ('id="slider"', 'id="prev"', 'id="next"', "ArrowLeft", "ArrowRight"):
        assert control in page


def test_a_seats_replay_hides_the_other_players_cards_and_returns():
    for seed in range(6):
        game = _finished(3, seed)
        if any(a.startswith("return ") for p, a in game.history if p != 0):
            break
    else:
        pytest.fail("no game with another player's summit return")
    r = replay_frames(game_record(game), player=0)
    hidden = [e for e in r["log"] if e["player"] != 0 and e["action"].startswith("return")]
    assert hidden and all(e["action"] == "return a card" for e in hidden)
    everyone = game_record(game)
    theirs = {a["action"][7:] for a in everyone["actions"]
              if a["player"] != 0 and a["action"].startswith("return ")}
    assert not any(c in json.dumps(r["log"]) for c in theirs)
    assert all(f == board_svg_at(game, k, 0) for k, f in enumerate(r["frames"][:5]))
    full = replay_frames(everyone)
    assert any(e["action"].startswith("return ") and e["action"] != "return a card"
               and e["player"] != 0 for e in full["log"])


def board_svg_at(game: Game, k: int, player) -> str:
    """The board after ``k`` decisions as ``player`` sees it, the last one outlined."""
    from machu_env.rules.actions import visible_notation

    g = Game(game.num_players, seed=game.seed)
    for _, a in game.history[:k]:
        g.play(a)
    last = None if k == 0 else (game.history[k - 1][0],
                                visible_notation(game.history[k - 1][1],
                                                 game.history[k - 1][0], player))
    return board_svg(g, player, last)


def test_an_unfinished_game_and_names_that_are_not_markup():
    game = Game(2, seed=1)
    for _ in range(5):
        game.play(game.legal_action_ids()[0])
    record = game_record(game, ["</script><script>alert(1)</script>", "%FRAMES%"])
    page = html_replay(record)
    meta, frames = _unpack(page)
    assert meta["result"] is None and len(frames) == 6
    assert meta["agents"][0] == "</script><script>alert(1)</script>"  # data, not markup
    assert page.count("</script>") == 3


def test_machu_replay_html_and_tournament_html(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(_finished(), ["a", "b"])))
    assert main(["replay", str(path), "--html", str(tmp_path / "r.html"), "--view", "1"]) == 0
    meta, frames = _unpack((tmp_path / "r.html").read_text())
    assert len(frames) == len(meta["log"]) + 1
    for view, message in (("7", "player must be an int in 0..1"), ("me", "all, public or a "
                          "seat")):
        code = main(["replay", str(path), "--html", str(tmp_path / "x.html"), "--view", view])
        err = capsys.readouterr().err
        assert code == 2 and message in err and err.count("\n") == 1
        assert not (tmp_path / "x.html").exists()
    out = tmp_path / "t"
    assert main(["tournament", "--agents", "random,gold", "--players", "2", "--games", "2",
                 "--workers", "1", "--no-progress", "--out", str(out), "--records",
                 "--html"]) == 0
    pages = sorted((out / "records").glob("*.html"))
    assert [p.stem for p in pages] == ["game_00000", "game_00001"]
    record = json.loads((out / "records" / "game_00000.json").read_text())
    assert len(_unpack(pages[0].read_text())[1]) == len(record["actions"]) + 1
    code = main(["tournament", "--games", "2", "--html", "--out", str(tmp_path / "u")])
    assert code == 2 and "add --records" in capsys.readouterr().err


def test_replay_frames_outline_the_move_just_played():
    record = game_record(_finished(2, 4))
    frames = replay_frames(record)
    for frame, entry in zip(frames["frames"][1:], frames["log"], strict=True):
        assert escape(f"last: P{entry['player']} {say(entry['action'])}") in frame
        verb, _, where = entry["action"].partition(" ")
        if verb == "move":  # the district moved to is outlined, in a player's words
            assert escape(f"last move: P{entry['player']} moves the Prince to the "
                          f"{LABELS[where]}") in frame
    assert "last:" not in frames["frames"][0]


def test_every_replay_position_has_its_clock_and_its_part_of_the_board():
    """The clock of each position is the game's at that point (a night's payouts say "Night";
    a new day's first position its day), and the part of the board each move touched (a
    district, a moon tile, the market, a priest row) is named for the page to bring into view."""
    game = _finished(3, 5)
    frames = replay_frames(game_record(game))
    replayed = game.initial()
    assert frames["clock"] == "Day 2 of 9 · Day"  # (3 players start on day 2)
    nights = 0
    for (_, action), entry in zip(game.history, frames["log"], strict=True):
        replayed.play(action)
        night = replayed.decision in ("redeem", "take") and replayed.day < 9
        assert entry["clock"] == (f"Game over after day {replayed.day} of 9" if replayed.is_over
                                  else f"Day {replayed.day} of 9 · {'Night' if night else 'Day'}")
        nights += night
        verb, _, rest = action.partition(" ")
        if verb in ("move", "sunclock"):
            assert entry["focus"] == rest
        elif verb == "stay":
            assert entry["focus"] == f"moon-{rest}"
        elif verb in ("buy", "sell"):
            assert entry["focus"] == f"market-{rest}"
    assert nights > 0


def test_machu_replay_gif_writes_an_animation(tmp_path, capsys):
    from PIL import Image

    path = tmp_path / "game.json"
    record = game_record(_finished(2, 4))
    path.write_text(json.dumps(record))
    gif = tmp_path / "game.gif"
    assert main(["replay", str(path), "--gif", str(gif), "--every", "40", "--view",
                 "public"]) in (0, None)
    n = len(record["actions"])
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.n_frames == 1 + n // 40 + (n % 40 > 0)
        assert image.width == 800
    for args, message in ((["--gif", str(tmp_path / "x.png")], ".gif"),
                          (["--gif", str(tmp_path / "y.gif"), "--html",
                            str(tmp_path / "y.html")], "not both"),
                          (["--gif", str(tmp_path / "z.gif"), "--view", "9"], "0..1")):
        code = main(["replay", str(path), *args])
        assert code not in (0, None) and message in " ".join(capsys.readouterr().err.split())


def test_a_long_gif_is_capped_in_frames(tmp_path):
    """At most MAX_GIF_FRAMES frames (Pillow holds them all): a longer game
    is shown every k-th decision, and the command says so."""
    from PIL import Image

    from machu_env.views.replay_html import MAX_GIF_FRAMES, replay_gif

    record = game_record(_finished(2, 4))
    n = len(record["actions"])
    frames, every = replay_gif(record, tmp_path / "a.gif", max_frames=10, width=200)
    assert frames <= 10 and every == -(-n // 9)
    with Image.open(tmp_path / "a.gif") as image:
        assert image.n_frames == frames
    assert n < MAX_GIF_FRAMES  # the default cap leaves a short game whole


def test_every_move_has_a_phrase_in_a_players_words():
    """One vocabulary for what a person reads: every action of the notation
    table (and a hidden summit return) gets a phrase, never the notation itself."""
    from machu_env.rules.actions import ACTION_NOTATION
    from machu_env.views.phrases import DECISION_WORDS, HEADINGS, say

    for action in (*ACTION_NOTATION, "return a card"):
        phrase = say(action)
        assert phrase != action and "_" not in phrase, action
        assert action.split()[0] in HEADINGS
    from machu_env.engine.stages import DECISION_NAMES

    assert set(DECISION_WORDS) == set(DECISION_NAMES)


def test_a_replay_of_your_game_words_your_moves_in_the_second_person():
    from machu_env.views.phrases import say_you
    from machu_env.views.replay_html import packed_replay

    game, rnd = Game(2, seed=4), random.Random(4)
    for _ in range(12):
        game.play(rnd.choice(game.legal_action_ids()))
    log = packed_replay(game_record(game, ["you", "gold"]))["log"]
    assert len(log) == 12
    for entry in log:
        if entry["player"] == 0:
            assert entry["says_you"] == say_you(entry["action"]) != entry["says"]
        else:
            assert "says_you" not in entry
    assert all("says_you" not in e for e in packed_replay(game_record(game, ["gold", "gold"]))
               ["log"])
