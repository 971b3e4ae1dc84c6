"""Weight averaging (``machu average``, train/probe/average.py): one policy whose weights are
the weighted mean of several policies of one network."""

from __future__ import annotations

import hashlib

import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.agents import make_agent, policy_file, shipped_policies  # noqa: E402
from machu_env.cli import app  # noqa: E402


def _fine_tune(tmp_path, name: str = "tuned.safetensors", shift: float = 0.01):
    """``ppo-2p`` with every weight moved by ``shift`` times a fixed random tensor: a stand-in
    for a fine-tune of it (same network, other weights)."""
    tensors, config, info = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    g = torch.Generator().manual_seed(5)
    moved = {k: v + shift * torch.randn(v.shape, generator=g) for k, v in tensors.items()}
    return policy_file.save(tmp_path / name, moved, config, info), tensors, moved


def _run(*args: str):
    r = CliRunner().invoke(app, ["average", *args])
    return r.exit_code, " ".join(r.output.split())


def test_the_average_is_the_weighted_mean_of_the_members_weights_and_plays(tmp_path):
    tuned, start, moved = _fine_tune(tmp_path)
    out = tmp_path / "avg.safetensors"
    code, output = _run("--members", f"ppo-2p,policy:{tuned}", "--weights", "3,1",
                        "--out", str(out))
    assert code == 0, output
    assert "the weighted mean of ppo-2p (75.0%), policy:" in output and "(25.0%)" in output
    tensors, config, info = policy_file.parse(out.read_bytes())
    for k, v in tensors.items():
        assert torch.allclose(v, 0.75 * start[k] + 0.25 * moved[k], atol=1e-6), k
    assert config == policy_file.parse(tuned.read_bytes())[1]
    digests = [m["sha256"] for m in info["averaged"]]
    assert digests == [hashlib.sha256(p.read_bytes()).hexdigest()
                       for p in (shipped_policies()["ppo-2p"], tuned)]
    assert [m["weight"] for m in info["averaged"]] == [0.75, 0.25] and info["players"] == 2
    game = Game(2, seed=1)
    agent = make_agent(f"policy:{out}", seed=0)
    assert agent.act(game) in game.legal_action_ids()
    # equal weights when none are given
    even = tmp_path / "even.safetensors"
    assert _run("--members", f"ppo-2p,policy:{tuned}", "--out", str(even))[0] == 0
    halves = policy_file.parse(even.read_bytes())[0]
    assert all(torch.allclose(halves[k], (start[k] + moved[k]) / 2, atol=1e-6) for k in halves)


@pytest.mark.parametrize("members, weights, out, message", [
    ("ppo-2p", "", "x.safetensors", "2..16 members"),
    (",", "", "x.safetensors", "2..16 members, got 0"),
    (",", "1", "x.safetensors", "2..16 members, got 0"),
    ("ppo-2p,ppo-2p", "", "x.safetensors", "named twice"),
    ("ppo-2p,gold", "", "x.safetensors", "one trained policy"),
    ("ppo-2p,best-2p", "", "x.safetensors", "another network"),
    ("ppo-2p,ppo-3p", "", "x.safetensors", "different numbers of players"),
    ("ppo-2p,TUNED", "1,2,3", "x.safetensors", "3 weights for 2 members"),
    ("ppo-2p,TUNED", "1,-1", "x.safetensors", ">= 0 and not all 0"),
    ("ppo-2p,TUNED", "0,0", "x.safetensors", ">= 0 and not all 0"),
    ("ppo-2p,TUNED", "1,nan", "x.safetensors", ">= 0 and not all 0"),
    ("ppo-2p,TUNED", "half,half", "x.safetensors", "comma-separated numbers"),
    ("ppo-2p,TUNED", "", "x.json", ".safetensors"),
    ("ppo-2p,TUNED", "", "TUNED", "also an input"),
    ("ppo-2p,policy:missing.safetensors", "", "x.safetensors", "no policy file"),
])
def test_bad_members_or_weights_are_refused_in_words_and_nothing_is_written(
        tmp_path, members, weights, out, message):
    tuned, _, _ = _fine_tune(tmp_path)
    before = tuned.read_bytes()
    members = members.replace("TUNED", f"policy:{tuned}").replace("missing", str(tmp_path / "m"))
    target = tuned if out == "TUNED" else tmp_path / out
    code, output = _run("--members", members, "--weights", weights, "--out", str(target))
    assert code == 2 and message in output, output
    assert "Traceback" not in output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tuned.safetensors"]
    assert tuned.read_bytes() == before


def test_policies_that_play_differently_are_not_averaged(tmp_path):
    tuned, _, _ = _fine_tune(tmp_path)
    tensors, config, info = policy_file.parse(tuned.read_bytes())
    hot = policy_file.save(tmp_path / "hot.safetensors", tensors, config, info,
                           play={"temperature": 1.0})
    code, output = _run("--members", f"ppo-2p,policy:{hot}", "--out",
                        str(tmp_path / "x.safetensors"))
    assert code == 2 and "play alike" in output, output
    assert not (tmp_path / "x.safetensors").exists()
