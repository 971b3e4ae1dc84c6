"""The browser, whole games as a player plays them: tapped on a 390x844 phone (touch events,
confirm-moves on) and clicked on a 1280x720 laptop, take-back used in each. At every decision
of the human: the decision, their own goods and cards, the others' moves since theirs and the
part of the board the decision is about are on the screen together; no text the page shows
(the board's included) holds an engine identifier; the board's text is 9 px or more. Marked
``browser``."""

from __future__ import annotations

import random
import re

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
from browser_kit import errors, ready, smallest_board_text, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

# what the engine calls things, never what a player reads: snake_case names (potters_quarter,
# market_adjust), goods joined without a space (llama,pottery), and the notation's own verbs
ENGINE_WORDS = re.compile(r"\b[a-z]+_[a-z_]+\b|\b(corn|llama|coca|pottery|cloth),[a-z]"
                          r"|\bsunclock\b|\bforgo (corn|llama|coca|pottery|cloth|trail[23])\b"
                          r"|\bmove [a-z]+_")

TEXTS = """return [...(function* walk(n) {
  for (const c of n.childNodes) {
    if (c.nodeType === 3 && c.textContent.trim()) yield c.textContent;
    else if (c.nodeType === 1 && !["SCRIPT", "STYLE"].includes(c.tagName)) yield* walk(c);
  }
})(document.body)];"""

# the decision's context, measured where the player sees it (viewport coordinates)
CONTEXT = """
const seen = (e) => { if (!e || e.offsetParent === null) return false;
  const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; };
const board = document.getElementById("board"), b = board.getBoundingClientRect();
const part = game.focus ? board.querySelector(`svg [id="${game.focus}"]`)
                        : board.querySelector("svg g.clickable");
const r = part.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
const since = document.getElementById("since");
return {decision: game.decision, status: seen(document.getElementById("status")),
        you: seen(document.getElementById("you")),
        move: seen(document.querySelector("#actions button.action")),
        since: since.offsetParent === null ? null : seen(since),
        part: x >= b.left && x <= b.right && y >= Math.max(b.top, 0)
              && y <= Math.min(b.bottom, innerHeight)};"""


def _tap(browser, element) -> None:
    """A finger's tap: the element scrolled to the middle of the screen, then a touch at its
    centre (Chrome turns it into a click on whatever is drawn there)."""
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    box = browser.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                 "return [r.left + r.width / 2, r.top + r.height / 2]", element)
    point = {"x": box[0], "y": box[1]}
    browser.execute_cdp_cmd("Input.dispatchTouchEvent",
                            {"type": "touchStart", "touchPoints": [point]})
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


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


def test_a_whole_game_tapped_on_a_phone(server, browser):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                            {"enabled": True, "maxTouchPoints": 1})
    browser.get(server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    assert browser.find_element(By.ID, "confirm-on").is_selected()  # a touch screen: confirm
    seen = _play_whole_game(browser, server, 2, lambda e: _tap(browser, e), seed="7")
    assert seen["took_back"] == 1
    # every kind of decision a game of random moves reaches, each with its context on screen
    assert {"start", "move", "produce", "place", "market_adjust", "market_trade", "redeem",
            "sunclock", "take", "offer"} <= seen["kinds"]
    for context in seen["contexts"]:
        assert context["status"] and context["you"] and context["move"], context
        assert context["since"] in (None, True) and context["part"], context
    assert any(c["since"] for c in seen["contexts"])  # the opponent's moves, in words
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
    assert checked and min(checked) >= 9, checked  # px, at 1280x720
    assert errors(browser) == []


def test_the_phone_board_text_is_nine_pixels_or_more(server, browser):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "start").click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    assert smallest_board_text(browser) >= 9
