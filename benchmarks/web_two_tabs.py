"""One web game in two tabs, timed as a player feels it (Debian's Chromium, headless).

    python benchmarks/web_two_tabs.py                    # 10 moves against random, seed 4
    python benchmarks/web_two_tabs.py --moves 20 --out results.json

Starts ``machu serve`` on a free port of 127.0.0.1, opens a game in one tab and the same game
in a second, then, ``--moves`` times: plays the first legal move in the first tab, waits until
the agents replied there, switches to the second tab and measures the seconds until its
history shows the same moves (the page's poll finds the change and draws the new state). The
goal: every catch-up within 2 s. Writes ``benchmarks/results/web_two_tabs.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ENABLED = "button.action:not([disabled])"


def _wait(condition, seconds: float = 60.0, step: float = 0.02):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise TimeoutError("the page did not get there")


def catch_ups(browser, url: str, moves: int, seed: int) -> list[float]:
    """The second tab's seconds to show each of the first tab's moves."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    history = lambda: browser.find_element(By.ID, "history").text  # noqa: E731
    browser.get(url)
    _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    for select in browser.find_elements(By.CSS_SELECTOR, "select.opponent"):
        Select(select).select_by_value("random")
    browser.find_element(By.ID, "seed").send_keys(str(seed))
    browser.find_element(By.ID, "start").click()
    _wait(lambda: browser.find_elements(By.CSS_SELECTOR, ENABLED))
    first = browser.current_window_handle
    browser.execute_script("window.open(arguments[0], '_blank')", browser.current_url)
    second = next(h for h in browser.window_handles if h != first)
    times = []
    for _ in range(moves):
        browser.switch_to.window(first)
        _wait(lambda: browser.find_elements(By.CSS_SELECTOR, ENABLED))
        before = history()
        browser.find_element(By.CSS_SELECTOR, ENABLED).click()
        _wait(lambda before=before: history() != before
              and browser.find_elements(By.CSS_SELECTOR, ENABLED))
        shown = history()
        browser.switch_to.window(second)
        t0 = time.perf_counter()
        _wait(lambda shown=shown: history() == shown)
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    from machu_env.core import files

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from web_phone import serve_and_browse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" /
                                             "web_two_tabs.json"))
    args = parser.parse_args()
    server, browser, port = serve_and_browse()
    try:
        times = catch_ups(browser, f"http://127.0.0.1:{port}/", args.moves, args.seed)
    finally:
        browser.quit()
        server.terminate()
    from machu_env.bench.machine import cpu_model

    record = {"command": f"python benchmarks/web_two_tabs.py --moves {args.moves} --seed "
                         f"{args.seed}", "date": time.strftime("%Y-%m-%d"),
              "machine": f"{cpu_model()} ({platform.machine()})",
              "load": [round(x, 2) for x in os.getloadavg()],
              "catch_up_seconds": [round(t, 3) for t in times],
              "median_seconds": round(statistics.median(times), 3),
              "max_seconds": round(max(times), 3), "within_2_s": sum(t <= 2 for t in times)}
    files.write_json(args.out, record, indent=1)
    print(f"the second tab caught up in {record['median_seconds']:.2f} s (median), "
          f"{record['max_seconds']:.2f} s at most; {record['within_2_s']} of {len(times)} "
          f"within 2 s; wrote {args.out}")


if __name__ == "__main__":
    main()
