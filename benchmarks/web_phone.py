"""A whole web game on a phone, measured as a player feels it (Debian's Chromium, headless).

    python benchmarks/web_phone.py                       # 390x844, against best-2p, seed 11
    python benchmarks/web_phone.py --opponent gold --seed 3 --out results.json
    python benchmarks/web_phone.py --whole               # the whole board, not the part
    python benchmarks/web_phone.py --players 3 --opponent gold --seed 5

Starts ``machu serve`` on a free port of 127.0.0.1, opens the page on a 390x844 touch screen
(confirm moves on, as a touch screen starts), starts a game (2 players unless ``--players``)
with the board showing the decision's part (the default) and plays it to the end by
tapping: the board wherever the decision has a place there (a district, a market space, a moon
tile, a priest row, a trail space), the buttons otherwise; every other move is confirmed by a
second tap on the same move, the others by the bar's "play it"; one decision is taken back.
At every decision it records what is in the viewport together (the prompt, the action bar,
every player's row of the strip, the decision's part of the board), the size of every board text
in view and of every legal spot's hit area on the screen, whether the page scrolls sideways, and any
text in engine notation; each press is checked to be on screen before it is
made (a press that first needs a scroll is counted). At the end: the scores in view, then
"replay this game" stepped with "next" (the controls in view at each step, the clock checked
against the record). Writes the figures as JSON (``benchmarks/results/web_phone.json``).

``play_phone_game`` is the driver; the browser test (tests/web/test_browser_play.py) plays a
game with it against ``random`` and asserts the goals.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from pathlib import Path
from typing import Any

# what the engine calls things, never what a player reads: snake_case names, goods joined
# without a space, a card's notation (llama+puma), a moon tile's (trail2), the notation's verbs
ENGINE_WORDS = re.compile(r"\b[a-z]+_[a-z_]+\b|\b(corn|llama|coca|pottery|cloth),[a-z]"
                          r"|\b[a-z]+\+[a-z]+\b|\btrail[23]\b|\bactive player\b"
                          r"|\bsunclock\b|\bforgo (corn|llama|coca|pottery|cloth|trail[23])\b"
                          r"|\bmove [a-z]+_")

TEXTS = """return [...(function* walk(n) {
  for (const c of n.childNodes) {
    if (c.nodeType === 3 && c.textContent.trim()) yield c.textContent;
    else if (c.nodeType === 1 && !["SCRIPT", "STYLE"].includes(c.tagName)
             && getComputedStyle(c).display !== "none") yield* walk(c);
  }
})(document.body)];"""

# viewport checks, in the page: an element is seen when it is drawn, inside the viewport, and
# the topmost thing at its centre (no fixed bar over it)
KIT = """
const drawn = (e) => !!e && e.getClientRects().length > 0;
const inside = (r) => r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1
  && r.right <= innerWidth + 1;
const onTop = (e) => { const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return !!hit && (hit === e || e.contains(hit) || hit.contains(e)
                   || (!!e.id && hit.dataset && hit.dataset.spot === e.id)); };  // (its hit area)
const seen = (e) => drawn(e) && inside(e.getBoundingClientRect());
const pressable = (e) => seen(e) && onTop(e);
"""

CONTEXT = KIT + """
const board = document.getElementById("board"), b = board.getBoundingClientRect();
const box = {top: Math.max(b.top, 0), bottom: Math.min(b.bottom, innerHeight),
             left: Math.max(b.left, 0), right: Math.min(b.right, innerWidth)};
const centreIn = (e) => { const r = e.getBoundingClientRect(), x = (r.left + r.right) / 2,
  y = (r.top + r.bottom) / 2; return x >= box.left && x <= box.right && y >= box.top
  && y <= box.bottom; };
const spots = [...board.querySelectorAll("svg g.clickable")];
let parts = spots;
if (!spots.length) {
  const focus = game.focus && board.querySelector(`svg [id="${game.focus}"]`);
  parts = focus ? [focus] : [document.getElementById(`strip-p${game.seat}`)];
}
const part = parts.every((e) => e && (e.closest("#strip") ? seen(e) : centreIn(e)));
const rows = [...document.querySelectorAll("#strip .row")];
return {decision: game.decision, prompt: seen(document.getElementById("status")),
        bar: seen(document.getElementById("bar")), spots: spots.length,
        strip: rows.length === game.num_players && rows.every(seen), part: part,
        view: (board.querySelector("svg") || {getAttribute: () => null}).getAttribute("viewBox"),
        others_since: (() => { const h = game.history; let to = h.length;  // (as the page)
          while (to > 0 && h[to - 1].player === game.seat) to--;
          let from = to; while (from > 0 && h[from - 1].player !== game.seat) from--;
          return to - from; })(),
        since_seen: seen(document.getElementById("since"))
          && document.getElementById("since").textContent.length > 0,
        log_pressable: pressable(document.getElementById("log-open")),
        hint_pressable: pressable(document.getElementById("hint-ask")),
        sideways: document.documentElement.scrollWidth > innerWidth + 1};"""

# what a thumb meets at the board's scale as shown: every board text's size on the screen, and
# every legal spot's hit area (its invisible ``rect.hit`` over the board, else the piece) and
# whether two meet
THUMBS = """
const svg = document.querySelector("#board svg"), box = svg.getBoundingClientRect();
const scale = box.width / svg.viewBox.baseVal.width;
const shown = (r) => [Math.max(r.left, box.left), Math.max(r.top, box.top),
                      Math.min(r.right, box.right), Math.min(r.bottom, box.bottom)];
const inView = (r) => { const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
  return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom; };
const texts = [...svg.querySelectorAll("text")].filter((t) => inView(t.getBoundingClientRect()))
  .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
const spots = [...svg.querySelectorAll("g.clickable")];
const areas = spots.map((g) => shown(
  (svg.querySelector(`rect.hit[data-spot="${g.id}"]`) || g).getBoundingClientRect()));
let overlaps = 0, pairs = [];
for (let i = 0; i < areas.length; i++) for (let j = i + 1; j < areas.length; j++) {
  const [a, b] = [areas[i], areas[j]];
  if (Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > 0.5
      && Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5) {
    overlaps++; pairs.push(spots[i].id + "/" + spots[j].id); } }
const small = texts.filter((s) => s < 9).length;
return {texts: texts.length, texts_9px: texts.length - small,
        smallest_text: texts.length ? Math.min(...texts) : null, spots: areas.length,
        spots_44px: areas.filter((a) => a[2] - a[0] >= 43.5 && a[3] - a[1] >= 43.5).length,
        spots_48px: areas.filter((a) => a[2] - a[0] >= 47.5 && a[3] - a[1] >= 47.5).length,
        smallest_spot: areas.length ? Math.min(...areas.map(
          (a) => Math.min(a[2] - a[0], a[3] - a[1]))) : null,
        overlaps, pairs: pairs.slice(0, 3), board_height: box.height};"""

# every render of the page, timed: the own move on screen and the agents' reply
HOOK = """
if (!window.__renders) {
  window.__renders = [];
  const original = render;
  render = function (state) { original(state);
    window.__renders.push([performance.now(), state.history.length, state.your_turn,
                           state.over]); };
}
window.__t0 = performance.now(); window.__h0 = game.history.length; window.__renders.length = 0;
"""
TIMES = """
const own = window.__renders.find((r) => r[1] > window.__h0);
const reply = window.__renders.find((r) => r[1] > window.__h0 && (r[2] || r[3]));
return [own ? own[0] - window.__t0 : null, reply ? reply[0] - window.__t0 : null,
        window.__renders.length && window.__renders.at(-1)[2] === false
        && window.__renders.at(-1)[1] === window.__h0 + 1];"""


def _wait(condition, seconds: float = 60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError("the page did not get there")


def phone(browser) -> None:
    """A 390x844 touch screen."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                            {"enabled": True, "maxTouchPoints": 1})


class Finger:
    """Taps as a finger does (a touch at the element's centre); a tap on something not on
    screen (outside the viewport, or under the fixed bar) is counted, then scrolled to."""

    def __init__(self, browser) -> None:
        self.browser, self.off_screen, self.presses = browser, [], 0

    def tap(self, element, what: str) -> None:
        b = self.browser
        self.presses += 1
        if not b.execute_script(KIT + "return pressable(arguments[0]);", element):
            self.off_screen.append(what)
            b.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        x, y = b.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                "return [r.left + r.width / 2, r.top + r.height / 2]", element)
        b.execute_cdp_cmd("Input.dispatchTouchEvent",
                          {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        b.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _notation(browser) -> list[str]:
    return [t.strip()[:80] for t in browser.execute_script(TEXTS) if ENGINE_WORDS.search(t)]


def _sideways(browser) -> bool:
    return browser.execute_script(
        "return document.documentElement.scrollWidth > innerWidth + 1")


def play_phone_game(browser, url: str, opponent: str = "random", seed: int = 7,
                    replay_steps: int = 40, whole: bool = False,
                    players: int = 2) -> dict[str, Any]:
    """Play one game of ``players`` at ``url`` on the phone (``phone(browser)`` first) as the
    module says, with the board showing the decision's part (the default) or the ``whole`` board;
    returns the measurements (one context per decision, the presses, the timings)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    find = browser.find_element
    browser.get(url)
    browser.execute_script("localStorage.setItem('machu-board', arguments[0])",
                           "whole" if whole else "part")
    browser.get(url)
    _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-agent option"))
    Select(find(By.ID, "players")).select_by_value(str(players))
    for select in browser.find_elements(By.CSS_SELECTOR, "select.opponent"):
        Select(select).select_by_value(opponent)
    out: dict[str, Any] = {"opponent": opponent, "seed": seed, "contexts": [],
                           "notation": [], "sideways": [], "own_ms": [], "reply_ms": [],
                           "board_moves": 0, "button_moves": 0, "took_back": 0,
                           "confirmed_by": {"second tap": 0, "play it": 0},
                           "confirm_default": find(By.ID, "confirm-on").is_selected()}
    finger = Finger(browser)
    if _sideways(browser):
        out["sideways"].append("setup")
    find(By.ID, "seed").send_keys(str(seed))
    finger.tap(find(By.ID, "start"), "start")
    rnd = random.Random(seed)
    for _ in range(800):
        _wait(lambda: browser.execute_script(  # (a page busy with the last move takes no tap)
            "return !busy && (!!document.querySelector('button.action:not([disabled])') "
            "|| !!document.getElementById('final').getClientRects().length)"))
        if find(By.ID, "final").is_displayed():
            break
        context = browser.execute_script(CONTEXT)
        context["thumbs"] = browser.execute_script(THUMBS)
        out["contexts"].append(context)
        out["notation"] += _notation(browser)
        if context["sideways"]:
            out["sideways"].append(context["decision"])
        back = find(By.ID, "take-back")
        if back.is_displayed() and not out["took_back"]:
            before = len(browser.find_elements(By.CSS_SELECTOR, "#history li:not(.day)"))
            finger.tap(back, "take back")
            _wait(lambda b=before: len(browser.find_elements(
                By.CSS_SELECTOR, "#history li:not(.day)")) == b - 1)
            out["took_back"] += 1
            continue
        spots = browser.find_elements(By.CSS_SELECTOR, "#board svg g.clickable")
        if spots:
            target, kind = rnd.choice(spots), "board"
        else:
            target = rnd.choice(browser.find_elements(
                By.CSS_SELECTOR, "#actions button.action:not([disabled])"))
            kind = "button"
        confirm = find(By.ID, "confirm-on").is_selected()
        if not confirm:  # the first tap plays: the clock starts before it
            browser.execute_script(HOOK)
        finger.tap(target, f"{context['decision']} ({kind})")
        if confirm:
            try:
                _wait(lambda: find(By.ID, "confirm-bar").is_displayed(), 10)
            except TimeoutError:
                at = browser.execute_script(
                    "const r = arguments[0].getBoundingClientRect(); const e = document."
                    "elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2); return "
                    "[r.left, r.top, r.width, r.height, e && e.outerHTML.slice(0, 200), "
                    "innerHeight]", target)
                raise TimeoutError(f"no confirm line after a tap on {kind} "
                                   f"{target.get_attribute('id')!r} ({at}) at {context}"
                                   ) from None
            browser.execute_script(HOOK)
            second = len(out["contexts"]) % 2 == 0
            out["confirmed_by"]["second tap" if second else "play it"] += 1
            finger.tap(target if second else find(By.ID, "confirm-yes"), "confirm")
        out["board_moves" if kind == "board" else "button_moves"] += 1
        try:
            own, reply, _ = _wait(lambda: (t := browser.execute_script(TIMES))[1] is not None
                                  and t, 120)
        except TimeoutError:
            at = browser.execute_script(
                "const r = arguments[0].getBoundingClientRect(); const e = document."
                "elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2); return "
                "[chosen, r.left, r.top, r.width, r.height, e && e.outerHTML.slice(0, 160)]",
                target)
            raise TimeoutError(f"no reply after a tap on {target.get_attribute('id')} {at} "
                               f"{context}: {browser.execute_script(TIMES)} "
                               f"{find(By.ID, 'status').text!r} {find(By.ID, 'error').text!r}"
                               ) from None
        out["own_ms"].append(own)
        out["reply_ms"].append(reply)
    out["status"] = find(By.ID, "status").text
    out["notation"] += _notation(browser)
    out["end"] = browser.execute_script(
        KIT + "return {scores: seen(document.querySelector('#final table')), "
        "replay: pressable(document.getElementById('replay-this'))};")
    if _sideways(browser):
        out["sideways"].append("end")
    out.update(_replay(browser, finger, replay_steps))
    out["off_screen"], out["presses"] = finger.off_screen, finger.presses
    return out


def _replay(browser, finger: Finger, steps: int) -> dict[str, Any]:
    """"replay this game", then ``steps`` taps on "next": the controls in view at each, the
    clock the record's at each position."""
    from selenium.webdriver.common.by import By

    find = browser.find_element
    finger.tap(find(By.ID, "replay-this"), "replay this game")
    _wait(lambda: find(By.ID, "replay-controls").is_displayed())
    clocks, wrong, hidden = [], 0, 0
    for _ in range(steps):
        if not browser.execute_script(KIT + "return pressable(document.getElementById("
                                      "'r-next'));"):
            hidden += 1
        finger.tap(find(By.ID, "r-next"), "replay next")
        shown, want = browser.execute_script(
            "const e = replay.log[replay.k - 1]; return [document.getElementById('clock')"
            ".textContent, (e ? e.clock : replay.clock) + ' (replay)'];")
        clocks.append(shown)
        wrong += shown != want
    return {"replay_steps": steps, "replay_controls_hidden": hidden,
            "replay_clock_wrong": wrong, "replay_nights": sum("Night" in c for c in clocks),
            "replay_sideways": _sideways(browser), "replay_notation": _notation(browser)}


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """The goals' figures from ``play_phone_game``'s result."""
    contexts = result["contexts"]
    together = [c for c in contexts if c["prompt"] and c["bar"] and c["strip"] and c["part"]]

    def median(xs):
        return round(statistics.median(xs), 1) if xs else None

    thumbs = [c["thumbs"] for c in contexts]

    def share(part, whole):
        total = sum(t[whole] for t in thumbs)
        return round(sum(t[part] for t in thumbs) / total, 4) if total else None

    # consecutive decisions of one kind (two Prince moves, two productions...): the board's
    # view should stay put between them
    pairs = [(a, b) for a, b in zip(contexts, contexts[1:], strict=False)
             if a["decision"] == b["decision"]]
    moved = sum(a.get("view") != b.get("view") for a, b in pairs)
    after = [c for c in contexts if c.get("others_since")]  # the others moved since yours
    return {"decisions": len(contexts), "all_in_view": len(together),
            "decisions_after_others_moved": len(after),
            "others_moves_in_view": sum(bool(c.get("since_seen")) for c in after),
            "move_log_one_tap_away": sum(bool(c.get("log_pressable")) for c in contexts),
            "hint_one_tap_away": sum(bool(c.get("hint_pressable")) for c in contexts),
            "same_kind_pairs": len(pairs), "same_kind_view_changes": moved,
            "same_kind_view_change_share": round(moved / len(pairs), 4) if pairs else None,
            "board_texts_9px_share": share("texts_9px", "texts"),
            "legal_spots_44px_share": share("spots_44px", "spots"),
            "legal_spots_48px_share": share("spots_48px", "spots"),
            "hit_area_overlaps": sum(t["overlaps"] for t in thumbs),
            "overlapping_spots": sorted({p for t in thumbs for p in t["pairs"]})[:10],
            "all_in_view_share": round(len(together) / max(len(contexts), 1), 4),
            "missing": {k: sum(not c[k] for c in contexts)
                        for k in ("prompt", "bar", "strip", "part")},
            "board_moves": result["board_moves"], "button_moves": result["button_moves"],
            "presses": result["presses"], "presses_off_screen": len(result["off_screen"]),
            "sideways_screens": len(result["sideways"]) + result["replay_sideways"],
            "notation_texts": len(result["notation"]) + len(result["replay_notation"]),
            "own_move_ms_median": median(result["own_ms"]),
            "reply_ms_median": median(result["reply_ms"]),
            "replay_clock_wrong": result["replay_clock_wrong"],
            "replay_controls_hidden": result["replay_controls_hidden"]}


def serve_and_browse():
    """``machu serve`` on a free port of 127.0.0.1 (listening) and a headless Chromium:
    (server process, browser, port); the caller quits both."""
    import shutil
    import socket
    import subprocess
    import sys

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "machu_env.cli", "serve", "--port",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options,
                               service=Service(shutil.which("chromedriver") or "chromedriver"))
    _wait(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 300)
    return server, browser, port


def main() -> None:
    import platform


    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponent", default="best-2p")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6))
    parser.add_argument("--whole", action="store_true",
                        help="the whole board fitted to the width (not the decision's part)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "web_phone.json"))
    args = parser.parse_args()
    server, browser, port = serve_and_browse()
    try:
        phone(browser)
        result = play_phone_game(browser, f"http://127.0.0.1:{port}/", args.opponent, args.seed,
                                 whole=args.whole, players=args.players)
    finally:
        browser.quit()
        server.terminate()
    from machu_env.bench.machine import cpu_model

    record = {"command": f"python benchmarks/web_phone.py --opponent {args.opponent} --seed "
                         f"{args.seed}" + " --whole" * args.whole
                         + (f" --players {args.players}" if args.players != 2 else ""),
              "date": time.strftime("%Y-%m-%d"),
              "machine": f"{cpu_model()} ({platform.machine()})", "viewport": "390x844 touch",
              **summary(result), "off_screen": result["off_screen"],
              "confirmed_by": result["confirmed_by"], "status": result["status"]}
    from machu_env.core import files

    files.write_json(Path(args.out), record)
    print(f"{record['decisions']} decisions: all in view at {record['all_in_view']}; board "
          f"moves {record['board_moves']}, buttons {record['button_moves']}; the view moved "
          f"between {record['same_kind_view_changes']} of {record['same_kind_pairs']} "
          f"decisions of one kind in a row; the others' moves in view at "
          f"{record['others_moves_in_view']} of {record['decisions_after_others_moved']}, the "
          f"move log one tap away at {record['move_log_one_tap_away']}; presses off screen "
          f"{record['presses_off_screen']}; "
          f"your move {record['own_move_ms_median']} ms, the reply {record['reply_ms_median']} "
          f"ms (medians); wrote {args.out}")


if __name__ == "__main__":
    main()
