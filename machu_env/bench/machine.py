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


def cpu_id(cpuinfo: str | None = None) -> str:
    """The CPU's family, model and clock from ``/proc/cpuinfo`` (``"family 26 model 2, 2596
    MHz"``), or ``""`` where it has none: a model name such as ``AMD EPYC`` is shared by
    generations that train at twice each other's speed (Zen 3 and Zen 5 here), so a figure
    names both."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return ""
    first: dict[str, str] = {}
    for line in cpuinfo.strip().split("\n\n")[0].splitlines():  # (the first processor's)
        key, _, value = line.partition(":")
        first.setdefault(key.strip(), value.strip())
    if "cpu family" not in first or "model" not in first:
        return ""
    mhz = first.get("cpu MHz", "")
    clock = f", {float(mhz):.0f} MHz" if mhz.replace(".", "", 1).isdigit() else ""
    return f"family {first['cpu family']} model {first['model']}{clock}"


def describe() -> dict:
    """Date, CPU, architecture, Python, numba and (when installed) torch versions and threads,
    and the CUDA GPU's name where torch sees one."""
    import numba

    info = {"date": datetime.date.today().isoformat(), "cpu": cpu_model(),
            "cpu_id": cpu_id(),
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
