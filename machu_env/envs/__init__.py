"""The framework adapters, each a thin layer over ``Game`` or the batch kernels: PettingZoo
(``pettingzoo_env``), Gymnasium (``gym_env``; the VectorEnv ``vector`` over the opponent-pool
VecEnv ``pool_env`` and its compiled opponents ``opponents``), the batch engine
(``batch_engine``) and SB3's VecEnv (``sb3``), RLlib (``rllib``) and OpenSpiel
(``openspiel``). Adding an adapter: a new module here, importing only ``core``, ``engine``,
``rules``, ``views`` and ``agents`` (the import-linter contracts in ``pyproject.toml``)."""
