"""Masked PPO on the batch engine: the update (``ppo``), its rollout buffer, the rollout's games
and the frozen opponents' bank, rollouts overlapped with the update, rollout workers (threads,
processes, Ray actors), the sizing to the machine, batched evaluation and RLlib's trainer."""
