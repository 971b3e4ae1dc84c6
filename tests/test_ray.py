"""Tournaments on Ray (machu_env.ray_backend): the same games as the local backend, on a local
instance and on a two-node cluster (one machine) that loses a node mid-tournament. Runs where
the ``ray`` extra is installed; Ray is started by the tests (never ``ray stop``) with its files
out of the home folder."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray")

from machu_env.agents.tournament import run_tournament  # noqa: E402

AGENTS = ["random", "builder", "gold"]


def _records(folder) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("game_*.json"))]


def _tournament(tmp_path, name, games, **kw):
    folder = tmp_path / name
    summary = run_tournament(AGENTS, 3, games, seed=11, records_dir=folder, progress=False, **kw)
    return summary, _records(folder)


def test_a_ray_tournament_equals_the_local_one_game_for_game(tmp_path, ray_env):
    local = _tournament(tmp_path, "local", 12, workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    on_ray = _tournament(tmp_path, "ray", 12, workers=2, ray="local")
    assert ray.is_initialized()  # joined the running instance and left it running
    assert on_ray == local and len(local[1]) == 12


def test_a_two_node_cluster_survives_losing_a_node(tmp_path, ray_env):
    from ray.cluster_utils import Cluster

    games = 100  # enough that removing the node (seconds on a busy machine) ends mid-tournament
    local = _tournament(tmp_path, "local", games, workers=2)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    worker = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    removed = []

    def kill_a_node_mid_tournament():
        deadline = time.time() + 120
        while time.time() < deadline and len(list((tmp_path / "ray").glob("*.json"))) < 5:
            time.sleep(0.05)
        cluster.remove_node(worker)  # its running games fail and are retried on the head
        removed.append(len(list((tmp_path / "ray").glob("*.json"))))

    killer = threading.Thread(target=kill_a_node_mid_tournament)
    killer.start()
    try:
        on_ray = _tournament(tmp_path, "ray", games, workers=2, ray="auto")
    finally:
        killer.join()
        ray.shutdown()
        cluster.shutdown()
    assert removed and removed[0] < games  # the node went away before the end
    assert on_ray == local


def test_a_missing_ray_names_the_extra(tmp_path, monkeypatch, capsys):
    from machu_env.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    code = main(["tournament", "--games", "2", "--out", str(tmp_path / "t"), "--ray"])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'machu-env[ray]'" in err and err.count("\n") == 1
    assert os.environ.get("RAY_ADDRESS") is None


def test_exploit_evaluations_on_ray_equal_the_local_ones(ray_env):
    from machu_env.agents import make_agent
    from machu_env.train.exploit import evaluate_exploiter

    net = make_agent("ppo-2p-v1").net  # against the stronger ppo-2p: some wins, many losses
    local = evaluate_exploiter(net, "ppo-2p", 2, 230, seed=5)
    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    on_ray = evaluate_exploiter(net, "ppo-2p", 2, 230, seed=5, ray="local", workers=2)
    assert local.shape == (230,) and 0 < local.sum() < 230
    assert (on_ray == local).all()


def test_training_evaluations_on_ray_equal_the_same_evaluations_run_here(tmp_path, ray_env):
    from test_train import tiny

    from machu_env.agents import make_agent
    from machu_env.train.exploit import evaluate_exploiter
    from machu_env.train.selfplay import EVAL_OPPONENTS, train

    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    summary = train(tiny(tmp_path / "run", timesteps=1024, eval_every=1024, eval_games=120,
                         ray="local"), verbose=False)
    assert summary and ray_env.is_initialized()  # joined the running instance, left it up
    history = (tmp_path / "run" / "history.csv").read_text().splitlines()
    header, last = history[0].split(","), history[-1].split(",")
    net = make_agent(f"policy:{tmp_path / 'run' / 'latest.safetensors'}").net
    for k, name in enumerate(EVAL_OPPONENTS):  # the same chunks and seeds, played here
        here = evaluate_exploiter(net, name, 2, 120, seed=1_000_003 * (k + 1)).mean()
        assert float(last[header.index(f"win_vs_{name}")]) == pytest.approx(here)
