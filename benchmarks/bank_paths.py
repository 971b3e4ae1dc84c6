"""The policy bank's two paths, timed per call: every member on every row (one batched chain)
against one chain per member present, for 1-8 members of 256-wide version-2 networks.

    python benchmarks/bank_paths.py

``machu_env.train.ppo.bank``'s ``BROADCAST_ROWS`` (rows x members up to which the batched chain
is used) comes from this table. One torch thread; prints microseconds per call.
"""

from __future__ import annotations

import time

import numpy as np


def main() -> None:
    import torch

    import machu_env.train.ppo.bank as bank_module
    from machu_env.agents.policy_file import new_net
    from machu_env.agents.policy_net import net_config

    torch.set_num_threads(1)
    config = net_config([256, 256], observation=2, shared=True)
    rng = np.random.default_rng(0)
    saved = bank_module.BROADCAST_ROWS
    try:
        for members in (1, 2, 4, 8):
            bank = bank_module.PolicyBank([new_net(config, s) for s in range(members)])
            for rows in (4, 16, 48, 96, 192, 384):
                obs = rng.standard_normal((rows, config["obs_size"])).astype(np.float32)
                masks = np.ones((rows, config["num_actions"]), bool)
                which = rng.integers(0, members, rows)
                micros = {}
                for path, threshold in (("batched", 10**9), ("per member", 0)):
                    bank_module.BROADCAST_ROWS = threshold
                    for _ in range(3):
                        bank(obs, masks, which)
                    calls = 200 if rows < 100 else 60
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        bank(obs, masks, which)
                    micros[path] = (time.perf_counter() - t0) / calls * 1e6
                print(f"{members} members, {rows:3d} rows (rows x members {rows * members:4d}): "
                      f"batched {micros['batched']:7.0f} us, per member "
                      f"{micros['per member']:7.0f} us", flush=True)
    finally:
        bank_module.BROADCAST_ROWS = saved


if __name__ == "__main__":
    main()
