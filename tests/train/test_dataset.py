"""``machu dataset``: games written as Minari datasets, one per seat, that
Minari reads back; each episode is exactly its seat's part of the game's record."""

from __future__ import annotations

import json

import numpy as np
import pytest

minari = pytest.importorskip("minari")

from typer.testing import CliRunner  # noqa: E402

from machu_env.cli import app  # noqa: E402
from machu_env.core.records import replay  # noqa: E402
from machu_env.train.data.dataset import write_dataset  # noqa: E402


@pytest.fixture
def written(tmp_path, monkeypatch):
    out = tmp_path / "ds"
    card = write_dataset(["gold", "random"], 2, 12, out, name="t", seed=4)
    monkeypatch.setenv("MINARI_DATASETS_PATH", card["minari_datasets_path"])
    return out, card


def test_every_seat_is_a_minari_dataset_that_minari_reads_back(written):
    out, card = written
    assert card["datasets"] == ["machu/t-seat0-v0", "machu/t-seat1-v0"]
    total = 0
    for p, dataset_id in enumerate(card["datasets"]):
        data = minari.load_dataset(dataset_id)
        assert data.total_episodes == 12
        assert data.recover_environment().spec.kwargs["learner_seat"] == p
        for ep in data.iterate_episodes():
            t = len(ep.actions)
            assert ep.observations.shape == (t + 1, 377)
            masks = ep.infos["action_mask"]
            assert masks.dtype == np.int8 and masks[np.arange(t), ep.actions].all()
            assert ep.rewards[:-1].tolist() == [0.0] * (t - 1) and ep.rewards[-1] in (1, -1)
            assert ep.terminations[-1] and not ep.truncations.any()
            total += t
        assert data.total_steps == sum(len(e.actions) for e in data.iterate_episodes())
    assert total == card["steps"]
    assert json.loads((out / "dataset.json").read_text()) == card


def test_each_episode_is_its_seats_part_of_the_record(written):
    """Replaying a game's record through ``Game`` gives the same observations, legal actions
    and actions as the seat's episode, and the episode's reward is the game's result."""
    out, card = written
    seats = [list(minari.load_dataset(d).iterate_episodes()) for d in card["datasets"]]
    for g in (0, 5, 11):
        record = json.loads((out / "records" / f"game_{g:05d}.json").read_text())
        assert record["agents"] == (["gold", "random"] if g % 2 == 0 else ["random", "gold"])
        game = replay({**record, "actions": []})
        rows = [0, 0]
        for step in record["actions"]:
            p = step["player"]
            ep, k = seats[p][g], rows[p]
            assert np.allclose(ep.observations[k], game.observation(p))
            assert np.array_equal(ep.infos["action_mask"][k], game.action_mask())
            assert game.legal_actions()[game.legal_action_ids().index(ep.actions[k])] \
                == step["action"]
            game.play(step["action"])
            rows[p] += 1
        for p in range(2):
            assert rows[p] == len(seats[p][g].actions)
            assert np.allclose(seats[p][g].observations[-1], game.observation(p))
            won = game.scores()[p]["winner"]
            assert seats[p][g].rewards[-1] == (1.0 if won else -1.0)


def test_trained_policies_play_in_batches(tmp_path):
    card = write_dataset(["ppo-2p", "gold"], 2, 4, tmp_path / "p", name="p", seed=1,
                         observation=2)
    assert card["observation_version"] == 2 and card["steps"] > 100


def test_bad_input_is_refused_and_writes_nothing(tmp_path):
    runner = CliRunner()
    for args, message in [(["--agents", "chess"], "unknown agent"),
                          (["--agents", "gold,gold,gold"], "one per seat"),
                          (["--agents", "search:ppo-2p"], "single trained policies"),
                          (["--agents", "gold", "--name", "a/b"], "name must be")]:
        result = runner.invoke(app, ["dataset", "--games", "2", "--out",
                                     str(tmp_path / "new"), "--no-progress", *args])
        assert result.exit_code == 2 and message in result.output, result.output
        assert not (tmp_path / "new").exists()
    (tmp_path / "old").mkdir()
    result = runner.invoke(app, ["dataset", "--agents", "gold", "--games", "2", "--out",
                                 str(tmp_path / "old"), "--no-progress"])
    assert result.exit_code == 2 and "exists" in result.output


def test_the_behaviour_cloning_example_learns_from_a_dataset(tmp_path):
    """examples/bc_from_dataset.py on a tiny dataset: it reads every seat through Minari,
    trains, evaluates against gold and writes an agent file that plays."""
    import importlib.util
    from pathlib import Path

    from machu_env.agents import make_agent
    from machu_env.core.game import Game

    write_dataset(["gold"], 2, 6, tmp_path / "d", name="bc", seed=2)
    path = Path(__file__).parents[2] / "examples" / "bc_from_dataset.py"
    spec = importlib.util.spec_from_file_location("bc_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.main(["--data", str(tmp_path / "d"), "--epochs", "2", "--eval-games", "8",
                           "--hidden", "32", "--save", str(tmp_path / "clone.safetensors")])
    assert result["decisions"] > 300 and 0.0 <= result["win_share_vs_gold"] <= 1.0
    clone = make_agent(f"policy:{tmp_path / 'clone.safetensors'}")
    game = Game(2, seed=1)
    assert clone.act(game) in game.legal_action_ids()


def test_equal_reward_and_end_arrays_are_one_dataset(written):
    """Episodes whose rewards, terminations and truncations are equal share one HDF5 dataset of
    each (hard links: fewer objects to write), read back as the arrays Minari wrote."""
    import h5py

    out, card = written
    with h5py.File(f"{card['minari_datasets_path']}/machu/t-seat0-v0/data/main_data.hdf5") as f:
        lengths: dict[int, list[int]] = {}
        for e in range(1, 12):  # (Minari itself writes episode 0)
            lengths.setdefault(len(f[f"episode_{e}/actions"]), []).append(e)
        same = [es for es in lengths.values() if len(es) > 1]
        assert same
        for es in same:
            assert h5py.h5o.get_info(f[f"episode_{es[0]}/truncations"].id).rc >= len(es)
            for e in es:
                assert not f[f"episode_{e}/truncations"][()].any()


# --- hostile inputs, round 4 ---------------------------------------------------------
def test_a_policy_with_huge_negative_logits_writes_only_legal_steps(tmp_path):
    """Item 1: the review's flat policy (every logit about -1e17) chose 49 of 228 steps outside
    the mask; every step is now legal and every record replays."""

    from hostile_files import flat_policy

    path = flat_policy(tmp_path / "flat.safetensors")
    card = write_dataset([f"policy:{path}", "random"], 2, 5, tmp_path / "d", name="f", seed=0)
    for record in sorted((tmp_path / "d" / "records").iterdir()):
        replay(json.loads(record.read_text()))
    import h5py

    with h5py.File(f"{card['minari_datasets_path']}/machu/f-seat0-v0/data/main_data.hdf5") as f:
        for e in range(5):
            actions = f[f"episode_{e}/actions"][()]
            masks = f[f"episode_{e}/infos/action_mask"][()]
            assert masks[np.arange(len(actions)), actions].all()


def test_a_choice_outside_the_mask_stops_the_run_and_writes_nothing(tmp_path, monkeypatch):
    """Item 1's guard: whatever a policy returns, an illegal id never reaches the engine."""
    from machu_env.train.data import recorded as D

    monkeypatch.setattr(D._Policy, "__call__", lambda self, obs, masks: np.where(
        masks.astype(bool), -1, np.arange(masks.shape[1])).max(1).astype(np.int32))
    with pytest.raises(ValueError, match="outside its legal mask"):
        write_dataset(["ppo-2p", "random"], 2, 4, tmp_path / "d", name="x")
    assert not any(tmp_path.iterdir())


def test_names_and_outputs_minari_cannot_take_are_refused_before_any_game(tmp_path):
    """Item 7: refused in one line, nothing created (they used to fail inside Minari after the
    first chunk and leave OUT/minari and OUT/records behind)."""
    runner = CliRunner()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for args, message in [(["--name", "a.b"], "name must be 1..100 letters"),
                          (["--name", "..a"], "name must be"), (["--name", "x" * 300], "name"),
                          (["--name", "\u00e9"], "ASCII"),
                          (["--out", str(tmp_path / "dangling")], "exists"),
                          (["--out", str(tmp_path / "dangling" / "d")], "dangling link")]:
        argv = ["dataset", "--agents", "random", "--games", "2", "--no-progress",
                "--out", str(tmp_path / "new"), *args]
        result = runner.invoke(app, argv)
        assert result.exit_code == 2 and message in result.output, (args, result.output)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling"]


def _dataset_process(out, games=10_000_000):
    import subprocess
    import sys

    argv = [sys.executable, "-c", "from machu_env.cli import entry_point; entry_point()",
            "dataset", "--agents", "random", "--games", str(games), "--no-progress",
            "--out", str(out)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _writing(proc, parent):
    """Wait until the run has written records into its partial folder."""
    import time

    deadline = time.monotonic() + 180
    while not any(p.name.endswith(".partial") and any((p / "records").glob("*.json"))
                  for p in parent.iterdir() if (p / "records").is_dir()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.1)


@pytest.mark.parametrize("signame,code,word", [("SIGINT", 130, "interrupted"),
                                               ("SIGTERM", 143, "terminated (SIGTERM)")])
def test_an_interrupted_dataset_leaves_nothing(tmp_path, signame, code, word):
    """Item 2 (and 8): Ctrl-C or SIGTERM while a real process writes: it says so in one line
    and removes its partial folder; OUT never existed."""
    import signal

    proc = _dataset_process(tmp_path / "d")
    _writing(proc, tmp_path)
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code and err.strip() == f"machu dataset: {word}", err
    assert list(tmp_path.iterdir()) == []


def test_a_killed_dataset_leaves_nothing_that_loads(tmp_path, monkeypatch):
    """Item 2: SIGKILL cannot be caught; what is left is a hidden ``.d.*.partial`` folder, and
    OUT (where the card points Minari) does not exist."""
    proc = _dataset_process(tmp_path / "d")
    _writing(proc, tmp_path)
    proc.kill()
    proc.communicate(timeout=60)
    assert not (tmp_path / "d").exists()
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(".d.") and left[0].endswith(".partial")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "d" / "minari"))
    assert minari.list_local_datasets() == {}
