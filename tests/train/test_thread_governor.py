"""Threads that make room for other work (``train/ppo/threads.py``): a run whose threads were
sized to the machine gives cores up while other processes keep them busy and takes them back
when they stop; threads the user chose stay as chosen. (Its effect on the speed beside a busy
process is measured by ``benchmarks/threads_under_load.py``.)"""

from __future__ import annotations

import pytest

from machu_env.train.ppo import threads as T


@pytest.mark.parametrize("full, others, now, expected", [
    (2, 0.0, 2, 2),    # a quiet machine: every core
    (2, 0.7, 2, 1),    # a busy neighbour: one core left to it
    (2, 1.0, 1, 1),    # still there
    (2, 0.3, 1, 1),    # between the thresholds: no flapping
    (2, 0.1, 1, 2),    # gone: every core again
    (16, 1.0, 16, 15),
    (16, 3.4, 16, 13),
    (1, 5.0, 1, 1),    # never below one thread
])
def test_the_threads_follow_the_other_work(full, others, now, expected):
    assert T.threads_for(full, others, now) == expected


def test_other_work_is_the_machine_busy_time_less_this_process(monkeypatch):
    clock = [0.0]
    busy = [100.0]  # the machine's busy CPU-seconds (all cores)
    own = [50.0]  # this process's CPU-seconds
    monkeypatch.setattr(T, "_machine_busy", lambda: busy[0])
    monkeypatch.setattr(T, "_own_cpu", lambda: own[0])
    applied = []
    governor = T.ThreadGovernor(2, applied.append, clock=lambda: clock[0])

    def after(seconds, machine_per_s, own_per_s):
        clock[0] += seconds
        busy[0] += machine_per_s * seconds
        own[0] += own_per_s * seconds
        return governor.check()

    assert after(10, 2.0, 2.0) is None and applied == []  # only this run: nothing changes
    line = after(10, 2.0, 1.2)  # a neighbour takes 0.8 of a core
    assert applied == [1] and "0.8 of the cores" in line and "1 thread" in line
    assert after(2, 2.0, 1.0) is None  # (read every CHECK_SECONDS only)
    assert after(10, 2.0, 1.0) is None and applied == [1]  # it is still there
    line = after(10, 1.0, 1.0)  # it stopped
    assert applied == [1, 2] and "2 threads again" in line


def test_no_machine_counters_no_change(monkeypatch):
    monkeypatch.setattr(T, "_machine_busy", lambda: None)
    clock = [0.0]
    applied = []
    governor = T.ThreadGovernor(2, applied.append, clock=lambda: clock[0])
    clock[0] = 60.0
    assert governor.check() is None and applied == []


def test_only_threads_sized_to_the_machine_are_governed(tmp_path):
    pytest.importorskip("torch")
    from machu_env.train.run.selfplay import Trainer
    from tests.train_kit import tiny

    sized = Trainer(tiny(tmp_path / "a", threads=0), verbose=False)
    chosen = Trainer(tiny(tmp_path / "b", threads=1), verbose=False)
    assert chosen.governor is None
    assert (sized.governor is not None) == (sized.config.threads > 1)
