"""Recorded play: the imitation that starts a run (``imitate``) and offline-RL datasets
(``dataset``)."""
