"""The browser, a replay on a phone: its bar is compact (prev, the slider and next on one row;
where and *play on from here* on the next), at most a quarter of a 390x844 screen, and every
control of it on the screen with nothing over it; its board is readable (text 9 px and more)
in a box that pans both ways. Marked ``browser``."""

from __future__ import annotations

import json
import random

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from browser_kit import errors, smallest_board_text, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from web_phone import phone  # noqa: E402

IN_VIEW = """const r = arguments[0].getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
  && arguments[0].contains(document.elementFromPoint(x, y));"""


def test_a_replays_bar_is_compact_on_a_phone_and_its_controls_in_view(server, browser, tmp_path):
    from machu_env import Game
    from machu_env.core.records import game_record

    game, rnd = Game(3, seed=5), random.Random(5)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(game, ["you", "random", "random"])))
    phone(browser)
    browser.get(server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait(lambda: browser.find_element(By.ID, "r-where").text == "start")
    for _ in range(30):
        browser.find_element(By.ID, "r-next").click()
    wait(lambda: browser.find_element(By.ID, "r-where").text.startswith("decision 30 "))
    height = browser.execute_script("return [document.getElementById('bar')"
                                    ".getBoundingClientRect().height, innerHeight]")
    assert height[0] <= height[1] / 4, height
    for name in ("r-prev", "r-slider", "r-next", "r-branch", "log-open"):
        assert browser.execute_script(IN_VIEW, browser.find_element(By.ID, name)), name
    rows = browser.execute_script(
        "return ['r-prev', 'r-slider', 'r-next', 'r-where'].map((id) => "
        "Math.round(document.getElementById(id).getBoundingClientRect().top / 10))")
    assert rows[0] == rows[2] and rows[3] > rows[0]  # prev and next on a row; where under it
    assert smallest_board_text(browser) >= 9
    pans = browser.execute_script(
        "const b = document.getElementById('board'); return [b.scrollWidth > b.clientWidth, "
        "document.documentElement.scrollWidth > innerWidth]")
    assert pans == [True, False]  # the board's box pans; the page never scrolls sideways
    assert not errors(browser)
