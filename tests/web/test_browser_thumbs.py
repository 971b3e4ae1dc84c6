"""The phone's board for thumbs: every legal spot has an invisible hit area of 44 x 44 px around
its piece where the neighbouring spots leave room, no two areas meet, and a tap anywhere in an
area chooses its move. Marked ``browser``."""

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


@pytest.mark.parametrize("zoomed", [False, True])
def test_every_legal_spot_has_a_hit_area_and_a_tap_in_it_chooses_the_move(server, browser,
                                                                          zoomed):
    phone(browser)
    browser.get(server)
    browser.execute_script("localStorage.setItem('machu-zoom', arguments[0])",
                           "zoomed" if zoomed else "fit")
    start(browser, server, seed="7")
    areas = wait(lambda: browser.execute_script(
        "return document.querySelectorAll('#board svg g.clickable').length") and
        browser.execute_script(AREAS))
    assert len(areas) >= 5  # the first Inca: a district of each good
    for a in areas:  # around its piece, never over another spot's
        hit, piece = a["hit"], a["piece"]
        assert hit[0] <= piece[0] + 0.5 and hit[1] <= piece[1] + 0.5, a
        assert hit[2] >= piece[2] - 0.5 and hit[3] >= piece[3] - 0.5, a
        assert not any(_meet(hit, b["hit"]) for b in areas if b is not a), a
    widths = [min(a["hit"][2] - a["hit"][0], a["hit"][3] - a["hit"][1]) for a in areas]
    pieces = [min(a["piece"][2] - a["piece"][0], a["piece"][3] - a["piece"][1])
              for a in areas]
    if zoomed:  # the board at its own size: every district's area is a thumb's and more
        assert min(widths) >= 44, widths
    else:  # fitted to 390 px: the areas fill the room between the districts
        assert min(widths) > 1.1 * max(pieces) and min(widths) >= 40, (widths, pieces)
    if zoomed:  # (a district's piece is larger than a thumb there: no margin to tap in)
        assert not errors(browser)
        return
    # a tap in the area but off the piece (its margin below, in the middle) chooses the move
    if not browser.find_element(By.ID, "confirm-on").is_selected():
        browser.execute_script("document.getElementById('confirm-on').click()")
    browser.execute_script("window.scrollTo(0, 0)")
    areas = browser.execute_script(AREAS)  # (where they are now)
    a = max(areas, key=lambda a: a["hit"][3] - a["piece"][3])
    x, y = (a["piece"][0] + a["piece"][2]) / 2, (a["piece"][3] + a["hit"][3]) / 2
    assert a["hit"][3] - a["piece"][3] > 2  # a margin below the piece to tap in
    _tap(browser, x, y)
    wait(lambda: browser.find_element(By.ID, "confirm-bar").is_displayed())
    chosen = browser.execute_script("return document.querySelector('#board svg g.chosen').id")
    assert chosen == a["id"]
    assert not errors(browser)
