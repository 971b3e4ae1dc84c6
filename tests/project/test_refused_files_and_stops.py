"""Files and stops a careless or hostile user makes, one test per defect —
a policy file that drives its legal logits below any fixed mask, unreadable tensor dtypes, lone
surrogates, mixed tournament folders, Ctrl-C and SIGTERM on a real ``machu`` process, FIFOs
among records, deals the rules cannot produce, failed commands that left folders, a tournament
folder given to ``machu analyze``. The dataset cases run where Minari is installed
(tests/train/test_dataset.py) and the server's cases against a real uvicorn
(tests/web/test_web_server.py)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from machu_env import Game
from machu_env.core.records import game_record, read_record, replay

torch = pytest.importorskip("torch")
from hostile_files import f8_file, flat_policy  # noqa: E402


def _cli(argv, capsys):
    from machu_env.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- item 1: a policy whose legal logits are about -1e17 -----------------------------------------
def test_the_mask_holds_where_a_fixed_illegal_logit_would_not():
    from machu_env.agents.masking import masked_argmax, masked_logits, masked_probabilities

    logits = torch.full((3, 6), -1.0e17)
    logits[1] = torch.tensor([float("nan"), -float("inf"), float("inf"), 1.0, 2.0, 3.0])
    masks = torch.tensor([[False, False, True, False, True, False],
                          [True, True, False, False, False, False],
                          [False] * 6])  # a row with no legal action: numbers, not NaN
    row = logits[0]
    old = torch.where(masks[0], row, torch.tensor(min(-1e8, float(row.min()) - 1e8)))
    assert bool((old == old[2]).all())  # the old masking: every action ties
    out = masked_logits(logits, masks)
    assert torch.isfinite(out[masks]).all() and (out[:2][~masks[:2]] == -torch.inf).all()
    chosen = masked_argmax(logits, masks).tolist()
    assert chosen[0] == 2 and chosen[1] in (0, 1)  # NaN and -inf are legal, least likely
    probs = masked_probabilities(logits, masks, temperature=0.01)
    assert torch.isfinite(probs).all() and (probs[:2][~masks[:2]] == 0).all()
    assert torch.allclose(probs.sum(1), torch.ones(3))


def test_a_flat_policy_plays_only_legal_actions_everywhere(tmp_path):
    """The agent, its hints, the batched bank and the rollout agent's play-outs."""
    from machu_env.agents import make_agent
    from machu_env.agents.policy_file import parse
    from machu_env.train.ppo.bank import PolicyBank

    path = flat_policy(tmp_path / "flat.safetensors")
    for name in (f"policy:{path}", f"rollout:policy:{path}"):
        agent = make_agent(name, seed=0, **({"seconds": 0.05} if "rollout" in name else {}))
        game, rng = Game(2, seed=1), random.Random(0)
        while not game.is_over and len(game.history) < 40:
            legal = game.legal_action_ids()
            if game.current_player == 0:
                if name.startswith("policy"):
                    probs = agent.probabilities(game)
                    assert probs[np.setdiff1d(np.arange(len(probs)), legal)].sum() == 0
                a = agent.act(game)
                assert a in legal, (name, a)
            else:
                a = rng.choice(legal)
            game.play(a)
    from machu_env.agents.policy_file import build_net

    tensors, config, _ = parse(path.read_bytes())
    net = build_net(tensors, config)
    bank = PolicyBank([net, net], deterministic=[True, False])  # argmax and sampling
    game = Game(2, seed=4)
    obs = np.stack([game.observation(game.current_player)] * 8)
    masks = np.stack([game.action_mask().astype(bool)] * 8)
    chosen = bank(obs, masks, np.arange(8) % 2)
    assert masks[np.arange(8), chosen].all()


def test_play_outs_stop_at_their_deadline():
    """The rollout agent's budget holds even for a policy whose games run long: a play-out past
    its deadline ends every row with the value head at once (nothing is played)."""
    from machu_env.agents.policy_file import net_config, new_net
    from machu_env.agents.rollout import play_out
    from machu_env.engine.flow import advance
    from machu_env.rules import layout as L
    from machu_env.rules.actions import NUM_ACTIONS

    net = new_net(net_config([8]), 0)
    S = np.stack([Game(2, seed=s).state.copy() for s in range(4)])
    B = np.zeros((4, NUM_ACTIONS), np.int32)
    C = np.array([advance(S[i], B[i]) for i in range(4)], np.int32)
    before = S[:, L.DECISIONS].copy()
    obs, masks = np.zeros((4, 377), np.float32), np.zeros((4, NUM_ACTIONS), np.bool_)
    result = play_out(net, S, C, B, obs, masks, 2, 400, np.zeros((5, 6), np.int32),
                      deadline=time.perf_counter() - 1)
    assert np.array_equal(S[:, L.DECISIONS], before) and result.shape == (4, 2)
    played = play_out(net, S, C, B, obs, masks, 2, 400, np.zeros((5, 6), np.int32))
    assert (S[:, L.DECISIONS] > before).all() and np.abs(played).max() <= 1


# --- item 4: a tensor dtype that torch does not have ----------------------------------------------
def test_an_unreadable_dtype_is_one_line_everywhere(tmp_path, capsys):
    from machu_env.agents import make_agent

    path = f8_file(tmp_path / "f8.safetensors")
    with pytest.raises(ValueError, match=r"f8.safetensors: unreadable tensors \(KeyError: "
                                         r"'F8_E8M0'\); a policy file holds float32 tensors"):
        make_agent(f"policy:{path}")
    code, _, err = _cli(["tournament", "--agents", f"policy:{path},random", "--players", "2",
                         "--games", "2", "--workers", "1", "--no-progress",
                         "--out", str(tmp_path / "t")], capsys)
    assert code == 2 and "unreadable tensors" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()
    code, _, err = _cli(["train", "--players", "2", "--timesteps", "1000", "--init", str(path),
                         "--out", str(tmp_path / "tr")], capsys)
    assert code == 2 and "unreadable tensors" in err and "Traceback" not in err


# --- item 3: lone surrogates in records ---------------------------------------------------------
def _finished_record(seed: int = 3, agents=("a", "b")) -> dict:
    game, rng = Game(2, seed=seed), random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_action_ids()))
    return game_record(game, list(agents))


def test_a_lone_surrogate_in_a_record_is_refused_in_words(tmp_path, capsys):
    record = _finished_record()
    text = json.dumps(record).replace('"a"', '"\\ud800"', 1)  # a JSON escape: valid JSON
    with pytest.raises(ValueError, match="not valid Unicode text"):
        replay(json.loads(text))
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "game_00000.json").write_text(text)
    code, _, err = _cli(["analyze", str(folder)], capsys)
    assert code == 2 and "lone surrogate" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "analysis").exists()  # item 11: nothing created


# --- item 5, 11, 12: tournament folders --------------------------------------------------------
def _tournament(out: Path, games: int, capsys, *extra: str):
    return _cli(["tournament", "--agents", "random,gold", "--players", "2", "--games",
                 str(games), "--workers", "1", "--no-progress", "--out", str(out), *extra],
                capsys)


def test_a_tournament_does_not_mix_its_records_with_an_earlier_runs(tmp_path, capsys):
    out = tmp_path / "t"
    assert _tournament(out, 6, capsys, "--records")[0] == 0
    before = sorted(p.read_text() for p in (out / "records").iterdir())
    code, _, err = _tournament(out, 2, capsys, "--records")
    assert code == 2 and "holds an earlier run's records" in err
    assert sorted(p.read_text() for p in (out / "records").iterdir()) == before
    # item 12: the tournament's folder, as typed after the run, is read as its records/
    code, out_text, _ = _cli(["analyze", str(out)], capsys)
    assert code == 0 and "6 games" in out_text and (out / "analysis" / "analysis.json").is_file()


def test_failed_commands_leave_no_folder(tmp_path, capsys):
    code, _, err = _tournament(tmp_path / "t", 2, capsys, "--html")
    assert code == 2 and "add --records" in err and not (tmp_path / "t").exists()
    code, _, _ = _cli(["analyze", str(tmp_path / "none"), "--out", str(tmp_path / "a")], capsys)
    assert code == 2 and not (tmp_path / "a").exists()
    code, _, _ = _tournament(tmp_path / "u", 2, capsys, "--agents", "nobody,random")
    assert code == 2 and not (tmp_path / "u").exists()


# --- item 9: a FIFO among the records -------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_record_is_never_waited_on(tmp_path, capsys):
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "game_00000.json").write_text(json.dumps(_finished_record()))
    os.mkfifo(folder / "a.json")
    with pytest.raises(ValueError, match="is not a regular file"):
        read_record(folder / "a.json")  # would block for ever on open() without O_NONBLOCK
    code, out, _ = _cli(["analyze", str(folder), "--out", str(tmp_path / "an")], capsys)
    assert code == 0 and "1 games" in out


# --- item 10: deals the rules cannot produce ------------------------------------------------------
def test_a_record_dealing_an_empty_hand_is_refused():
    record = {"format": "machu-env-record", "version": 2, "agents": None, "result": None,
              "actions": [], "options": {"num_players": 2, "seed": None, "start_player": 0,
                                         "hands": [[], [0]], "deck": list(range(1, 28))}}
    with pytest.raises(ValueError, match=r"hands\[0\] holds 0 cards; every player starts with "
                                         r"exactly 1 sacrifice card \(R2.7\)"):
        replay(record)


# --- item 8: Ctrl-C and SIGTERM say so ------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum,code,word", [(signal.SIGINT, 130, "interrupted"),
                                              (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_an_interrupted_tournament_says_so_and_leaves_nothing(tmp_path, signum, code, word):
    out = tmp_path / "t"
    argv = [sys.executable, "-c", "from machu_env.cli import entry_point; entry_point()",
            "tournament", "--agents", "random,gold", "--players", "2", "--games", "10000000",
            "--workers", "1", "--no-progress", "--records", "--out", str(out)]
    # as from a terminal: a test run started in the background (`cmd &` in a script) hands its
    # children an ignored SIGINT, which the command rightly leaves ignored
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:  # (a failed wait never leaves a 10M-game tournament running)
        deadline = time.monotonic() + 240
        while not (out / "records").is_dir() or not any((out / "records").iterdir()):
            assert proc.poll() is None and time.monotonic() < deadline, "no record yet"
            time.sleep(0.1)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code
    assert err.strip() == f"machu tournament: {word}"
    assert not out.exists()  # the records of a part of a run are removed with it
