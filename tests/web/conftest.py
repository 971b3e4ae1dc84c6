"""The browser tests' fixtures: ``server`` (``machu serve`` on a free port) and ``browser``
(headless Debian Chromium through Selenium; skipped where Chromium or its driver is missing)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "machu_env.cli", "serve", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 180  # (machu serve warms the engine before it listens)
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"machu serve exited: {proc.stdout.read().decode()}")
            time.sleep(0.3)
    yield f"http://127.0.0.1:{port}/"
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (CHROMIUM and DRIVER):
        pytest.skip("needs chromium and chromedriver (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console errors
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    yield driver
    driver.quit()
