"""Replays as pictures: every position of a recorded game as an SVG board (``machu_env.views.svg``),
and a self-contained HTML page that steps through them.

    machu replay game.json --html game.html

The page needs no network and no server: the boards are stored gzip-compressed in the file
(the browser's own ``DecompressionStream`` unpacks them), stepped with buttons, a slider and the
arrow keys (Home/End: first/last, space: play/pause); beside the board, the list of decisions
(who decided what; a click jumps there) and, at the end, the scores. A replay shows every hand
by default (``player=None``); ``player`` restricts it to one seat's view or ``"public"`` (the
boards and the log: another player's summit returns read ``return a card``).
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Iterator
from html import escape
from typing import Any

from machu_env.core.records import replay
from machu_env.rules.actions import visible_notation
from machu_env.views.phrases import say, say_you


def _positions(record: dict[str, Any], player: int | str | None) -> tuple[dict, Iterator]:
    """The record replayed (ValueError first, before any work: a malformed record, a bad
    ``player``): its summary and an iterator over the SVG board before the first decision and
    after each, with the log entry of that decision (None for the first)."""
    from machu_env.views.svg import board_svg, clock_words, named_parts

    final = replay(record)  # the agents' names checked too (each at most MAX_AGENT_NAME)
    game = final.initial()
    board_svg(game, player)  # a bad player fails here, before the work
    agents = record.get("agents") or [f"player {p}" for p in range(game.num_players)]
    result = ({"end": final.end, "scores": final.scores()} if final.is_over else None)
    summary = {"num_players": game.num_players, "seed": record["options"]["seed"],
               "decisions": len(final.history), "agents": agents,
               "result": result, "clock": clock_words(game)}

    def boards() -> Iterator[tuple[str, dict | None]]:
        yield board_svg(game, player), None
        for p, action in final.history:
            day = game.day
            game.play(action)
            shown = visible_notation(action, p, player)
            parts = named_parts(shown)
            entry = {"day": day, "player": p, "action": shown, "says": say(shown),
                     "clock": clock_words(game), "focus": parts[0] if parts else None}
            if agents[p] == "you":  # the player's own moves, in the second person
                entry["says_you"] = say_you(shown)
            yield board_svg(game, player, (p, shown)), entry
    return summary, boards()


def replay_frames(record: dict[str, Any],
                  player: int | str | None = None) -> dict[str, Any]:
    """The record replayed: ``frames`` (the SVG board before the first decision and after
    each), ``log`` (one entry per decision: ``day``, ``player``, ``action``; the player's
    agent is ``agents[player]``: each name is sent once), ``agents``, ``num_players`` and
    ``result`` (the final scores, or None for an unfinished
    game). ValueError for a malformed record or a bad ``player``."""
    summary, boards = _positions(record, player)
    frames, log = [], []
    for frame, entry in boards:
        frames.append(frame)
        if entry is not None:
            log.append(entry)
    return {**summary, "frames": frames, "log": log}


MAX_GIF_FRAMES = 300  # about 0.5 MB each while Pillow assembles the GIF (800 px wide)


def replay_gif(record: dict[str, Any], path, player: int | str | None = None,
               fps: float = 2.0, every: int = 1, width: int = 800,
               max_frames: int = MAX_GIF_FRAMES) -> tuple[int, int]:
    """Write the record as an animated GIF (Pillow): the board before the first decision and
    after every ``every``-th one (and the last), the move just played outlined, ``fps``
    frames a second, ``width`` pixels wide. At most ``max_frames`` frames: a longer game is
    shown every k-th decision, k raised as needed (Pillow holds every frame until it writes
    the file). Returns (frames, the ``every`` used). Boards are drawn one at a time. ValueError
    for a malformed record, a bad ``player`` or bad options."""
    from PIL import Image

    from machu_env.views.raster import svg_to_rgb

    if not (isinstance(fps, (int, float)) and 0.1 <= fps <= 50):
        raise ValueError(f"fps must be a number in 0.1..50, got {fps!r}")
    if not (isinstance(every, int) and every >= 1):
        raise ValueError(f"every must be an int >= 1, got {every!r}")
    if not (isinstance(width, int) and 200 <= width <= 2000):
        raise ValueError(f"width must be an int in 200..2000, got {width!r}")
    if not (isinstance(max_frames, int) and 2 <= max_frames <= 10_000):
        raise ValueError(f"max_frames must be an int in 2..10000, got {max_frames!r}")
    summary, boards = _positions(record, player)
    last = summary["decisions"]
    every = max(every, -(-last // (max_frames - 1)))  # frames: 0, every, 2 every..., last
    frames = []
    for k, (svg, _) in enumerate(boards):
        if k % every and k != last:
            continue
        image = Image.fromarray(svg_to_rgb(svg))
        height = round(image.height * width / image.width)
        frames.append(image.resize((width, height), Image.LANCZOS)
                      .convert("P", palette=Image.ADAPTIVE, colors=128))
    frames[0].save(path, save_all=True, append_images=frames[1:], loop=0,
                   duration=[round(1000 / fps)] * (len(frames) - 1) + [3000], optimize=True)
    return len(frames), every


def packed_replay(record: dict[str, Any], player: int | str | None = None) -> dict[str, Any]:
    """``replay_frames`` with the frames packed as in the HTML page: ``frames_gz`` is the
    base64 of the gzip of the frames joined by NUL characters (a browser unpacks it with its
    own ``DecompressionStream``), ``num_frames`` their count. The frames are compressed as they
    are drawn, so memory stays at the packed size (about 3.6 kB a frame, against 40 kB drawn)."""
    summary, boards = _positions(record, player)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip stream
    chunks, log = [], []
    for frame, entry in boards:
        if entry is not None:
            log.append(entry)
            chunks.append(packer.compress(b"\0"))
        chunks.append(packer.compress(frame.encode()))
    chunks.append(packer.flush())
    packed = base64.b64encode(b"".join(chunks)).decode()
    return {**summary, "log": log, "num_frames": len(log) + 1, "frames_gz": packed}


def script_json(value: Any) -> str:
    """JSON safe inside an HTML ``<script>`` element: ``<``, ``>`` and ``&`` as ``\\u`` escapes,
    so no text in it (``</script>``, ``<!--``) can end or change the element."""
    return (json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def html_replay(record: dict[str, Any], player: int | str | None = None,
                title: str | None = None) -> str:
    """A self-contained HTML page replaying ``record`` (see the module docstring)."""
    r = packed_replay(record, player)
    meta = {k: r[k] for k in ("num_players", "seed", "agents", "log", "result")}
    dealt = "a dealt game" if r["seed"] is None else f"seed {r['seed']}"
    title = title or f"Machu Picchu replay: {r['num_players']} players, {dealt}"
    parts = {"TITLE": escape(title), "META": script_json(meta), "FRAMES": r["frames_gz"]}
    return re.sub(r"%(TITLE|META|FRAMES)%", lambda m: parts[m.group(1)], _PAGE)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%TITLE%</title>
<style>
body { font-family: system-ui, sans-serif; margin: 12px; background: #faf8f2; color: #222; }
#main { display: flex; gap: 14px; align-items: flex-start; }
#board { flex: 0 1 1000px; min-width: 500px; }
#board svg { width: 100%; height: auto; border: 1px solid #ccc; background: #fff; }
#side { flex: 1 1 300px; max-width: 420px; }
#log { height: 560px; overflow-y: auto; border: 1px solid #ccc; background: #fff;
       font-size: 13px; padding: 0; margin: 0; list-style: none; }
#log li { padding: 2px 6px; cursor: pointer; }
#log li.now { background: #ffe08a; font-weight: bold; }
#controls { display: flex; gap: 6px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
#slider { flex: 1 1 300px; }
button { font-size: 15px; min-width: 40px; }
table { border-collapse: collapse; margin-top: 8px; }
td, th { border: 1px solid #bbb; padding: 2px 8px; text-align: right; }
</style></head>
<body>
<h2 id="title">%TITLE%</h2>
<div id="controls">
 <button id="first" title="first (Home)">&laquo; first</button>
 <button id="prev" title="previous (left arrow)">&lsaquo; prev</button>
 <button id="play" title="play / pause (space)">play</button>
 <button id="next" title="next (right arrow)">next &rsaquo;</button>
 <button id="last" title="last (End)">last &raquo;</button>
 <input id="slider" type="range" min="0" max="0" value="0" aria-label="position">
 <span id="where"></span>
</div>
<div id="main"><div id="board">loading...</div>
<div id="side"><ol id="log"></ol><div id="result"></div></div></div>
<script type="application/json" id="meta">%META%</script>
<script type="text/plain" id="frames">%FRAMES%</script>
<script>
"use strict";
const meta = JSON.parse(document.getElementById("meta").textContent);
let frames = [], k = 0, timer = null;
const $ = (id) => document.getElementById(id);
function show(i) {
  k = Math.max(0, Math.min(frames.length - 1, i));
  $("board").innerHTML = frames[k];
  $("slider").value = k;
  $("where").textContent = k === 0 ? "start" : `decision ${k} of ${meta.log.length}`;
  document.querySelectorAll("#log li").forEach((li, j) => {
    li.classList.toggle("now", j === k - 1);
    if (j === k - 1) li.scrollIntoView({block: "nearest"});
  });
  $("result").hidden = k !== frames.length - 1;
}
function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "play"; return; }
  if (k === frames.length - 1) show(0);
  $("play").textContent = "pause";
  timer = setInterval(() => { if (k >= frames.length - 1) play(); else show(k + 1); }, 600);
}
function fillSide() {
  meta.log.forEach((e, j) => {
    const li = document.createElement("li");
    const who = meta.agents[e.player];
    li.textContent = `${j + 1}. day ${e.day} \\u00b7 P${e.player} (${who}) ${e.says}`;
    li.title = e.action;  // the notation
    li.onclick = () => show(j + 1);
    $("log").appendChild(li);
  });
  const res = $("result");
  if (!meta.result) { res.textContent = "unfinished game"; return; }
  const t = document.createElement("table");
  t.innerHTML = "<tr><th>player</th><th>agent</th><th>VP</th><th>x</th><th>score</th></tr>";
  meta.result.scores.forEach((s, p) => {
    const row = t.insertRow();
    for (const v of [`P${p}${s.winner ? " (winner)" : ""}`, meta.agents[p], s.vp,
                     s.multiplier, s.score]) row.insertCell().textContent = v;
  });
  res.textContent = `ended by ${meta.result.end}`;
  res.appendChild(t);
}
async function load() {
  const bytes = Uint8Array.from(atob($("frames").textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  frames = (await new Response(stream).text()).split("\\u0000");
  $("slider").max = frames.length - 1;
  fillSide();
  show(0);
}
$("first").onclick = () => show(0);
$("prev").onclick = () => show(k - 1);
$("next").onclick = () => show(k + 1);
$("last").onclick = () => show(frames.length - 1);
$("play").onclick = play;
$("slider").oninput = (e) => show(Number(e.target.value));
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
  const keys = {ArrowLeft: () => show(k - 1), ArrowRight: () => show(k + 1),
                Home: () => show(0), End: () => show(frames.length - 1), " ": play};
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
load().catch((err) => { $("board").textContent = "cannot unpack the boards: " + err; });
</script></body></html>
"""
