"""Exceptions of the public API."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is not legal for the pending decision; the game is left unchanged."""

    def __init__(self, action: object, legal: list[str], reason: str = "not legal now") -> None:
        self.action = action
        self.legal = legal
        listing = ", ".join(legal) if legal else "(none: the game is over)"
        super().__init__(f"illegal action {action!r}: {reason}. Legal actions: {listing}")


class OpponentError(ValueError):
    """An opponent policy failed or chose an action that is not legal (an id out of range, the
    wrong shape, an illegal move). The message names the opponent; the step that asked it was
    undone, so the game or batch is as it was before that step."""


class ResetNeeded(RuntimeError):
    """An env was stepped before ``reset()`` or after its episode ended."""
