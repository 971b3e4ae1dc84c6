"""The phone's board for thumbs: every legal spot has an invisible hit area of 48 x 48 px around
its piece where the neighbouring spots leave room (never under 44 px), no two areas meet, and a
tap anywhere in an area chooses its move. Marked ``browser``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("selenium.webdriver")
from browser_kit import errors, start, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from web_phone import phone  # noqa: E402

AREAS = """
const svg = document.querySelector("#board svg");
return [...svg.querySelectorAll("g.clickable")].map((g) => {
  const hit = svg.querySelector(`rect.hit[data-spot="${g.id}"]`).getBoundingClientRect();
  const piece = g.querySelector(":scope > rect").getBoundingClientRect();
  return {id: g.id, hit: [hit.left, hit.top, hit.right, hit.bottom],
          piece: [piece.left, piece.top, piece.right, piece.bottom]}; });"""


def _meet(a, b) -> bool:
    return (min(a[2], b[2]) - max(a[0], b[0]) > 0.5
            and min(a[3], b[3]) - max(a[1], b[1]) > 0.5)


def _tap(browser, x: float, y: float) -> None:
    browser.execute_cdp_cmd("Input.dispatchTouchEvent",
                            {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _spots(browser):
    return browser.execute_script(
        "return document.querySelectorAll('#board svg g.clickable').length")


@pytest.mark.parametrize("whole", [False, True])
def test_every_legal_spot_has_a_hit_area_and_a_tap_in_it_chooses_the_move(server, browser,
                                                                          whole):
    """At each of the first decisions, with the board showing the decision's part (the
    default) or the whole board (full size, in a box that pans): every legal spot's hit area
    holds its piece, meets no other and is 44 px or more, and most are 48 px. On the
    decision's part a tap in a moon tile's margin (off the piece) chooses its move."""
    phone(browser)
    browser.get(server)
    browser.execute_script("localStorage.setItem('machu-board', arguments[0])",
                           "whole" if whole else "part")
    start(browser, server, seed="7")
    if not browser.find_element(By.ID, "confirm-on").is_selected():
        browser.execute_script("document.getElementById('confirm-on').click()")
    tile = None
    for _ in range(12):
        areas = wait(lambda: _spots(browser) and browser.execute_script(AREAS))
        for a in areas:  # around its piece, never over another spot's
            hit, piece = a["hit"], a["piece"]
            assert hit[0] <= piece[0] + 0.5 and hit[1] <= piece[1] + 0.5, a
            assert hit[2] >= piece[2] - 0.5 and hit[3] >= piece[3] - 0.5, a
            assert not any(_meet(hit, b["hit"]) for b in areas if b is not a), a
        widths = [min(a["hit"][2] - a["hit"][0], a["hit"][3] - a["hit"][1]) for a in areas]
        assert min(widths) >= 43.5, (widths, [a["id"] for a in areas])
        assert sum(w >= 47.5 for w in widths) >= 0.75 * len(widths), widths
        tile = None if whole else next((a for a in areas if a["id"].startswith("moon-")
                     and max(a["hit"][3] - a["piece"][3], a["piece"][1] - a["hit"][1]) > 4),
                    None)
        if tile:
            break
        before = len(browser.find_elements(By.CSS_SELECTOR, "#history li"))
        spot = browser.find_element(By.CSS_SELECTOR, "#board svg g.clickable:not([id^=moon])")
        browser.execute_script("choose(Number(arguments[0].dataset.id));"
                               "document.getElementById('confirm-yes').click()", spot)
        wait(lambda b=before: len(browser.find_elements(By.CSS_SELECTOR, "#history li")) > b
             and _spots(browser))
    if whole:  # (full size: the pieces themselves are 40 px and more, no margin to tap)
        assert not errors(browser)
        return
    assert tile, "no moon tile to stay on in the first decisions"
    # a tap in the area but off the piece (its margin below, in the middle) chooses the move
    browser.execute_script("window.scrollTo(0, 0)")
    tile = next(a for a in browser.execute_script(AREAS) if a["id"] == tile["id"])
    below = tile["hit"][3] - tile["piece"][3] >= tile["piece"][1] - tile["hit"][1]
    x = (tile["piece"][0] + tile["piece"][2]) / 2  # (the wider margin's middle)
    y = (tile["piece"][3] + tile["hit"][3] if below else tile["piece"][1] + tile["hit"][1]) / 2
    _tap(browser, x, y)
    wait(lambda: browser.find_element(By.ID, "confirm-bar").is_displayed())
    chosen = browser.execute_script("return document.querySelector('#board svg g.chosen').id")
    assert chosen == tile["id"]
    assert not errors(browser)
