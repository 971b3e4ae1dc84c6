"""Recipes: data files (``recipe_files/``) that rebuild a shipped agent from scratch by one
command; their checks and phases (``recipes``), the run's folder and state, the machine classes
and the rounds against the agent's own exploiters."""
