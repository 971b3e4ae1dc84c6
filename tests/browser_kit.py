"""Helpers of the browser tests (tests/web/test_browser*.py): waiting on the page, starting
a game from the form, a branch of a random game's record, the console's errors."""

from __future__ import annotations

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def wait(condition, seconds: float = 30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for the page")

def smallest_board_text(browser) -> float:
    """The smallest font size of the board's texts in view (their middle inside the picture's
    box, which a phone crops to the decision's part), in CSS pixels: the benchmark's measure."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from web_phone import THUMBS

    return browser.execute_script(THUMBS)["smallest_text"]



def ready(browser, opponent="random"):
    """Wait for the agent list, then set every opponent to ``opponent`` (``random``: the
    games these tests play are quick)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    for select in browser.find_elements(By.CSS_SELECTOR, "select.opponent"):
        Select(select).select_by_value(opponent)



def start(browser, server, seed="7", opponent="random", **fields):
    """A new game from the form: the selects of ``fields`` by id, every opponent ``opponent``."""
    browser.get(server)
    ready(browser, opponent)
    for name, value in fields.items():
        Select(browser.find_element(By.ID, name)).select_by_value(value)
    for select in browser.find_elements(By.CSS_SELECTOR, "select.opponent"):
        Select(select).select_by_value(opponent)
    browser.find_element(By.ID, "seed").send_keys(seed)
    browser.find_element(By.ID, "start").click()



def errors(browser) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]

def record_where(found, players=2, games=300):
    """A random game's record and the first decision index at which ``found(game)`` holds
    (player 0 to decide), for a branch that starts there."""
    import random

    from machu_env import Game
    from machu_env.core.records import game_record

    for seed in range(games):
        game, rnd, at = Game(players, seed=seed), random.Random(seed), None
        while not game.is_over:
            if at is None and game.current_player == 0 and found(game):
                at = len(game.history)
            game.play(rnd.choice(game.legal_action_ids()))
        if at is not None:
            return game_record(game, ["random"] * players), at
    raise AssertionError("no such position in the random games")

def open_replay(browser, server, tmp_path, seed):
    """A random 2-player game (seat 0 "you", seat 1 ``random``) opened as a replay from its
    record file, shown at its start: the finished ``Game``."""
    import json
    import random

    from machu_env import Game
    from machu_env.core.records import game_record

    game, rnd = Game(2, seed=seed), random.Random(seed)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(game, ["you", "random"])))
    browser.get(server)
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait(lambda: browser.find_element(By.ID, "r-where").text == "start")
    return game


def open_branch(server, browser, record, at, players=2):
    import json
    import urllib.request

    request = urllib.request.Request(server + "api/games", method="POST", data=json.dumps(
        {"record": record, "at": at, "seat": 0, "opponents": ["random"] * (players - 1)})
        .encode(), headers={"Content-Type": "application/json"})
    state = json.loads(urllib.request.urlopen(request, timeout=60).read())
    browser.get(f"{server}#game={state['id']}")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#actions button"))
    return state

def moves(browser) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)"))
