"""Screenshots of the web app from the real page (Debian's Chromium, headless, via Selenium).

    python docs/make_screenshots.py

Starts ``machu serve`` on a free port of 127.0.0.1, starts a 3-player game against ``ppo-3p``
and ``gold`` (seed 21), plays its first moves by clicking the first button and captures the
page at 1280x720 with the hints open (``docs/img/web_app.png``); then, on a 390x844 touch
screen (confirm moves on), the same game with a move chosen on the board and the bar's "play
it" in view (``docs/img/web_phone.png``: the board shows the decision's part; and
``docs/img/web_phone_whole.png``: the whole board), and a 2-player game against ``gold``
played to its end (``docs/img/web_phone_end.png``: the scores first, "replay this game" in the
bar). Needs the ``web`` and ``dev`` extras and ``chromium`` with ``chromium-driver``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

OUT = Path(__file__).resolve().parent / "img"


def _wait(condition, seconds: float = 60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError("the page did not get there")


def _server() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "machu_env.cli", "serve", "--port",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise TimeoutError("machu serve did not start")


def _touch(browser, width: int, height: int) -> None:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                            {"enabled": True, "maxTouchPoints": 1})


def _start(browser, url: str, opponents: tuple[str, ...], seed: str) -> None:
    browser.get(url)
    _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    Select(browser.find_element(By.ID, "players")).select_by_value(str(len(opponents) + 1))
    for box, name in zip(browser.find_elements(By.CSS_SELECTOR, "select.opponent"), opponents,
                         strict=True):
        Select(box).select_by_value(name)
    browser.find_element(By.ID, "seed").send_keys(seed)
    browser.find_element(By.ID, "start").click()


def _play_first(browser) -> None:
    """The first legal move, played (confirmed when confirm moves is on)."""
    button = _wait(lambda: browser.execute_script(
        "return !busy && document.querySelector('button.action:not([disabled])')"))
    browser.execute_script("arguments[0].click()", button)
    if browser.find_element(By.ID, "confirm-bar").is_displayed():
        browser.execute_script("arguments[0].click()", button)
    time.sleep(0.3)


def shoot(browser, url: str, width: int, height: int, path: Path, moves: int = 6) -> None:
    phone = width < 500
    browser.set_window_size(width, height)
    if phone:
        _touch(browser, width, height)
    else:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    _start(browser, url, ("ppo-3p", "gold"), "21")
    for _ in range(moves):
        _play_first(browser)
    _wait(lambda: browser.execute_script(
        "return !busy && document.querySelector('button.action:not([disabled])')"))
    if phone:  # a move chosen on the board: outlined there, "play it" in the bar
        spot = browser.find_elements(By.CSS_SELECTOR, "#board svg g.clickable")[-1]
        browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', "
                               "{bubbles: true}))", spot)
    else:
        if not browser.find_element(By.ID, "hint-on").is_selected():
            browser.find_element(By.ID, "hint-on").click()
        _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint tr.hint-row"))
        browser.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.5)
    browser.save_screenshot(str(path))
    print(f"wrote {path}")
    if phone:  # the same decision on the whole board, then back to the decision's part
        browser.find_element(By.ID, "zoom").click()
        time.sleep(0.5)
        whole = path.with_name(f"{path.stem}_whole.png")
        browser.save_screenshot(str(whole))
        print(f"wrote {whole}")
        browser.find_element(By.ID, "zoom").click()


def shoot_end(browser, url: str, path: Path) -> None:
    """A 2-player game against gold played to the end on the phone: the end screen."""
    _touch(browser, 390, 844)
    _start(browser, url, ("gold",), "3")
    for _ in range(400):
        if browser.find_element(By.ID, "final").is_displayed():
            break
        _play_first(browser)
    browser.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.5)
    browser.save_screenshot(str(path))
    print(f"wrote {path}")


def main() -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--hide-scrollbars"):
        options.add_argument(flag)
    proc, url = _server()
    browser = webdriver.Chrome(options=options,
                               service=Service(shutil.which("chromedriver") or "chromedriver"))
    try:
        shoot(browser, url, 1280, 720, OUT / "web_app.png")
        shoot(browser, url, 390, 844, OUT / "web_phone.png")
        shoot_end(browser, url, OUT / "web_phone_end.png")
    finally:
        browser.quit()
        proc.terminate()


if __name__ == "__main__":
    main()
