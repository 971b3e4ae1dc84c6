"""Every screen fits the phone's visible width: measured on the visual viewport (mobile
emulation widens the layout viewport to fit wide content, so ``innerWidth`` alone would pass a
page that pans sideways). Marked ``browser``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("selenium.webdriver")
from browser_kit import errors, ready  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from web_phone import phone  # noqa: E402

WIDTHS = ("return [document.documentElement.scrollWidth, window.innerWidth, "
          "window.visualViewport.width]")


def test_the_new_game_screen_fits_a_390_px_phone(server, browser):
    phone(browser)
    browser.get(server)
    ready(browser)
    scroll, inner, visible = browser.execute_script(WIDTHS)
    assert visible == 390 and inner == 390 and scroll <= 390, (scroll, inner, visible)
    assert not errors(browser)


def test_a_move_chosen_just_above_the_bar_stays_above_it_when_the_bar_grows(server, browser):
    """Confirm moves on: the first tap adds the confirm line to the fixed bar; the page scrolls
    so that the chosen move is not under the bar, and the second tap can land on it."""
    from browser_kit import start, wait
    from selenium.webdriver.common.by import By

    phone(browser)
    browser.get(server)
    ready(browser)
    if not browser.find_element(By.ID, "confirm-on").is_selected():
        browser.execute_script("document.getElementById('confirm-on').click()")
    start(browser, server, seed="3")
    if not browser.find_element(By.ID, "confirm-on").is_selected():
        browser.execute_script("document.getElementById('confirm-on').click()")
    geometry = ("const b = arguments[0].getBoundingClientRect(), "
                "t = document.getElementById('bar').getBoundingClientRect(); "
                "return [b.bottom, t.top];")
    checked = 0
    for _ in range(40):
        wait(lambda: [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
                      if b.is_displayed() and b.is_enabled()])
        last = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
                if b.is_displayed() and b.is_enabled()][-1]
        bottom, top = browser.execute_script(geometry, last)  # the move just above the bar
        browser.execute_script("window.scrollBy(0, arguments[0])", bottom - top + 2)
        bottom, top = browser.execute_script(geometry, last)
        if bottom > top:  # (the page cannot scroll that far: nothing to check here)
            browser.execute_script("arguments[0].click(); arguments[0].click()", last)
            continue
        browser.execute_script("arguments[0].click()", last)  # the first tap: chosen
        time.sleep(0.3)
        assert not browser.find_element(By.ID, "confirm-bar").get_attribute(
            "class").count("hidden")
        bottom, top = browser.execute_script(geometry, last)
        assert bottom <= top, (last.text, bottom, top)
        checked += 1
        browser.execute_script("arguments[0].click()", last)  # the second tap plays it
        time.sleep(0.2)
        if checked >= 5:
            break
    assert checked >= 5
    assert not errors(browser)


def test_the_laptop_end_screen_shows_the_result_and_replay_this_game(server, browser):
    """1280x720: at a game's end the winner line, "replay this game" and the scores' heading
    are on the screen together."""
    from browser_kit import start, wait
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, 720)
    start(browser, server, players="2", seat="watch")
    wait(lambda: browser.find_element(By.ID, "watch-controls").is_displayed())
    speed = browser.find_element(By.ID, "w-speed")
    browser.execute_script("arguments[0].value = arguments[0].max; arguments[0].oninput()", speed)
    wait(lambda: "Game over" in browser.find_element(By.ID, "status").text, 240)
    time.sleep(0.5)
    seen = ("const r = arguments[0].getBoundingClientRect(); "
            "return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0")
    for what in ("status", "replay-this"):
        assert browser.execute_script(seen, browser.find_element(By.ID, what)), what
    heading = browser.find_element(By.CSS_SELECTOR, "#final h3")
    assert browser.execute_script(seen, heading)
    assert not errors(browser)


@pytest.mark.parametrize("players", [3, 5])
def test_a_laptop_replay_shows_the_whole_board_within_720_px(server, browser, tmp_path, players):
    """1280x720: a replay's board, the players' panels included, fits the window's height
    (a game's board is not made smaller: after "play on from here" the rule is gone)."""
    import json
    import random

    from browser_kit import wait
    from selenium.webdriver.common.by import By

    from machu_env import Game
    from machu_env.core.records import game_record

    game, rnd = Game(players, seed=5), random.Random(5)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(game, ["you"] + ["random"] * (players - 1))))
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait(lambda: browser.find_element(By.ID, "r-where").text == "start")
    box = ("const r = document.querySelector('#board svg').getBoundingClientRect(); "
           "return [r.top, r.bottom, window.innerHeight]")
    top, bottom, height = browser.execute_script(box)
    assert height == 720 and top >= 0 and bottom <= height, (top, bottom)
    browser.find_element(By.ID, "r-next").click()
    top, bottom, height = browser.execute_script(box)
    assert bottom <= height
    browser.find_element(By.ID, "r-branch").click()  # a game again: the board at its width
    wait(lambda: "#game=" in browser.current_url)
    assert "replaying" not in browser.find_element(By.TAG_NAME, "body").get_attribute("class")
    assert not errors(browser)
