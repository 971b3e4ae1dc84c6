"""Training (``machu_env.train``; the ``train`` extra), by job: ``ppo/`` (the algorithm and its
rollouts), ``run/`` (a run: settings, trainer, folder, checkpoints), ``recipes/`` (one command
that rebuilds a shipped agent), ``probe/`` (probes, leagues, populations, the ladder) and
``data/`` (imitation and datasets)."""
