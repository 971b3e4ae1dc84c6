"""Agent files hold data only: the shipped agents load from
``safetensors`` and play exactly the moves of the sb3 zips they were converted from; a
pickle-based file is never unpickled without an explicit opt-in."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env import Game  # noqa: E402
from machu_env.agents import make_agent, policy_file, shipped_policies  # noqa: E402
from machu_env.agents.policy import PolicyAgent  # noqa: E402
from machu_env.rules.actions import notation  # noqa: E402

MOVES = Path(__file__).parents[1] / "data" / "policy_moves.json"


def test_shipped_agents_play_the_moves_of_the_sb3_zips_they_came_from():
    """35 games recorded with the zips' ``MaskablePPO.predict`` (scripts/make_policy_fixture.py)
    by the first shipped agents, now ``ppo-2p-v1`` and ``ppo-3p-v1``: at each of 2,219
    decisions the data-only agent chooses the same action."""
    assert set(shipped_policies()) >= {"ppo-2p", "ppo-3p", "ppo-2p-v1", "ppo-3p-v1"}
    rows = json.loads(MOVES.read_text())
    agents = {name: make_agent(f"{name}-v1") for name in ("ppo-2p", "ppo-3p")}
    checked = 0
    for row in rows:
        record = row["record"]
        game = Game(record["options"]["num_players"], seed=record["options"]["seed"])
        for step in record["actions"]:
            if step["player"] == row["seat"]:
                assert notation(agents[row["agent"]].act(game)) == step["action"]
                checked += 1
            game.play(step["action"])
    assert checked == 2219


def _payload_zip(path: Path, marker: Path) -> None:
    """An sb3-looking zip whose pickled entry would create ``marker`` when unpickled."""

    class Payload:
        def __reduce__(self):
            return (Path.write_text, (marker, "ran"))

    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":serialized:": base64.b64encode(
            pickle.dumps(Payload())).decode()}}))
        z.writestr("pytorch_variables.pth", b"")


def test_pickle_based_files_are_refused_without_an_opt_in(tmp_path):
    marker = tmp_path / "marker"
    evil = tmp_path / "evil.zip"
    _payload_zip(evil, marker)
    for load in (lambda: make_agent(f"policy:{evil}"), lambda: PolicyAgent(evil)):
        with pytest.raises(ValueError, match="unpickles Python objects.*--trust-pickle"):
            load()
    renamed = tmp_path / "evil.safetensors"  # a zip by any other name is still refused
    renamed.write_bytes(evil.read_bytes())
    with pytest.raises(ValueError, match="unpickles Python objects|not a safetensors"):
        make_agent(f"policy:{renamed}")
    assert not marker.exists()
    with pytest.raises(ValueError):  # the opt-in unpickles: the payload runs (so it matters)
        PolicyAgent(evil, trust_pickle=True)
    assert marker.read_text() == "ran"


@pytest.mark.parametrize("damage, message", [
    (lambda data: b"\x00" * 64, "not a safetensors file"),
    (lambda data: data[:100], "not a safetensors file"),
])
def test_damaged_agent_files_are_refused(tmp_path, damage, message):
    path = tmp_path / "agent.safetensors"
    path.write_bytes(damage(shipped_policies()["ppo-2p"].read_bytes()))
    with pytest.raises(ValueError, match=message):
        make_agent(f"policy:{path}")


def test_agent_files_must_say_what_they_are(tmp_path):
    from safetensors.torch import save_file

    tensors, config, _ = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    path = tmp_path / "plain.safetensors"
    save_file(tensors, str(path))
    with pytest.raises(ValueError, match="not a machu-env policy file"):
        make_agent(f"policy:{path}")
    bad = dict(tensors)
    bad["action_net.bias"] = torch.zeros(3)
    save_file(bad, str(path), metadata={"format": policy_file.FORMAT, "version": "1",
                                        "config": json.dumps(config)})
    with pytest.raises(ValueError, match="wrong shape"):
        make_agent(f"policy:{path}")
    with pytest.raises(ValueError, match="layer sizes"):
        policy_file.check_config({**config, "pi": [10**9]}, "x")


def test_a_file_replaced_at_the_same_path_is_read_again(tmp_path):
    tensors, config, info = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    path = tmp_path / "agent.safetensors"
    policy_file.save(path, tensors, config, info)
    game = Game(2, seed=1)
    first = make_agent(f"policy:{path}").probabilities(game)
    flipped = {k: -v for k, v in tensors.items()}
    policy_file.save(path, flipped, config, info)
    second = make_agent(f"policy:{path}").probabilities(game)
    assert not (first == second).all()
    policy_file.save(path, tensors, config, info)
    assert (make_agent(f"policy:{path}").probabilities(game) == first).all()


def test_a_saved_agent_file_has_the_permissions_of_any_new_file(tmp_path):
    import os

    tensors, config, info = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    plain = tmp_path / "plain.txt"
    plain.write_text("x")  # what this process's umask gives a new file
    path = policy_file.save(tmp_path / "agent.safetensors", tensors, config, info)
    assert os.stat(path).st_mode & 0o777 == os.stat(plain).st_mode & 0o777
    assert policy_file.parse(path.read_bytes())[1] == config


def test_finite_but_huge_weights_and_huge_metadata_numbers_are_refused_naming_the_file(tmp_path):
    from safetensors.torch import save_file

    tensors, config, _ = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    meta = {"format": policy_file.FORMAT, "version": "1", "config": json.dumps(config)}
    huge = {k: v.clone() for k, v in tensors.items()}
    huge["action_net.weight"][0, 0] = 3e38  # finite, but the first decision would give NaN
    path = tmp_path / "huge.safetensors"
    save_file(huge, str(path), metadata=meta)
    with pytest.raises(ValueError, match=f"{path}: a weight of magnitude 3e\\+38"):
        make_agent(f"policy:{path}")
    path = tmp_path / "digits.safetensors"  # a 5,000-digit int in the info metadata
    save_file(tensors, str(path), metadata={**meta, "info": '{"steps": ' + "9" * 5000 + "}"})
    with pytest.raises(ValueError, match=f"{path}: malformed info metadata"):
        make_agent(f"policy:{path}")
