"""The SVG board (machu_env.views.svg) and its rasterised frames (the envs' rgb_array mode)."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from html import escape, unescape

import gymnasium as gym
import numpy as np
import pytest

import machu_env
from machu_env import Game
from machu_env.rules.data import CARDS, DISTRICTS, GOODS, PRODUCTION_DISTRICTS
from machu_env.views.phrases import DECISION_WORDS, SHORT_LABELS, card_words
from machu_env.views.render import render_text
from machu_env.views.svg import LABELS, board_size, board_svg

NS = "{http://www.w3.org/2000/svg}"


def _drawn(card: str) -> str:
    """A card's name as the picture writes it ("llama &amp; puma")."""
    return escape(card_words(card))


def _midgame(n: int, seed: int, moves: int) -> Game:
    game, rnd = Game(n, seed=seed), random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(rnd.choice(game.legal_action_ids()))
    return game


def _texts(element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{NS}text")]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_board_is_xml_of_a_size_fixed_by_the_player_count(n):
    sizes = set()
    for moves in (0, 40, 400):  # start, mid-game, (usually) over
        root = ET.fromstring(board_svg(_midgame(n, 7, moves), player=0))
        sizes.add((int(root.get("width")), int(root.get("height"))))
        assert {g.get("id") for g in root.iter(f"{NS}g")} >= {*DISTRICTS, "player0", "borders"}
    assert sizes == {board_size(n)}
    assert board_size(n)[0] == 1000 and board_size(n) != board_size(n + 1 if n < 5 else 2)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_a_players_picture_shows_no_other_players_cards(n):
    for seed in range(3):
        game = _midgame(n, seed, 60)
        everyone = game.view()["players"]
        for p in range(n):
            svg = board_svg(game, player=p)
            others = {c for q in range(n) if q != p for c in everyone[q]["cards"]}
            assert not [c for c in CARDS if c in others and _drawn(c) in svg]
            assert all(_drawn(c) in svg for c in everyone[p]["cards"])  # its own hand is shown
        public = board_svg(game, player="public")
        assert not [c for c in CARDS if _drawn(c) in public or c in public]
        full = board_svg(game)
        assert all(_drawn(c) in full for q in range(n) for c in everyone[q]["cards"])


def test_the_picture_holds_the_districts_incas_princes_and_trail():
    game = _midgame(4, 3, 90)
    v = game.view(0)
    root = ET.fromstring(board_svg(game, player=0))
    groups = {g.get("id"): g for g in root.iter(f"{NS}g")}
    for d in PRODUCTION_DISTRICTS:
        owners = [(p, pv["incas"][d]) for p, pv in enumerate(v["players"]) if pv["incas"][d]]
        counts = [f"P{p}\u00d7{n}" for p, n in owners]  # seat and count: "P1×2"
        princes = sorted(str(p) for p, pv in enumerate(v["players"]) if pv["prince"] == d)
        good = GOODS[DISTRICTS.index(d)]  # bonus goods: squares of the good's shape
        shapes = [u.get("href") for u in groups[d].iter(f"{NS}use")]
        assert shapes == [f"#good-{good}"] * v["bonus"][d]
        assert _texts(groups[d])[0] == SHORT_LABELS[d]
        assert sorted(_texts(groups[d])[1:]) == sorted([*counts, *princes])
        titles = [t.text for t in groups[d].iter(f"{NS}title")]  # tooltips say it in words
        assert LABELS[d] in titles  # (the full name)
        if v["bonus"][d]:
            assert titles.count(f"bonus: {v['bonus'][d]} {good}") == len(shapes)
        for p, n in owners:
            assert f"Player {p}: {n} Inca{'s' * (n != 1)} in {LABELS[d]}" in titles
        for p in princes:
            assert f"Player {p}'s Prince in {LABELS[d]}" in titles
    svg = board_svg(game, player=0)
    for p, pv in enumerate(v["players"]):
        assert f"Incas in supply {pv['incas_supply']}" in "".join(_texts(groups[f"player{p}"]))
    to_do, who = DECISION_WORDS[v["decision"]], v["current_player"]
    assert escape(f"P{who}'s turn: {to_do}") in svg or f"P{who} decides: {to_do}" in svg
    assert len(re.findall(r"<title>bonus: \d temple stones?</title>", svg)) == sum(
        v["bonus"][t] for t in ("condor_temple", "puma_temple", "sun_temple", "main_temple"))


def test_a_finished_game_shows_the_scores_and_the_winner():
    game = _midgame(3, 1, 2000)
    assert game.is_over
    svg = board_svg(game, player="public")
    for sc in game.scores():
        assert f"{sc['vp']} VP x {sc['multiplier']} = {sc['score']}" in svg
    assert svg.count("WINNER") == sum(sc["winner"] for sc in game.scores())
    assert "Game over after day" in svg


def test_notebooks_get_the_svg_and_bad_views_are_refused():
    game = Game(2, seed=0)
    assert game._repr_svg_() == board_svg(game)
    for bad in (2, -1, "0", True, 1.0):
        with pytest.raises(ValueError, match="player must be"):
            board_svg(game, player=bad)


# --- frames ---------------------------------------------------------------------------------
pytest.importorskip("resvg_py")


@pytest.mark.parametrize("n", [2, 5])
def test_rgb_array_frames_have_a_fixed_shape_and_show_the_renderers_view(n):
    env = machu_env.env(num_players=n, render_mode="rgb_array", render_player=0)
    env.reset(seed=3)
    first = env.render()
    width, height = board_size(n)
    assert first.shape == (height, width, 3) and first.dtype == np.uint8
    for _ in range(30):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    later = env.render()
    assert later.shape == first.shape and (later != first).any()
    assert first.std() > 10  # a picture, not a blank frame


def test_gymnasium_record_video_writes_a_video(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make("MachuPicchu-v0", num_players=2, render_mode="rgb_array"),
                      str(tmp_path / "videos"), episode_trigger=lambda episode: True,
                      disable_logger=True)
    env.reset(seed=0)
    for _ in range(5):
        mask = env.unwrapped.action_masks()
        env.step(int(np.flatnonzero(mask)[0]))
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 1000


def test_gymnasium_human_rendering_shows_the_frames(monkeypatch):
    pytest.importorskip("pygame")
    from gymnasium.wrappers import HumanRendering

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a window without a display
    env = HumanRendering(gym.make("MachuPicchu-v0", num_players=3, render_mode="rgb_array"))
    obs, info = env.reset(seed=0)
    for _ in range(3):
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.window is not None and env.window.get_size() == board_size(3)
    env.close()


def test_a_long_hand_at_the_end_never_runs_into_the_result():
    """With 10+ cards the panel's card list takes two lines, each ending
    before the right-aligned result ("34 VP x 3 = 102  WINNER")."""
    import re

    from machu_env import Game
    from machu_env.rules.data import CARDS
    from machu_env.views.svg import CHAR_W, MAP_X, WIDTH, _panel

    game = Game(3, seed=2)
    view = game.view(None)
    view["players"][0]["cards"] = list(CARDS[:12])
    view["players"][0]["num_cards"] = 12
    scores = [{"vp": 34, "multiplier": 3, "score": 102, "winner": True}] * 3
    texts = [(x, y, unescape(t)) for x, y, t in re.findall(
        r'<text x="(\d+)" y="(\d+)"[^>]*>([^<]*)</text>', "".join(_panel(view, 0, scores, 0)))]
    result = next(t for t in texts if "WINNER" in t[2])
    cards = [t for t in texts if "card" in t[2] or " & " in t[2]]
    assert len(cards) == 2 and "12 cards" in cards[0][2]
    listed = ", ".join(c[2] for c in cards).replace(",, ", ", ")
    assert all(card_words(c) in listed for c in CARDS[:12])
    right_start = int(result[0]) - CHAR_W[13] * len(result[2])
    for x, y, text in cards:
        assert int(x) + CHAR_W[12] * len(text) < right_start or int(y) != int(result[1])
        assert int(x) + CHAR_W[12] * len(text) < WIDTH - MAP_X


def test_a_tile_being_redeemed_at_night_is_still_named_in_its_owners_panel():
    """R7.1: at night each moon tile goes back to the board before its owner pays for a goods
    tile; the view says which tile the decision is about (``redeeming``), and the text and the
    picture name it beside the player's other tiles."""
    rng = random.Random(3)
    for seed in range(300):
        game = Game(2, seed=seed)
        while not game.is_over and not (game.decision == "redeem" and game.day < 9):
            game.play(rng.choice(game.legal_action_ids()))
        if not game.is_over:
            break
    p = game.current_player
    mine = game.view(p)["players"][p]
    tile = mine["redeeming"]
    assert tile in ("llama", "coca", "pottery", "cloth") and tile not in mine["moon_tiles"]
    assert tile in game.view(p)["moon_tiles"]  # back on the board already
    assert game.legal_actions() == [f"redeem {tile}", f"forgo {tile}"]
    assert f"{tile} (redeeming)" in render_text(game)
    assert f"{tile} (redeeming)" in board_svg(game, p)
    assert game.view(p)["players"][1 - p]["redeeming"] is None
    game.play(f"forgo {tile}")
    assert all(q["redeeming"] is None for q in game.view()["players"])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_text_on_the_board_is_at_least_twelve_units(players):
    """The web page draws the board at 0.8 of its size or more at 1280x720: 12 units make 9 px
    (and on a phone's readable board, drawn at its own size, 12 px)."""
    from machu_env.views.svg import MIN_TEXT

    game = _midgame(players, 5, 70)
    root = ET.fromstring(board_svg(game, player=0, last=(1, game.history[-1][1])))
    sizes = [float(t.get("font-size")) for t in root.iter(f"{NS}text")]
    assert sizes and min(sizes) >= MIN_TEXT == 12


@pytest.mark.parametrize("players", [2, 5])
def test_the_phone_picture_has_every_part_with_the_maps_texts_under_the_map(players):
    """The phone's picture: as wide as the map, every part a move can name (the same ids as
    the wide picture), the moon tiles and the trail written at the districts' size (a phone
    shows them at the map's scale), no players' panels; a layout it does not know is refused."""
    from machu_env.views.svg import MAP_TEXT, PHONE_WIDTH, board_size

    game = _midgame(players, 5, 70)
    wide = ET.fromstring(board_svg(game, player=0))
    phone = ET.fromstring(board_svg(game, player=0, layout="phone"))
    assert phone.get("width") == str(PHONE_WIDTH) and board_size(players, "phone")[0] < 700
    named = {g.get("id") for g in phone.iter(f"{NS}g") if g.get("id")}
    assert named == {g.get("id") for g in wide.iter(f"{NS}g") if g.get("id")
                     and not g.get("id").startswith("player")}
    groups = {g.get("id"): g for g in phone.iter(f"{NS}g")}
    for part in [*PRODUCTION_DISTRICTS, "moon-coca", "trail-7", "trail-20"]:
        sizes = [float(t.get("font-size")) for t in groups[part].iter(f"{NS}text")]
        assert sizes and min(sizes) >= MAP_TEXT, part
    top = {part: float(next(groups[part].iter(f"{NS}rect")).get("y")) for part in
           [*DISTRICTS, "moon-coca", "market-llama", "trail-0", "trail-20"]}
    bottom = max(top[d] + float(next(groups[d].iter(f"{NS}rect")).get("height"))
                 for d in DISTRICTS)
    assert bottom < top["moon-coca"] < top["market-llama"] < top["trail-0"] < top["trail-20"]
    with pytest.raises(ValueError, match="layout must be one of wide, phone"):
        board_svg(game, player=0, layout="tall")


def test_the_heading_and_the_last_moves_caption_never_meet():
    """The heading has the first line to itself (no "active player": "player 1's turn"); the
    last move's caption shares the second line with the line about the picture and is cut
    (with an ellipsis) before it reaches it."""
    import re

    from machu_env.views.svg import CHAR_W, MAP_X, WIDTH

    rng = random.Random(9)
    for n in (2, 5):
        game = Game(n, seed=n)
        while not game.is_over:
            p, action = game.history[-1] if game.history else (None, None)
            svg = board_svg(game, game.current_player, (p, action) if p is not None else None)
            texts = re.findall(r'<text x="(\d+)" y="(\d+)" font-size="(\d+)" '
                               r'text-anchor="(\w+)"[^>]*>([^<]*)</text>', svg)
            head = [t for t in texts if t[1] == "30"]
            assert len(head) == 1 and "active player" not in head[0][4]
            line = {t[3]: t for t in texts if t[1] == "47"}
            if "start" in line:
                caption, about = line["start"], line["end"]
                right_edge = MAP_X + CHAR_W[12] * len(unescape(caption[4]))
                assert right_edge < WIDTH - MAP_X - CHAR_W[12] * len(unescape(about[4])), svg
            game.play(rng.choice(game.legal_action_ids()))


def test_every_good_has_one_shape_defined_once_and_no_letter_a_seat_could_share():
    """The goods read without colour and without letters ("P1" pottery beside the "P1" seat):
    each chip is the good's colour with its own shape (``#good-<name>``), defined once in the
    picture, its word in the tooltip."""
    game = _midgame(3, 2, 60)
    svg = board_svg(game, player=0)
    root = ET.fromstring(svg)
    symbols = {s.get("id") for s in root.iter(f"{NS}symbol")}
    assert symbols == {f"good-{g}" for g in GOODS}
    shapes = {s.get("id"): s.find(f"{NS}path").get("d") for s in root.iter(f"{NS}symbol")}
    assert len(set(shapes.values())) == len(GOODS)  # five different shapes
    for g in root.iter(f"{NS}g"):
        if "good" in (g.get("class") or "").split():
            name = g.get("class").split()[1]
            assert [u.get("href") for u in g.iter(f"{NS}use")] == [f"#good-{name}"]
            assert name in g.find(f"{NS}title").text
            assert not [t for t in g.iter(f"{NS}text")]  # no letter on the chip


def test_the_others_earlier_moves_are_outlined_thin_beside_the_last_one():
    """``earlier``: the others' decisions before the last one since the viewer's own, each
    outlined thin and dashed on the parts it names (the last one keeps its thick outline and
    caption; a part both name is outlined once, thick)."""
    from machu_env.views.svg import named_parts

    game = _midgame(3, 4, 40)
    earlier = [(1, "move sun_temple"), (2, "stay coca"), (2, "move central_plaza")]
    last = (1, "move central_plaza")
    root = ET.fromstring(board_svg(game, player=0, last=last, earlier=earlier))
    thin = [r for r in root.iter(f"{NS}rect") if r.get("class") == "earlier"]
    titles = sorted(r.find(f"{NS}title").text for r in thin)
    assert titles == ["earlier: P1 moves the Prince to the Sun Temple",
                      "earlier: P2 stays and takes the coca moon tile"]  # (the plaza: the last's)
    assert all(r.get("stroke-dasharray") for r in thin)
    assert named_parts("stay coca") == ["moon-coca"]
    plain = ET.fromstring(board_svg(game, player=0, last=last))
    assert not [r for r in plain.iter(f"{NS}rect") if r.get("class") == "earlier"]
