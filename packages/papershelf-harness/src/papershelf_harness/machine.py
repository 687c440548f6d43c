"""One spelling of "the machine this ran on", for every result file."""

from __future__ import annotations

import os
import platform
import sys
from functools import cache


@cache
def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or ""


def describe_machine(device: str | None = None) -> str:
    """``"x86_64, AMD EPYC 7B13, 2 cores"``, plus ``", GPU: <name>"`` for a CUDA ``device``.

    torch is consulted only when the caller already imported it (a torch-free package's script
    never pays for the import). ``device`` is a string such as ``"cuda"``, ``"cuda:1"`` or
    ``"cpu"``; without one the first CUDA device is named when torch is loaded and sees one.
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parts = [platform.machine() or "unknown", _cpu_model(), f"{cores} cores"]
    torch = sys.modules.get("torch")
    wants_gpu = device is None or str(device).startswith("cuda")
    if torch is not None and wants_gpu and torch.cuda.is_available():
        index = torch.device(device).index if device and ":" in str(device) else 0
        parts.append(f"GPU: {torch.cuda.get_device_name(index or 0)}")
    return ", ".join(p for p in parts if p)
