"""A training run: its settings (declared once in ``args``, read by ``settings`` and ``config``),
the trainer (``selfplay``), its folder and what it reads back, checkpoints, progress lines,
history, the agent files it starts from and the agent file it writes."""
