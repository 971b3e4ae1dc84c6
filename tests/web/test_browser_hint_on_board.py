"""The browser, a hint one tap away: the bar's *hint* (a touch target on a phone, in view at
every decision of yours) asks the trained agent, names its move in the bar, and marks that move
on its button and on the board where the move has a place there. Marked ``browser``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from browser_kit import errors, open_branch, record_where, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from web_phone import phone  # noqa: E402

IN_VIEW = """const r = arguments[0].getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
return r.width >= 44 && r.height >= 44 && r.bottom <= innerHeight && r.right <= innerWidth
  && arguments[0].contains(document.elementFromPoint(x, y));"""


def test_a_hint_is_one_tap_away_and_marked_on_the_board(server, browser):
    phone(browser)
    wait_list = "#hint-agent option"
    record, at = record_where(lambda g: g.decision == "move" and g.day >= 2)
    open_branch(server, browser, record, at)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, wait_list))
    ask = browser.find_element(By.ID, "hint-ask")
    assert browser.execute_script(IN_VIEW, ask)  # a 44 px control in the bar, nothing over it
    assert not browser.find_element(By.ID, "hint-line").is_displayed()
    ask.click()
    line = wait(lambda: [e for e in browser.find_elements(By.ID, "hint-line")
                         if e.is_displayed() and e.text])[0]
    assert line.text.startswith("Hint (ppo-2p") or line.text.startswith("Hint (best-2p"), \
        line.text
    marked = browser.find_elements(By.CSS_SELECTOR, "#actions button.hinted")
    assert len(marked) == 1  # the agent's first move, on its button
    says = marked[0].get_attribute("aria-label") or marked[0].text
    on_board = browser.find_elements(By.CSS_SELECTOR, "#board svg g.hinted")
    # a Prince move has its district on the board: the hint is marked there too, and said so
    assert len(on_board) == 1 and "marked on the board" in line.text
    assert on_board[0].get_attribute("data-id") == marked[0].get_attribute("data-id")
    assert says
    before = len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)"))
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', "
                           "{bubbles: true}))", on_board[0])  # the marked spot: a tap plays it
    if browser.find_element(By.ID, "confirm-bar").is_displayed():  # (confirm on: a second tap)
        browser.find_element(By.ID, "confirm-yes").click()
    wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)")) > before)
    assert not errors(browser)
