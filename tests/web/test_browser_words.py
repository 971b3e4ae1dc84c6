"""What the page says in words on a phone: every player's goods shown by the board's shapes as
well as by colour and named on a tap, and the others' moves since yours shown whole on a tap
(two lines until then; no text that only a hover tooltip shows). Marked ``browser``."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("selenium.webdriver")
from browser_kit import errors, open_replay, start, wait  # noqa: E402
from helpers import others_since  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from web_phone import phone  # noqa: E402


def play_first(browser, pause: float) -> bool:
    """Play the first move on the screen (False when there is none), then wait ``pause`` s."""
    buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "button.action")
               if b.is_displayed() and b.is_enabled()]
    if buttons:
        browser.execute_script("arguments[0].click()", buttons[0])
        time.sleep(pause)
    return bool(buttons)


def _strip_rows(browser) -> list[list[tuple[str, str, str, bool]]]:
    """Each strip row's goods: the text, the label, the shape used and whether the board on
    the page defines that shape."""
    return browser.execute_script(
        "return [...document.querySelectorAll('#strip .row')].map((r) => "
        "[...r.querySelectorAll('.nb .g')].map((g) => { const u = g.querySelector('use'); "
        "const href = u ? u.getAttribute('href') : ''; return [g.textContent, "
        "g.getAttribute('aria-label'), href, !!(href && document.querySelector("
        "'#board svg symbol' + href))]; }))")


def test_the_strip_shows_every_good_by_its_board_shape_and_names_it_on_a_tap(server, browser):
    phone(browser)
    start(browser, server, seed="5", players="3")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#strip .row"))
    rows = _strip_rows(browser)
    assert len(rows) == 3
    names = ["corn", "llama", "coca", "pottery", "cloth"]
    for row in rows:
        for (text, label, shape, defined), name in zip(row, names, strict=True):
            assert re.fullmatch(r"\d+", text), text  # the count alone: no letter, no "P1"
            assert label == f"{text} {name}" and shape == f"#good-{name}" and defined
    chip = browser.find_element(By.CSS_SELECTOR, "#strip .row .g.pottery")
    chip.click()  # a tap says the word
    word = browser.execute_script(
        "return getComputedStyle(arguments[0], '::after').content", chip)
    assert "pottery" in word
    assert not errors(browser)


def test_the_others_moves_show_whole_on_a_tap(server, browser):
    phone(browser)
    start(browser, server, seed="11", players="3")
    since = browser.find_element(By.ID, "since")
    clamped = False
    for _ in range(200):  # play the first legal move until the others' moves fill two lines
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
        if since.is_displayed() and "clamped" in since.get_attribute("class"):
            clamped = True
            break
        if not play_first(browser, 0.05):
            time.sleep(0.05)
    assert clamped, "the others' moves never needed more than two lines"
    whole = lambda: browser.execute_script(  # noqa: E731
        "const b = document.getElementById('since'); return b.scrollHeight <= b.clientHeight + 1")
    assert not whole() and since.get_attribute("aria-expanded") == "false"
    browser.execute_script("arguments[0].click()", since)
    assert whole() and since.get_attribute("aria-expanded") == "true"
    browser.execute_script("arguments[0].click()", since)
    assert not whole() and since.get_attribute("aria-expanded") == "false"
    assert not errors(browser)


def test_every_move_of_the_others_since_your_turn_is_in_the_line_latest_first(server,
                                                                              browser):
    """At each of your decisions of a 3-player game the line names every decision the others
    made since your previous turn, the latest first, also while your own turn goes on."""
    phone(browser)
    start(browser, server, seed="11", players="3")
    checked = continued = 0
    for _ in range(60):
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
        state = browser.execute_script("return game")
        others = others_since(state["history"], state["seat"])
        text = browser.execute_script("return document.getElementById('since').textContent")
        if state["your_turn"] and others:
            said = [f"P{e['player']} {e['says'] or e['action']}" for e in others][::-1]
            assert text.endswith("latest first): " + "; ".join(said)), (text, said)
            assert f"{len(others)} move" in text
            checked += 1
            continued += state["history"][-1]["player"] == state["seat"]
        play_first(browser, 0.05)
    assert checked >= 20 and continued >= 3, (checked, continued)
    assert not errors(browser)


def test_a_tie_on_the_score_is_ordered_by_the_tie_break_and_says_so(server, browser):
    """R9.5: a tie on the final score goes to the most goods units left; the end table lists
    the tie's winner first and says how the tie was broken (the page's own ``showFinal``)."""
    browser.get(server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    row = {"vp": 20, "gold": 30, "multiplier": 2, "score": 40, "vp_by": {}, "cards": []}
    final = [{**row, "goods_units": 1, "winner": False}, {**row, "goods_units": 4, "winner": True},
             {**row, "score": 12, "goods_units": 9, "winner": False}]
    browser.execute_script("showFinal(arguments[0])",
                           {"final": final, "seat": 0, "agents": ["you", "gold", "random"]})
    names = [r.text.split(")")[0] + ")" for r in
             browser.find_elements(By.CSS_SELECTOR, "#final table.scores tr")[1:]]
    assert names == ["P1 (gold)", "P0 (you)", "P2 (random)"]
    said = browser.find_element(By.CSS_SELECTOR, "#final .tie-break").text
    assert said == ("Tied on 40: the tie goes to the most goods left (3 corn = 1 unit): "
                    "P1 (gold) 4 units, P0 (you) 1 unit.")
    final[0]["goods_units"], final[0]["winner"] = 4, True
    browser.execute_script("showFinal(arguments[0])",
                           {"final": final, "seat": 0, "agents": ["you", "gold", "random"]})
    assert browser.find_element(By.CSS_SELECTOR, "#final .tie-break").text.endswith(
        "; still tied, so the win is shared.")
    for end, rule in (("conquest", "× 3 for the most gold, × 2 for the second most, × 1 "
                                   "otherwise"), ("rescue", "the Rescue: × 1 for all")):
        browser.execute_script("showFinal(arguments[0])", {  # (the × column explained, R9.4)
            "final": final, "seat": 0, "agents": ["you", "gold", "random"], "end": end})
        note = browser.find_element(By.CSS_SELECTOR, "#final table.scores + p.note").text
        assert note == f"score = VP × the gold rank's multiplier ({rule})", note
    assert not errors(browser)


def test_a_move_that_gains_nothing_says_so_on_the_board_as_on_its_button(server, browser):
    """A Prince move that ends the turn with nothing gained: its district's caption on the
    board ends as its button does (" · gains nothing" or " · done today": the cost, then the
    line above it)."""
    start(browser, server, seed="11")
    seen = 0
    for _ in range(150):
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action")
             or "Game over" in browser.find_element(By.ID, "status").text)
        for button in browser.find_elements(By.CSS_SELECTOR, "#actions button.action.idle"):
            spot = browser.find_elements(
                By.CSS_SELECTOR, f'#board g.clickable[data-id="{button.get_attribute("data-id")}"]')
            if not spot:
                continue
            words = button.text.split("\n")[-1]
            end = " · gains nothing" if words.endswith("gains nothing") else " · done today"
            assert words.endswith(end), words
            caption = " · ".join(t.text for t in spot[0].find_elements(By.CSS_SELECTOR,
                                                                        "text.cost"))
            assert caption.endswith(end) and "idle" in spot[0].get_attribute("class"), caption
            seen += 1
        if seen >= 2:
            break
        if not play_first(browser, 0.05):
            break
    assert seen >= 2
    assert not errors(browser)


def test_the_market_spaces_a_move_adds_to_and_takes_off_look_different(server, browser):
    """The night's market adjustment on the board: a space that gets a good is outlined green
    and marked +1, one that loses a good outlined red, dashed, and marked -1."""
    from browser_kit import open_branch, record_where

    def both(game):
        legal = game.legal_actions()
        return game.decision == "market_adjust" and any(" add " in f" {a} " for a in legal) \
            and any(" remove " in f" {a} " for a in legal)

    record, at = record_where(both)
    browser.get(server)
    open_branch(server, browser, record, at)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#board g.clickable.adds"))
    signs = browser.execute_script(
        "return [...document.querySelectorAll('#board g.clickable')]"
        ".filter((g) => g.classList.contains('adds') || g.classList.contains('takes'))"
        ".map((g) => [g.classList.contains('adds') ? 'adds' : 'takes', "
        "g.querySelector('text.sign').textContent, "
        "getComputedStyle(g.querySelector('rect')).stroke, "
        "getComputedStyle(g.querySelector('rect')).strokeDasharray])")
    adds = {tuple(x[1:]) for x in signs if x[0] == "adds"}
    takes = {tuple(x[1:]) for x in signs if x[0] == "takes"}
    assert adds and takes, signs
    assert {a[0] for a in adds} == {"+1"} and {t[0] for t in takes} == {"\u22121"}
    assert not ({(a[1], a[2]) for a in adds} & {(t[1], t[2]) for t in takes})  # outlines differ
    assert not errors(browser)


def test_no_player_name_in_the_strip_is_cut_on_a_phone(server, browser):
    """The strip's names (the longest shipped agent's too) are whole, the turn's mark included."""
    phone(browser)
    start(browser, server, seed="5", opponent="best-3p", players="3")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#strip .row .who"))
    for _ in range(6):  # a few turns: the mark moves from name to name
        cut = browser.execute_script(
            "return [...document.querySelectorAll('#strip .who')]"
            ".filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.textContent)")
        assert cut == [], cut
        if not play_first(browser, 0.3):
            break
    assert not errors(browser)


def test_a_replay_says_your_moves_as_the_game_did(server, browser, tmp_path):
    """In the replay of a game you played, your moves read "You (P0) put..." as they did in the
    game, the others' "P1 (random) puts..."."""
    game = open_replay(browser, server, tmp_path, seed=5)
    texts = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)")]
    mine = [t for k, t in enumerate(texts) if game.history[k][0] == 0]
    theirs = [t for k, t in enumerate(texts) if game.history[k][0] == 1]
    assert mine and all(t.startswith("You (P0) ") for t in mine), mine[:3]
    assert any(t.startswith("You (P0) put your first Inca in the") for t in mine)
    assert theirs and all(t.startswith("P1 (random) ") for t in theirs), theirs[:3]
    browser.find_element(By.ID, "r-next").click()
    wait(lambda: browser.find_element(By.ID, "r-where").text.startswith("decision 1"))
    assert browser.find_element(By.ID, "r-said").text.startswith("day ")
    assert not errors(browser)
