"""Measuring and hardening an agent: the exploitability probe (``exploit`` and its evaluation,
opponent and verdict), leagues, populations and their Nash mixture, averaged weights, and the
strength ladder."""
