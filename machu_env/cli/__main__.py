"""``python -m machu_env.cli``: the ``machu`` command."""

from machu_env.cli import entry_point

entry_point()
