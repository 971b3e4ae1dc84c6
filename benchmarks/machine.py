"""What a benchmark ran on: the CPU model and the versions that matter, for its JSON."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe() -> dict:
    """Date, CPU, architecture, Python, numba and (when installed) torch versions and threads,
    and the CUDA GPU's name where torch sees one."""
    import numba

    info = {"date": datetime.date.today().isoformat(), "cpu": cpu_model(),
            "machine": platform.machine(), "python": platform.python_version()}
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        info["torch"] = torch.__version__
    info["numba"] = numba.__version__
    if torch is not None:
        info["torch_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    info["numba_threads"] = numba.get_num_threads()
    info["cpu_cores"] = os.cpu_count()
    return info
