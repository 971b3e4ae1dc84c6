"""The framework adapters, each a thin layer over ``Game`` or the batch core: PettingZoo
(``pettingzoo_env``), Gymnasium (``gym_env``; the VectorEnv ``vector``), SB3's VecEnv (``sb3``),
RLlib (``rllib``), OpenSpiel (``openspiel``) and the all-seats batch engine (``batch_engine``).
The batched ones (``vector``, ``sb3``) and the trainer share one framework-neutral core,
``core.learner_batch.LearnerBatch``. Adding an adapter: a new module here, importing only
``core``, ``engine``, ``rules``, ``views`` and ``agents`` (the import-linter contracts in
``pyproject.toml``)."""
