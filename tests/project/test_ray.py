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
    assert code == 2 and "pip install -e '.[ray]'" in err and err.count("\n") == 1
    assert os.environ.get("RAY_ADDRESS") is None


def test_exploit_evaluations_on_ray_equal_the_local_ones(ray_env):
    from machu_env.agents import make_agent
    from machu_env.train.probe.exploit_eval import evaluate_exploiter

    net = make_agent("ppo-2p-v1").net  # against the stronger ppo-2p: some wins, many losses
    local = evaluate_exploiter(net, "ppo-2p", 2, 230, seed=5)
    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    on_ray = evaluate_exploiter(net, "ppo-2p", 2, 230, seed=5, ray="local", workers=2)
    assert local.shape == (230,) and 0 < local.sum() < 230
    assert (on_ray == local).all()


def test_training_evaluations_on_ray_equal_the_same_evaluations_run_here(tmp_path, ray_env):
    from train_kit import tiny

    from machu_env.agents import make_agent
    from machu_env.train.probe.exploit_eval import evaluate_exploiter
    from machu_env.train.run.selfplay import EVAL_OPPONENTS, train

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


# --- a cluster nobody else can use, addresses that fail fast, files shipped ---------
def test_connect_leaves_token_auth_on_and_starts_no_dashboard(monkeypatch):
    from machu_env import ray_backend

    seen = {}
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kw: seen.update(kw, auth=os.environ.get(
        "RAY_AUTH_MODE")))
    assert ray_backend.connect("local")
    assert seen["auth"] is None and seen["include_dashboard"] is False  # Ray's default: tokens


def test_a_process_without_the_token_cannot_attach_to_a_local_instance(tmp_path):
    """the attack: a second process attaches and runs a task that writes a file.
    The defended instance runs in a process of its own: Ray keeps its auth mode per process, and
    a token-authenticated instance started here would break the later tests' instances."""
    import subprocess

    from machu_env._cache import cache_root

    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    env.update(HOME=str(tmp_path / "home"), MACHU_ENV_CACHE_DIR=str(cache_root()))
    (tmp_path / "home").mkdir()
    (tmp_path / "attacker").mkdir()
    host_code = ("import sys, ray\n"
                 "from machu_env.ray_backend import connect\n"
                 "assert connect('local')\n"
                 "print(ray.get_runtime_context().gcs_address, flush=True)\n"
                 "sys.stdin.read()\n"  # serve until the test closes stdin
                 "ray.shutdown()\n")
    host = subprocess.Popen([sys.executable, "-c", host_code], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        address = host.stdout.readline().strip()
        assert address, "the defended instance did not start"
        target = tmp_path / "written"
        code = ("import ray\n"
                f"ray.init(address={address!r}, log_to_driver=False)\n"
                "@ray.remote\n"
                f"def f(): open({str(target)!r}, 'w').write('x')\n"
                "ray.get(f.remote(), timeout=20)\n")
        attacker = {**env, "RAY_AUTH_MODE": "disabled", "HOME": str(tmp_path / "attacker")}
        r = subprocess.run([sys.executable, "-c", code], env=attacker, capture_output=True,
                           text=True, timeout=180)
        assert r.returncode != 0 and "token" in r.stderr.lower()
        assert not target.exists()
    finally:
        host.stdin.close()
        try:
            host.wait(timeout=120)
        except subprocess.TimeoutExpired:
            host.kill()


def test_an_address_where_nothing_listens_fails_fast():
    import socket

    from machu_env.ray_backend import connect

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = time.perf_counter()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(ValueError, match="nothing answered"):
            connect(address)
    assert time.perf_counter() - t < 30
    for bad in ("host", "ray://", "h:0", "h:99999", "h:x"):
        with pytest.raises(ValueError, match="a Ray address is"):
            connect(bad)


def test_agent_files_travel_as_bytes_not_paths(tmp_path):
    from machu_env.agents import shipped_policies
    from machu_env.agents.tournament import agent_file_paths, play_game

    data = shipped_policies()["ppo-2p"].read_bytes()
    names = ("search:policy:nowhere/agent.safetensors", "policy:nowhere/agent.safetensors")
    assert agent_file_paths([*names, "gold"]) == ["nowhere/agent.safetensors"]
    for name in names:  # the path exists only on the driver: the node gets the bytes
        row = play_game((0, (name, "random"), 7, {"iterations": 2}, False, False, 60,
                         {"nowhere/agent.safetensors": data}))
        assert row["seating"] == [name, "random"] and row["decisions"] > 0


def test_workers_default_to_the_clusters_cpus(tmp_path, ray_env):
    from machu_env.ray_backend import cluster_cpus

    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    assert cluster_cpus() == 2
    summary = run_tournament(AGENTS, 3, 6, seed=1, progress=False, ray="local", workers=None)
    assert summary["games"] == 6
