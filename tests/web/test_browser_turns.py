"""The browser, what the page tells a player during a game: take-back and confirm, the Sun
Clock picker, idle moves, the rules panel, the 3-player start and the last turn of a day, the
replay's clock, the end table, touch targets. Marked ``browser``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
from browser_kit import errors, moves, open_branch, ready, record_where, start, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


def test_take_back_within_the_turn_and_confirm_moves_kept_on_reload(server, browser):
    start(browser, server, seed="4")
    took = False
    for _ in range(80):  # click the first move until one leaves the turn open: take it back
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action:not([disabled])"))
        before, buttons = moves(browser), browser.find_element(By.ID, "actions").text
        browser.find_element(By.CSS_SELECTOR, "button.action:not([disabled])").click()
        wait(lambda before=before: moves(browser) > before)
        back = browser.find_element(By.ID, "take-back")
        if back.is_displayed():
            back.click()
            wait(lambda before=before: moves(browser) == before)
            assert browser.find_element(By.ID, "actions").text == buttons
            took = True
            break
    assert took
    box = browser.find_element(By.ID, "confirm-on")
    assert not box.is_selected()  # (a mouse: off by default; touch screens: on)
    if not box.is_displayed():  # (a setting of the New game form, folded during a game)
        browser.find_element(By.CSS_SELECTOR, "#setup-box summary").click()
    box.click()
    before = moves(browser)
    browser.find_element(By.CSS_SELECTOR, "button.action:not([disabled])").click()
    bar = wait(lambda: [b for b in browser.find_elements(By.ID, "confirm-bar")
                         if b.is_displayed()])[0]
    assert bar.find_element(By.ID, "confirm-what").text and moves(browser) == before
    browser.find_element(By.ID, "confirm-no").click()
    assert not bar.is_displayed() and moves(browser) == before
    browser.find_element(By.CSS_SELECTOR, "button.action:not([disabled])").click()
    browser.find_element(By.ID, "confirm-yes").click()
    wait(lambda: moves(browser) > before)
    browser.refresh()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    assert browser.find_element(By.ID, "confirm-on").is_selected()
    assert errors(browser) == []


def test_the_sun_clock_picker_takes_exactly_three_different_goods(server, browser):
    record, at = record_where(lambda g: g.decision == "take" and len(g.legal_actions()) > 3)
    open_branch(server, browser, record, at)
    picker = browser.find_element(By.CSS_SELECTOR, "#actions fieldset.picker")
    assert "tick exactly three" in picker.text
    boxes = picker.find_elements(By.CSS_SELECTOR, "input[type=checkbox]")
    ticked = [b for b in boxes if b.is_selected()]
    assert len(ticked) == 3 and all(not b.is_enabled() for b in boxes if not b.is_selected())
    ticked[0].click()
    submit = picker.find_element(By.CSS_SELECTOR, "button.pick")
    assert not submit.is_enabled() and "choose exactly three" in submit.text \
        and "(2 chosen)" in submit.text
    assert all(b.is_enabled() for b in boxes)
    ticked[0].click()
    assert submit.is_enabled() and submit.text.startswith("take ")
    assert errors(browser) == []


def test_a_move_to_a_district_that_already_worked_today_says_so(server, browser):
    from machu_env.rules.data import DISTRICTS

    def idle_move(game):
        bonus = game.view(None)["bonus"]
        return game.decision == "move" and any(
            a.split()[0] == "move" and a.split()[1] in DISTRICTS[:9] and bonus[a.split()[1]] == 0
            for a in game.legal_actions())
    record, at = record_where(idle_move)
    open_branch(server, browser, record, at)
    idle = browser.find_elements(By.CSS_SELECTOR, "#actions button.idle")
    worked = [b for b in idle if "done today" in b.text]
    assert worked and all("already worked today" in b.get_attribute("title") for b in worked)
    # the other moves that end the turn with nothing gained (nothing to afford or use there)
    assert all("gains nothing" in b.text and "nothing to gain" in b.get_attribute("title")
               for b in idle if b not in worked)
    others = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
              if "idle" not in b.get_attribute("class")]
    assert others and not any("done today" in b.text or "gains nothing" in b.text
                              for b in others)


def test_the_rules_panel_and_district_descriptions_on_tap(server, browser):
    start(browser, server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    browser.find_element(By.ID, "rules-open").click()
    panel = browser.find_element(By.ID, "rules-panel")
    assert panel.is_displayed() and "Spanish conquest" in panel.text
    assert len(panel.find_elements(By.CSS_SELECTOR, "#district-list li")) == 15
    browser.find_element(By.ID, "rules-close").click()
    assert not panel.is_displayed()
    plain = [g for g in browser.find_elements(By.CSS_SELECTOR, "#board svg g[id]")
             if "clickable" not in (g.get_attribute("class") or "")
             and g.get_attribute("id") == "house_of_virgins"]
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', "
                           "{bubbles: true}))", plain[0])
    info = browser.find_element(By.ID, "district-info")
    assert info.is_displayed() and info.text.startswith("House of Virgins")


def test_a_three_player_game_says_why_it_starts_on_day_two(server, browser):
    start(browser, server, players="3")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    assert "(3 players: from day 2)" in browser.find_element(By.ID, "clock").text


def test_your_last_turn_of_the_day_is_announced(server, browser):
    def last_turn(game):
        v = game.view("public")
        return game.decision == "move" and v["sun_player"] not in (None, 0) and game.day < 9
    record, at = record_where(last_turn)
    open_branch(server, browser, record, at)
    assert "your last turn of the day" in browser.find_element(By.ID, "status").text
    assert "last turns of the day" in browser.find_element(By.ID, "clock").text


def test_the_replay_clock_follows_the_position_with_day_headings_on_a_phone(server, browser,
                                                                            tmp_path):
    import json
    import random

    from machu_env import Game
    from machu_env.core.records import game_record

    game, rnd = Game(2, seed=3), random.Random(3)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(game, ["gold", "random"])))
    browser.set_window_size(390, 844)
    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait(lambda: browser.find_element(By.ID, "r-where").text == "start")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history li.day")) >= 8
    slider = browser.find_element(By.ID, "r-slider")
    browser.execute_script("arguments[0].value = 60; arguments[0].dispatchEvent("
                           "new Event('input'))", slider)
    day = browser.find_element(By.ID, "r-said").text.split(" · ")[0]  # "day 3"
    assert browser.find_element(By.ID, "clock").text.startswith(f"Day {day.split()[1]} of 9")
    browser.find_element(By.ID, "r-next").click()
    said = browser.find_element(By.ID, "r-said")
    bottom = browser.execute_script("return arguments[0].getBoundingClientRect().bottom", said)
    assert said.text and bottom <= browser.execute_script("return innerHeight")
    assert errors(browser) == []


def test_the_end_table_breaks_no_word(server, browser):
    browser.set_window_size(390, 844)
    start(browser, server, players="5", seat="watch")
    speed = browser.find_element(By.ID, "w-speed")
    browser.execute_script("arguments[0].value = arguments[0].max; arguments[0].oninput()",
                           speed)
    wait(lambda: browser.find_element(By.ID, "final").is_displayed(), 240)
    pieces = browser.find_elements(By.CSS_SELECTOR, "#final .nb")
    assert pieces
    lines = browser.execute_script(
        "return arguments[0].map((e) => e.getClientRects().length)", pieces)
    assert set(lines) == {1}, lines  # "condor 5", "potter 6": never split over two lines
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= browser.execute_script("return innerWidth")


def test_every_target_on_a_phone_is_at_least_48_pixels(server, browser):
    """At 390x844 every control a finger uses is at least 48x48 px (a checkbox's label, which
    toggles it, counts as its target): the new-game form, the moves, the bar, the hints."""
    browser.set_window_size(390, 844)
    start(browser, server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    hints = browser.find_element(By.ID, "hint-on")  # (scrolled clear of the fixed bar)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", hints)
    hints.click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint tr.hint-row"))
    browser.find_element(By.ID, "setup-box").click()  # (the summary: open the form again)
    small = browser.execute_script("""
      const out = [];
      const seen = (e) => e.offsetParent !== null || e.tagName === "SUMMARY";
      const targets = [...document.querySelectorAll(
        "button, select, input, summary, a, #hint tr.hint-row")].filter(seen);
      for (const e of targets) {
        const t = e.type === "checkbox" ? e.closest("label") || e : e;
        const r = t.getBoundingClientRect();
        if (r.width < 48 || r.height < 48)
          out.push(`${e.tagName}#${e.id}.${e.className}: ` +
                   `${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
      }
      return out;""")
    assert small == [], small


def test_the_hint_table_fits_its_panel_on_a_laptop(server, browser):
    """At 1280x720 a long move's words wrap inside the hint table: nothing runs past the
    panel or widens the page."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
    start(browser, server, seed="7")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    browser.find_element(By.ID, "hint-on").click()
    for _ in range(3):  # to a Prince's move: the longest words
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint tr.hint-row"))
        before = moves(browser)
        browser.find_elements(By.CSS_SELECTOR, "button.action")[0].click()
        wait(lambda before=before: moves(browser) > before)  # (not the old page's button again)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint tr.hint-row"))
    right, side, page = browser.execute_script(
        "return [document.querySelector('#hint table').getBoundingClientRect().right, "
        "document.getElementById('side').getBoundingClientRect().right, "
        "document.documentElement.scrollWidth]")
    assert right <= side + 1 and page <= 1280
    assert errors(browser) == []
