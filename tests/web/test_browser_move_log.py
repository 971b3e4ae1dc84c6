"""The browser, the move log: every move of the game one tap away at every decision (the bar's
*moves*), by day and by turn (a player's decisions in a row under its name once), over the
page until closed; the rules one tap away from the bar too. Marked ``browser``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from browser_kit import errors, open_branch, record_where, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from web_phone import phone  # noqa: E402

IN_VIEW = """const r = arguments[0].getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
return r.width > 0 && r.bottom <= innerHeight && r.right <= innerWidth
  && arguments[0].contains(document.elementFromPoint(x, y));"""


def _lines(browser) -> list[tuple[str, str]]:
    return [((li.get_attribute("class") or ""), li.text)
            for li in browser.find_elements(By.CSS_SELECTOR, "#history li")]


def test_every_move_is_one_tap_away_on_a_phone_by_day_and_turn(server, browser):
    phone(browser)
    record, at = record_where(lambda g: g.day >= 4, players=3)
    open_branch(server, browser, record, at, players=3)
    tap = browser.find_element(By.ID, "log-open")
    assert browser.execute_script(IN_VIEW, tap)  # in the bar: on the screen, nothing over it
    tap.click()
    log = browser.find_element(By.ID, "log")
    wait(lambda: "log-open" in browser.find_element(By.TAG_NAME, "body").get_attribute("class"))
    assert browser.execute_script("return getComputedStyle(arguments[0]).position", log) \
        == "fixed"
    assert browser.execute_script(IN_VIEW, browser.find_element(By.ID, "log-close"))
    lines = _lines(browser)
    moves = [(c, t) for c, t in lines if "day" not in c.split()]
    assert len(moves) == at  # every decision of the game so far, none left out
    assert [t for c, t in lines if "day" in c.split()][:2] == ["Day 2", "Day 3"]
    names = ("You (P0) ", "P1 (random) ", "P2 (random) ")
    follows_day = True
    for c, t in lines:
        if "day" in c.split():
            follows_day = True
            continue
        # a turn's first decision names its player; the same player's next ones go under it
        assert t.startswith(names) or (t.startswith("… ") and not follows_day), t
        assert ("more" in c.split()) == t.startswith("… ")
        follows_day = False
    assert any(t.startswith("… ") for _, t in moves)  # (a turn of several decisions)
    browser.find_element(By.ID, "log-close").click()
    wait(lambda: browser.execute_script("return getComputedStyle(arguments[0]).position", log)
         != "fixed")
    assert browser.execute_script(IN_VIEW, browser.find_element(By.ID, "log-open"))
    browser.find_element(By.ID, "log-open").click()  # Escape closes it too
    wait(lambda: "log-open" in browser.find_element(By.TAG_NAME, "body").get_attribute("class"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait(lambda: "log-open" not in browser.find_element(By.TAG_NAME, "body")
         .get_attribute("class"))
    rules = browser.find_element(By.ID, "bar-rules")  # the rules from the bar, over it
    assert browser.execute_script(IN_VIEW, rules)
    rules.click()
    close = browser.find_element(By.ID, "rules-close")
    wait(lambda: close.is_displayed())
    assert browser.execute_script(IN_VIEW, close)
    assert not errors(browser)
