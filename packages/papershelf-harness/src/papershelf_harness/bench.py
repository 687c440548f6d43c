"""``bench_main``, the one timer, the one peak-memory probe and the one ratio format."""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .machine import describe_machine
from .schema import validate_bench

#: The direction of every ratio the harness formats, stated once.
RATIO_NOTE = "ratio = baseline time / ours (>1: ours is faster)"


@dataclass(frozen=True)
class Timing:
    """Best and median wall time of ``repeat`` calls, in milliseconds."""

    best_ms: float
    median_ms: float
    repeat: int


def timeit_ms(
    fn: Callable[[], Any],
    *,
    repeat: int = 5,
    warmup: int = 1,
    sync: Callable[[], Any] | None = None,
) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeat`` timed ones.

    ``sync`` is called before each clock read (e.g. ``torch.cuda.synchronize`` for GPU work).
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    for _ in range(warmup):
        fn()
    if sync is not None:
        sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        if sync is not None:
            sync()
        times.append((time.perf_counter() - t) * 1e3)
    return Timing(best_ms=min(times), median_ms=statistics.median(times), repeat=repeat)


def ratio(baseline: float, ours: float, *, digits: int = 2) -> str:
    """``"2.31x"`` = baseline / ours (see :data:`RATIO_NOTE`); ``"n/a"`` when either is missing."""
    try:
        b, o = float(baseline), float(ours)
    except (TypeError, ValueError):
        return "n/a"
    if not (b == b and o == o) or o <= 0 or b < 0:  # NaN or non-positive
        return "n/a"
    return f"{b / o:.{digits}f}x"


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_memory(fn: Callable[[], Any], *, device: Any = None) -> tuple[Any, int]:
    """Run ``fn()`` and return ``(result, peak extra bytes)``.

    On a CUDA ``device``: ``torch.cuda.max_memory_allocated`` above what was allocated before.
    On CPU: the peak resident set size above the starting one, sampled every 0.5 ms by a thread
    (Linux ``/proc``). For a clean CPU number run it in a fresh process with
    ``MALLOC_MMAP_THRESHOLD_=65536`` so large buffers are returned to the OS when freed.
    """
    if device is not None and str(device).startswith("cuda"):
        import torch

        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        result = fn()
        torch.cuda.synchronize(device)
        return result, max(0, torch.cuda.max_memory_allocated(device) - base)
    gc.collect()
    base = peak = _rss_bytes()
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _rss_bytes())
            time.sleep(0.0005)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        result = fn()
    finally:
        stop.set()
        thread.join()
    peak = max(peak, _rss_bytes())
    return result, max(0, peak - base)


@dataclass
class Table:
    """What a bench run returns: column names, rows of cells, and a note on how to read them."""

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: str = RATIO_NOTE

    def add(self, *cells: Any) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"a row needs {len(self.columns)} cells, got {len(cells)}")
        self.rows.append(list(cells))


def _fmt(cell: Any) -> str:
    if isinstance(cell, float):
        return f"{cell:.4g}"
    return str(cell)


def print_table(table: Table) -> None:
    cells = [[_fmt(c) for c in row] for row in table.rows]
    widths = [
        max(len(col), *(len(r[j]) for r in cells)) if cells else len(col)
        for j, col in enumerate(table.columns)
    ]
    print(
        "  ".join(
            f"{c:<{w}s}" if j == 0 else f"{c:>{w}s}"
            for j, (c, w) in enumerate(zip(table.columns, widths))
        )
    )
    for r in cells:
        print(
            "  ".join(
                f"{c:<{w}s}" if j == 0 else f"{c:>{w}s}" for j, (c, w) in enumerate(zip(r, widths))
            )
        )
    if table.notes:
        print(table.notes)


def bench_main(
    package: str,
    run_fn: Callable[[argparse.Namespace], Table],
    argv: Sequence[str] | None = None,
    *,
    title: str = "time per call, ms",
    doc: str | None = None,
    extra_args: Callable[[argparse.ArgumentParser], None] | None = None,
    device: Callable[[argparse.Namespace], str | None] | None = None,
    default_json: str | Path | None = None,
) -> int:
    """Parse ``--quick``/``--json`` (and ``extra_args``), run ``run_fn(args)``, print, write JSON.

    ``run_fn`` returns a :class:`Table`; its ``notes`` say how to read the ratios (default
    :data:`RATIO_NOTE`). ``device(args)`` names the device the run used, for the machine line.
    """
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="tiny configuration (seconds)")
    parser.add_argument(
        "--json",
        type=Path,
        default=Path(default_json) if default_json else Path("bench.json"),
        help="where to write the result JSON (default: %(default)s)",
    )
    if extra_args is not None:
        extra_args(parser)
    args = parser.parse_args(argv)
    table = run_fn(args)
    if not isinstance(table, Table):
        raise TypeError(f"{package} bench: run_fn must return a Table, got {type(table).__name__}")
    print_table(table)
    result = {
        "package": package,
        "title": title,
        "machine": describe_machine(device(args) if device is not None else None),
        "columns": list(table.columns),
        "rows": [list(r) for r in table.rows],
        "notes": table.notes,
    }
    validate_bench(result, where=f"{package} bench result")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.json}")
    sys.stdout.flush()
    return 0
