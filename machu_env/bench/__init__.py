"""``machu bench``: the throughput suite (``suite``), and what the benchmark scripts of the
checkout's ``benchmarks/`` folder share with it (``machine``: the CPU and its load; ``timing``:
compile time and ``Game.play`` speed). The scripts themselves stay outside the wheel."""
