"""A real browser: headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by
Selenium) opens ``machu serve``, starts a game, plays by clicking and sees the board change.
Marked ``browser`` (kept out of the default run; ``MACHU_CI_FULL=1 .ci/run`` runs it after
installing Chromium). The fixtures are in conftest.py, the helpers in tests/browser_kit.py."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
from browser_kit import errors, ready, smallest_board_text, start, wait  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


def test_play_a_few_moves_by_clicking(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "seed").send_keys("3")
    browser.find_element(By.ID, "start").click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    board = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    for _ in range(4):
        before = len(browser.find_elements(By.CSS_SELECTOR, "#history li"))
        browser.find_elements(By.CSS_SELECTOR, "button.action")[0].click()
        wait(lambda b=before: len(browser.find_elements(By.CSS_SELECTOR, "#history li")) > b)
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action")
              or "Game over" in browser.find_element(By.ID, "status").text)
    after = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    assert after != board
    assert "P1 (random)" in browser.find_element(By.ID, "history").text
    assert browser.find_element(By.ID, "error").text == ""


def test_an_html_replay_steps_with_the_arrow_keys(tmp_path, browser):
    import random

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from machu_env import Game
    from machu_env.core.records import game_record
    from machu_env.views.replay_html import html_replay

    game, rnd = Game(2, seed=4), random.Random(4)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    page = tmp_path / "replay.html"
    page.write_text(html_replay(game_record(game)))
    browser.get(page.as_uri())
    wait(lambda: browser.find_element(By.ID, "where").text == "start")
    first = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    wait(lambda: browser.find_element(By.ID, "where").text.startswith("decision 3 of"))
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML") != first
    body.send_keys(Keys.END)
    wait(lambda: browser.find_element(By.ID, "result").is_displayed())
    assert "winner" in browser.find_element(By.ID, "result").text


@pytest.mark.parametrize("seed", [5, 3661995451541600665])  # (above 2**53)
def test_the_app_replays_a_record_file_from_its_packed_frames(server, browser, tmp_path, seed):
    import json
    import random

    from selenium.webdriver.common.by import By

    from machu_env import Game
    from machu_env.core.records import game_record

    game, rnd = Game(2, seed=seed), random.Random(5)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(game, ["gold", "random"])))
    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait(lambda: browser.find_element(By.ID, "r-where").text == "start")
    first = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    for _ in range(2):
        browser.find_element(By.ID, "r-next").click()
    wait(lambda: browser.find_element(By.ID, "r-where").text
          == f"decision 2 of {len(game.history)}")
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML") != first
    assert browser.find_element(By.ID, "error").text == ""
    assert "current" in browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)")[1] \
        .get_attribute("class")  # the log follows the replay (day headings aside)
    browser.find_element(By.ID, "r-branch").click()  # a new game from decision 2 (branching)
    wait(lambda: "#game=" in browser.current_url)
    items = browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)")
    moves = [li.get_attribute("data-action") for li in items]  # the notation; the text says it
    assert len(moves) >= 2 and moves[0] == game.history[0][1]
    # in a player's words, yours in the second person (you play seat 0 of the branch)
    texts = [li.text for li in items[:2]]
    assert any(t.startswith("You (P0) put your first Inca in the") for t in texts), texts
    assert any(t.startswith("P1 (") and "puts its first Inca in the" in t for t in texts)


def test_a_page_on_another_origin_cannot_play_or_start_games(server, browser, tmp_path):
    """Cross-site requests a browser sends without asking: a text/plain
    fetch and a form POST from another origin change nothing."""
    import json
    import threading
    import urllib.request
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    state = json.loads(urllib.request.urlopen(urllib.request.Request(
        server + "api/games", data=json.dumps({"opponents": "random", "seed": 1}).encode(),
        headers={"Content-Type": "application/json"})).read())
    gid, move = state["id"], state["legal"][0]["id"]
    before = urllib.request.urlopen(f"{server}api/games/{gid}").read()
    (tmp_path / "evil.html").write_text(f"""<!DOCTYPE html><html><body>
<form id="f" method="POST" action="{server}api/games/{gid}/play" enctype="text/plain">
<input name='{{"action": {move}, "x": "' value='"}}'></form>
<script>
fetch("{server}api/games/{gid}/play", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}}, body: JSON.stringify({{action: {move}}})}})
  .finally(() => {{ document.title = "sent"; document.getElementById("f").submit(); }});
</script></body></html>""")
    evil = ThreadingHTTPServer(("127.0.0.1", 0),
                               partial(SimpleHTTPRequestHandler, directory=str(tmp_path)))
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{evil.server_address[1]}/evil.html")
        wait(lambda: "api/games" in browser.current_url or browser.title == "sent")
        time.sleep(1.0)  # the form's POST
    finally:
        evil.shutdown()
    assert urllib.request.urlopen(f"{server}api/games/{gid}").read() == before


def test_a_phone_wide_page_has_no_horizontal_scroll_and_announces_its_status(server, browser):
    """390 px wide: the board and the actions stack, nothing overflows; the
    status is an aria-live region and the board has a label."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(390, 844)
    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "start").click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    width = browser.execute_script("return document.documentElement.scrollWidth")
    inner = browser.execute_script("return window.innerWidth")
    assert width <= inner, (width, inner)
    assert browser.find_element(By.ID, "status").get_attribute("aria-live") == "polite"
    assert browser.find_element(By.ID, "board").get_attribute("aria-label")
    #: the board's box fits its picture, the decision is on the same screen,
    # touch targets are 44 px tall; until the game's end, with no sideways scroll
    board = browser.find_element(By.ID, "board").rect
    picture = browser.find_element(By.CSS_SELECTOR, "#board svg").rect
    assert board["height"] < picture["height"] + 20
    height = browser.execute_script("return window.innerHeight")
    first = browser.find_elements(By.CSS_SELECTOR, "button.action")[0]
    assert first.rect["y"] + first.rect["height"] <= height
    assert all(b.rect["height"] >= 44 for b in
               browser.find_elements(By.CSS_SELECTOR, "button.action") if b.is_displayed())
    assert smallest_board_text(browser) >= 9  # the decision's part, as large as the width allows
    assert browser.find_element(By.ID, "zoom").rect["height"] >= 44
    browser.find_element(By.ID, "zoom").click()  # the whole board, full size, in a box that pans
    assert smallest_board_text(browser) >= 9
    assert browser.execute_script("return document.documentElement.scrollWidth") <= inner
    browser.find_element(By.ID, "zoom").click()  # the decision's part, from move to move
    assert smallest_board_text(browser) >= 9
    kinds = set()
    for _ in range(400):  # to the end, by clicking
        if "Game over" in browser.find_element(By.ID, "status").text:
            break
        try:
            buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "button.action")
                       if b.is_displayed() and b.is_enabled()]
            if buttons:
                kind = browser.find_element(By.ID, "status").text
                if kind not in kinds:  # every kind of decision: the board and it on one screen
                    top = browser.find_element(By.ID, "board").rect["y"]
                    assert buttons[0].rect["y"] + buttons[0].rect["height"] - top <= height, \
                        kind
                    assert smallest_board_text(browser) >= 9, kind
                    kinds.add(kind)
                browser.execute_script("arguments[0].click()", buttons[0])
        except StaleElementReferenceException:  # (the page redrew between finding and reading:
            pass  # an opponent's reply arrived; look again)
        time.sleep(0.05)
    assert len(kinds) >= 5, kinds
    assert "Game over" in browser.find_element(By.ID, "status").text
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= inner, (width, inner)  # the final table too


# the page's pointer targets (buttons, lists, fields, the labels that hold a checkbox: the box is
# a part of its label's target) that fail WCAG 2.5.8: under 24 px each way, and a 24 px circle
# around its centre reaches another target or another small target's circle
SMALL_TARGETS = """
const all = [...document.querySelectorAll(
    'button, select, input:not([type=checkbox]), summary, label:has(> input[type=checkbox])')]
  .filter((e) => e.getClientRects().length && !e.closest('#rules-panel'))
  .filter((e) => !e.parentElement.closest('label:has(> input[type=checkbox])'))
  .map((e) => ({e, r: e.getBoundingClientRect()}));
const small = (t) => t.r.width < 23.5 || t.r.height < 23.5;
const centre = (t) => [(t.r.left + t.r.right) / 2, (t.r.top + t.r.bottom) / 2];
const gap = ([x, y], r) => Math.hypot(Math.max(r.left - x, 0, x - r.right),
                                      Math.max(r.top - y, 0, y - r.bottom));
return all.filter(small).filter((t) => all.some((u) => u !== t && !u.e.contains(t.e)
    && !t.e.contains(u.e) && (small(u) ? Math.hypot(centre(t)[0] - centre(u)[0],
                                                    centre(t)[1] - centre(u)[1]) < 23.5
                                       : gap(centre(t), u.r) < 11.75)))
  .map((t) => [(t.e.id || t.e.textContent).trim().slice(0, 30), t.r.width, t.r.height]);"""


def test_every_button_of_a_decision_is_above_the_fold_on_a_laptop(server, browser):
    """At 1280x720 every button of the current decision is visible without
    scrolling, the biggest decisions (a Prince move with every stay) included, and every
    control is a target WCAG 2.5.8 allows (24 px, or spaced as if it were); a whole game, by
    clicking."""
    browser.set_window_size(1280, 720)
    start(browser, server, seed="4")
    most = 0
    for _ in range(600):
        if "Game over" in browser.find_element(By.ID, "status").text:
            break
        assert browser.execute_script(SMALL_TARGETS) == []
        # measured and clicked in one script: the page redraws its buttons after every answer
        # (element handles kept between two calls can go stale)
        seen = browser.execute_script("""
            const shown = [...document.querySelectorAll('#actions button')]
                .filter((b) => b.offsetParent !== null && !b.disabled);
            if (!shown.some((b) => b.classList.contains('action'))) return null;
            const lowest = Math.max(...shown.map(
                (b) => b.getBoundingClientRect().bottom + window.scrollY));
            const seen = [shown.length, lowest, window.innerHeight];
            shown[0].click();
            return seen;""")
        if seen is None:
            time.sleep(0.05)  # the agents' moves
            continue
        count, lowest, height = seen
        assert lowest <= height, (count, lowest, height)
        most = max(most, count)
        time.sleep(0.05)
    assert "Game over" in browser.find_element(By.ID, "status").text
    assert most >= 15


def test_focus_stays_on_the_moves_after_a_move(server, browser):
    """Keyboard play: after a move chosen with the keyboard, the focus is on
    the next decision's first action, not on the page's body."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server)
    ready(browser)
    browser.find_element(By.ID, "seed").send_keys("5")
    browser.find_element(By.ID, "start").click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    before = len(browser.find_elements(By.CSS_SELECTOR, "#history li"))
    browser.find_elements(By.CSS_SELECTOR, "button.action")[0].send_keys(Keys.ENTER)
    wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#history li")) > before)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action:not([disabled])"))
    focused = browser.switch_to.active_element
    assert focused.tag_name == "button" and "action" in focused.get_attribute("class")


def test_click_the_board_reload_and_resume(server, browser):
    """Districts on the board are clickable moves; a reload resumes the game from
    its address; the actions are visible at 1280x720 without scrolling."""
    browser.set_window_size(1280, 720)
    start(browser, server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    target = wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg g.clickable"))
    first = browser.find_element(By.CSS_SELECTOR, "button.action")
    assert browser.execute_script("return arguments[0].getBoundingClientRect().bottom",
                                  first) <= browser.execute_script("return innerHeight")
    before = len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)"))
    # a mouse click at the district's middle (where its hit area lies over the board)
    ActionChains(browser).move_to_element(target[0]).click().perform()
    wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)")) > before)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    assert "#game=" in browser.current_url
    moves = browser.find_element(By.ID, "history").text
    board = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    browser.refresh()
    wait(lambda: browser.find_element(By.ID, "history").text == moves)
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML") == board
    assert "Day" in browser.find_element(By.ID, "clock").text
    assert errors(browser) == []


def test_watch_mode_finishes_a_game_and_the_end_shows_every_card(server, browser):
    browser.get(server)  # the start page: no empty history before a game
    ready(browser)
    assert not browser.find_element(By.ID, "history").is_displayed()
    assert "strongest" in browser.find_element(By.ID, "setup").text  # which agents are strong
    start(browser, server, players="3", seat="watch")
    wait(lambda: browser.find_element(By.ID, "watch-controls").is_displayed())
    assert "a game takes about" in browser.find_element(By.ID, "w-delay").text
    assert not browser.find_element(By.ID, "hint-box").is_displayed()  # a watcher gets no
    assert not browser.find_element(By.ID, "save-box").is_displayed()  # hints nor saves
    speed = browser.find_element(By.ID, "w-speed")
    browser.execute_script("arguments[0].value = arguments[0].max; arguments[0].oninput()", speed)
    wait(lambda: "Game over" in browser.find_element(By.ID, "status").text, 240)
    final = browser.find_element(By.ID, "final")
    assert final.is_displayed() and "Final scores" in final.text
    rows = final.find_elements(By.CSS_SELECTOR, "tr")[1:]
    assert len(rows) == 3
    svg = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    assert "(hidden)" not in svg  # every hand revealed on the final board
    for row in rows:  # each player's cards, as on the board
        cards = row.find_elements(By.TAG_NAME, "td")[1].text
        assert all(c.strip() in svg for c in cards.split(",") if c.strip() != "-")
    assert errors(browser) == []


def test_the_hint_panel_shows_probabilities_that_sum_to_one(server, browser):
    start(browser, server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    browser.find_element(By.ID, "hint-on").click()
    hint = wait(lambda: [h for h in browser.find_elements(By.ID, "hint")
                          if h.is_displayed() and "%" in h.text])[0]
    shown = [float(td.text.rstrip(" %")) for td in
             hint.find_elements(By.CSS_SELECTOR, "td:nth-child(2)")]
    shown += [float(s.text.rstrip(" %")) for s in hint.find_elements(By.CLASS_NAME, "others")]
    assert sum(shown) == pytest.approx(100, abs=0.1 * len(shown) + 0.05)
    assert errors(browser) == []


def test_hints_follow_the_player_count_survive_a_reload_and_play_on_a_click(server, browser):
    """The picker offers the policy of the game's player count, the checkbox
    sits above the panel and stays on after a reload, and a hint row plays its move."""
    start(browser, server, players="3")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    assert Select(browser.find_element(By.ID, "hint-agent")).first_selected_option \
        .get_attribute("value") == "best-3p"
    browser.find_element(By.ID, "hint-on").click()
    row = wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint tr.hint-row"))[0]
    box, panel = browser.find_element(By.ID, "hint-box"), browser.find_element(By.ID, "hint")
    assert box.location["y"] < panel.location["y"]  # the switch sits above what it opens
    before = len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)"))
    row.click()
    wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)")) > before)
    browser.refresh()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    assert browser.find_element(By.ID, "hint-on").is_selected()
    assert errors(browser) == []


def test_the_board_shows_what_a_move_costs_before_the_click(server, browser):
    """Reachable districts say free or 1 llama, in their outline, a visible
    caption and a tooltip."""
    start(browser, server, seed="11")
    checked = 0
    for _ in range(40):  # play until a Prince move with both kinds of district
        wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action")
              or "Game over" in browser.find_element(By.ID, "status").text)
        free = browser.find_elements(By.CSS_SELECTOR, "#board g.clickable.free")
        costly = browser.find_elements(By.CSS_SELECTOR, "#board g.clickable.costly")
        if free and costly:
            for g, word in ((free[0], "free"), (costly[0], "1 llama")):
                assert g.find_element(By.CSS_SELECTOR, "text.cost").text.startswith(word)
                tip = g.find_element(By.TAG_NAME, "title").get_attribute("textContent")
                assert tip == g.get_attribute("aria-label") and tip
            checked += 1
            break
        browser.find_elements(By.CSS_SELECTOR, "button.action")[0].click()
        time.sleep(0.2)
    assert checked and errors(browser) == []


def test_save_a_position_and_open_its_link(server, browser):
    start(browser, server, seed="9")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    browser.find_elements(By.CSS_SELECTOR, "button.action")[0].click()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action:not([disabled])"))
    moves = browser.find_element(By.ID, "history").text
    browser.find_element(By.ID, "save").click()
    link = wait(lambda: browser.find_element(By.ID, "save-link").get_attribute("value"))
    assert "#save=" in link
    browser.get(server)  # elsewhere, later: the link opens a new game at that position
    browser.get(link)
    wait(lambda: "#game=" in browser.current_url)
    wait(lambda: browser.find_element(By.ID, "history").text == moves)
    assert errors(browser) == []


def _night_redeem_record():
    """A random game's record and the decision index where player 0 decides, at night, about
    a goods moon tile it has already put back on the board (R7.1)."""
    import random

    from machu_env import Game
    from machu_env.core.records import game_record

    for seed in range(300):
        game, rnd, at = Game(2, seed=seed), random.Random(seed), None
        while not game.is_over:
            if at is None and game.decision == "redeem" and game.day < 9 \
                    and game.current_player == 0:
                at = len(game.history)
                tile = game.view(0)["players"][0]["redeeming"]
                if tile in game.view(0)["players"][0]["moon_tiles"]:
                    at = None  # the tile must already be back on the board
            game.play(rnd.choice(game.legal_action_ids()))
        if at is not None:
            return game_record(game, ["random", "random"]), at, tile
    raise AssertionError("no night redemption in 300 random games")


def test_the_night_redemption_names_the_tile_on_the_board(server, browser):
    """At night a moon tile goes back to the board before its owner pays for
    it (R7.1); the player's panel still names it ("cloth (redeeming)"), not "moon: -"."""
    import json
    import urllib.request

    record, at, tile = _night_redeem_record()
    request = urllib.request.Request(server + "api/games", method="POST", data=json.dumps(
        {"record": record, "at": at, "seat": 0, "opponents": "random"}).encode(),
        headers={"Content-Type": "application/json"})
    state = json.loads(urllib.request.urlopen(request, timeout=60).read())
    browser.get(f"{server}#game={state['id']}")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "button.action"))
    board = browser.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
    assert f"{tile} (redeeming)" in board
    assert "Redeem the moon tile" in browser.find_element(By.ID, "actions").text
    assert errors(browser) == []


def test_opponents_are_picked_from_the_catalogue_with_ratings_and_remembered(server, browser):
    """No typing: each opponent is a list of the catalogue's agents with their ratings, the
    recommended agent of the player count first and chosen by default; a choice survives a
    reload (``machu agents`` is the same catalogue)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from machu_env.agents.catalogue import catalogue

    browser.get(server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    Select(browser.find_element(By.ID, "players")).select_by_value("3")
    selects = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
    assert len(selects) == 2 and not browser.find_elements(By.CSS_SELECTOR, "input.opponent")
    options = [(o.get_attribute("value"), o.text) for o in Select(selects[0]).options]
    assert options[0][0] == "best-3p"
    assert Select(selects[0]).first_selected_option.get_attribute("value") == "best-3p"
    rated = {r["alias"] or r["name"]: (r["rating"]["value"], r["vs_gold"]["value"])
             for r in catalogue(3) if r["rating"] and r["vs_gold"]}  # (the best by its alias)
    for name, (value, gold) in rated.items():  # every 3-player agent's rating and strength
        assert any(text.startswith(name) and f"{value:.1f}" in text
                   and f"{100 * gold:.0f} % vs gold" in text for _, text in options), name
    Select(selects[1]).select_by_value("builder")
    browser.refresh()
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    Select(browser.find_element(By.ID, "players")).select_by_value("3")
    kept = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
    assert [Select(s).first_selected_option.get_attribute("value") for s in kept] \
        == ["best-3p", "builder"]
    assert errors(browser) == []


