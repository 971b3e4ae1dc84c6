"""The browser, the fixed bar on a phone covers no control for good: at 360 and 390 px wide,
in a game (hints on, so the hint table is under the moves) and in a replay, every control
below the bar can be scrolled above it (the page reserves the bar's height under its content),
so at the page's end none is left under the bar. Marked ``browser``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
from browser_kit import errors, open_branch, open_replay, record_where, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

# every visible control outside the bar whose box reaches under the bar's top, the page
# scrolled to its end
UNDER_BAR = """window.scrollTo(0, document.documentElement.scrollHeight);
const bar = document.getElementById("bar").getBoundingClientRect();
return [...document.querySelectorAll("button, select, input, summary, a[href], tr.hint-row")]
  .filter((e) => !document.getElementById("bar").contains(e) && e.getClientRects().length
          && !e.closest("#rules-panel") && !e.closest("#board"))
  .filter((e) => { const r = e.getBoundingClientRect();
                   return r.height > 0 && r.bottom > bar.top + 1 && r.top < innerHeight; })
  .map((e) => (e.id || e.textContent || e.tagName).trim().slice(0, 40));"""


def _phone(browser, width: int) -> None:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 740 if width == 360 else 844, "deviceScaleFactor": 2,
        "mobile": True})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})


@pytest.mark.parametrize("width", [360, 390])
def test_no_control_stays_under_the_fixed_bar(server, browser, tmp_path, width):
    _phone(browser, width)
    record, at = record_where(lambda g: g.decision == "move" and g.day >= 3)
    open_branch(server, browser, record, at)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    if not browser.find_element(By.ID, "hint-on").is_selected():  # the hint table under the moves
        browser.execute_script("document.getElementById('hint-on').click()")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint tr.hint-row"))
    assert browser.execute_script(UNDER_BAR) == []
    open_replay(browser, server, tmp_path, seed=9)
    assert browser.execute_script(UNDER_BAR) == []
    assert not errors(browser)
