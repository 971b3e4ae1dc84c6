"""The browser, whole games as a player plays them: tapped on the board of a 390x844 phone
(touch events, confirm moves on) and clicked on a 1280x720 laptop, take-back used in each. At
every decision of the human: the prompt, every player's goods (the strip) and the part of the
board the decision is about are on the screen together; no text the page shows (the board's
included) is in engine notation; the board's text in view is 9 px or more, every legal spot's
hit area 44 px or more on the phone (48 px where its neighbours leave room).
Marked ``browser``."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
from browser_kit import errors, ready, smallest_board_text, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from web_phone import (  # noqa: E402  (benchmarks/web_phone.py)
    ENGINE_WORDS,
    TEXTS,
    phone,
    play_phone_game,
    summary,
)

# the decision's context, measured where the player sees it (viewport coordinates)
CONTEXT = """
const seen = (e) => { if (!e || !e.getClientRects().length) return false;
  const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; };
const board = document.getElementById("board"), b = board.getBoundingClientRect();
const part = (game.focus && board.querySelector(`svg [id="${game.focus}"]`))
  || board.querySelector("svg g.clickable") || document.getElementById(`strip-p${game.seat}`);
const r = part.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
const rows = [...document.querySelectorAll("#strip .row")];
return {decision: game.decision, status: seen(document.getElementById("status")),
        strip: rows.length === game.num_players && rows.every(seen),
        part: part.closest("#strip") ? seen(part) : x >= b.left && x <= b.right
              && y >= Math.max(b.top, 0) && y <= Math.min(b.bottom, innerHeight)};"""


def _engine_words(browser) -> list[str]:
    return [t.strip()[:80] for t in browser.execute_script(TEXTS) if ENGINE_WORDS.search(t)]


def _play_whole_game(browser, server, players: int, press, seed: str) -> dict:
    """Start a game against ``random`` from the form, then decide by ``press`` (a tap or a
    click) until the end, taking back one decision on the way; returns what was seen."""
    browser.get(server)
    ready(browser)
    Select(browser.find_element(By.ID, "players")).select_by_value(str(players))
    ready(browser)
    browser.find_element(By.ID, "seed").send_keys(seed)
    press(browser.find_element(By.ID, "start"))
    rnd, seen = random.Random(int(seed)), {"kinds": set(), "took_back": 0, "contexts": []}
    for _ in range(600):
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action:not([disabled])")
             or browser.find_element(By.ID, "final").is_displayed(), 60)
        if browser.find_element(By.ID, "final").is_displayed():
            break
        context = browser.execute_script(CONTEXT)
        seen["kinds"].add(context["decision"])
        seen["contexts"].append(context)
        assert _engine_words(browser) == [], context["decision"]
        back = browser.find_element(By.ID, "take-back")
        if back.is_displayed() and not seen["took_back"]:
            before = len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)"))
            press(back)
            wait(lambda b=before: len(browser.find_elements(
                By.CSS_SELECTOR, "#history li:not(.day)")) == b - 1)
            seen["took_back"] += 1
            continue
        buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.action:not([disabled])")
        press(rnd.choice(buttons))
        if browser.find_element(By.ID, "confirm-bar").is_displayed():
            press(browser.find_element(By.ID, "confirm-yes"))
    assert "Game over" in browser.find_element(By.ID, "status").text
    assert _engine_words(browser) == []  # the end table and the last board too
    return seen


def test_a_whole_game_tapped_on_the_board_of_a_phone(server, browser):
    """The phone goals, on a 390x844 touch screen (``benchmarks/web_phone.py`` plays it):
    every move with a place on the board made there, confirm on (a second tap on the move or
    the bar's button), one take-back; at every decision the prompt, the action bar, every
    player's goods and the decision's part of the board in view together; no press off screen,
    no sideways scroll, no notation; the end leads with the scores and replays at once, the
    replay's controls in view and its clock right at every step."""
    phone(browser)
    result = play_phone_game(browser, server, "random", seed=7, replay_steps=60)
    figures = summary(result)
    assert result["confirm_default"]  # a touch screen: confirm moves on
    assert figures["decisions"] >= 40 and figures["all_in_view"] == figures["decisions"], \
        [c for c in result["contexts"] if not all(c[k] for k in ("prompt", "bar", "strip",
                                                                 "part"))][:3]
    assert figures["board_moves"] >= 0.85 * (figures["board_moves"] + figures["button_moves"])
    assert figures["board_texts_9px_share"] >= 0.95  # the decision's part, at the default
    assert figures["legal_spots_44px_share"] >= 0.98
    assert figures["legal_spots_48px_share"] >= 0.90  # Material's 48 px where neighbours allow
    assert result["took_back"] == 1 and min(result["confirmed_by"].values()) >= 10
    assert result["off_screen"] == [] and result["sideways"] == []
    assert figures["hit_area_overlaps"] == 0  # every spot's hit area its own
    assert result["notation"] == [] and result["replay_notation"] == []
    assert "Game over by" in result["status"] and "Winner" in result["status"]
    assert result["end"] == {"scores": True, "replay": True}
    assert figures["replay_controls_hidden"] == 0 and figures["replay_clock_wrong"] == 0
    assert not result["replay_sideways"] and result["replay_nights"] >= 1
    assert errors(browser) == []


def test_a_whole_game_clicked_on_a_laptop_with_readable_board_text(server, browser):
    browser.set_window_size(1280, 720)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
    checked = []

    def click(element):
        element.click()
        if len(checked) < 3 and browser.find_elements(By.CSS_SELECTOR, "#board svg"):
            checked.append(smallest_board_text(browser))

    seen = _play_whole_game(browser, server, 3, click, seed="5")
    assert seen["took_back"] == 1 and len(seen["kinds"]) >= 8
    for context in seen["contexts"]:  # every player's row and the board's part, with the board
        assert context["status"] and context["strip"] and context["part"], context
    assert checked and min(checked) >= 9, checked  # px, at 1280x720
    assert errors(browser) == []


def test_the_phone_board_shows_the_decisions_part_and_the_whole_board_a_tap_away(server,
                                                                                 browser):
    """A phone's board shows the decision's part as large as its width allows (text 9 px and
    more, every legal spot in view); "whole board" shows all of it at full size (text 9 px and
    more) in a box of 42 % of the screen's height that pans both ways (the page itself never
    scrolls sideways), "focus" the part again, and the choice is kept when the page is opened
    again."""
    phone(browser)
    browser.get(server)
    browser.execute_script("localStorage.removeItem('machu-board')")
    browser.get(server)
    ready(browser)
    assert not browser.find_element(By.ID, "zoom").is_displayed()  # no game yet: no zoom
    browser.find_element(By.ID, "start").click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg g.clickable"))
    svg = browser.find_element(By.CSS_SELECTOR, "#board svg")
    inner = browser.execute_script("return innerWidth")
    assert abs(svg.rect["width"] - inner + 24) < 30  # the width of the screen
    assert smallest_board_text(browser) >= 9
    box = svg.rect
    for spot in browser.find_elements(By.CSS_SELECTOR, "#board svg g.clickable"):
        r = spot.rect  # every legal spot inside the part shown
        assert box["x"] - 1 <= r["x"] and r["x"] + r["width"] <= box["x"] + box["width"] + 1
        assert box["y"] - 1 <= r["y"] and r["y"] + r["height"] <= box["y"] + box["height"] + 1
    zoom = browser.find_element(By.ID, "zoom")
    assert zoom.text == "whole board" and zoom.rect["height"] >= 44
    zoom.click()
    assert zoom.text == "focus" and smallest_board_text(browser) >= 9
    svg = browser.find_element(By.CSS_SELECTOR, "#board svg")
    assert browser.execute_script("return arguments[0].getAttribute('viewBox')",
                                  svg).startswith("0 0 ")  # all of it
    box = browser.execute_script(
        "const b = document.getElementById('board'); return [b.getBoundingClientRect().height,"
        " innerHeight, b.scrollWidth > b.clientWidth, b.scrollHeight > b.clientHeight,"
        " document.documentElement.scrollWidth > innerWidth]")
    assert box[0] <= 0.42 * box[1] + 3 and box[2] and box[3] and not box[4], box
    panned = browser.execute_script(  # a drag's scroll pans the board, not the page
        "const b = document.getElementById('board'); b.scrollLeft = 120; b.scrollTop = 80;"
        " return [b.scrollLeft, b.scrollTop, scrollX]")
    assert panned[0] > 0 and panned[1] > 0 and panned[2] == 0, panned
    browser.refresh()  # kept: the whole board again
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg g.clickable"))
    assert browser.find_element(By.ID, "zoom").text == "focus"
    browser.find_element(By.ID, "zoom").click()
    assert smallest_board_text(browser) >= 9
    assert not errors(browser)
