"""The browser, one game in two tabs: the tab that did not move shows the other's move without
a reload, and a move chosen on a tab that had not caught up yet is refused in words, changes
nothing and brings the tab up to date. Marked ``browser``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
from browser_kit import errors, moves, start, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

ENABLED = "button.action:not([disabled])"


def _history(browser) -> str:
    return browser.find_element(By.ID, "history").text


def test_a_second_tab_follows_the_game_and_a_stale_move_is_refused_in_words(server, browser):
    start(browser, server, seed="4")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, ENABLED))
    first = browser.current_window_handle
    browser.execute_script("window.open(arguments[0], '_blank')", browser.current_url)
    second = next(h for h in browser.window_handles if h != first)
    browser.switch_to.window(second)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, ENABLED))
    opened = _history(browser)

    browser.switch_to.window(first)  # a move in the first tab; the agents reply
    before = moves(browser)
    browser.find_element(By.CSS_SELECTOR, ENABLED).click()
    wait(lambda: moves(browser) > before and browser.find_elements(By.CSS_SELECTOR, ENABLED))
    shown = _history(browser)
    assert shown != opened

    browser.switch_to.window(second)  # the second tab catches up by itself (its poll)
    wait(lambda: _history(browser) == shown)
    assert "another tab or window" in browser.find_element(By.ID, "status").text

    # the second tab as if it had not caught up yet: its move carries the count it showed
    browser.execute_script(
        "game.changes -= 1; document.querySelector(arguments[0]).click();", ENABLED)
    wait(lambda: "moved on since this page showed it" in browser.find_element(By.ID,
                                                                               "error").text)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, ENABLED))
    assert _history(browser) == shown  # nothing was played
    browser.switch_to.window(first)
    browser.refresh()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, ENABLED))
    assert _history(browser) == shown
    assert [e for e in errors(browser) if "409" not in e] == []
