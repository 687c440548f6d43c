"""The papershelf script harness: what every package's `reproduce.py` and `bench.py` share.

A package lists ``papershelf-harness`` only in its ``bench`` and ``test`` dependency groups; the
library itself never imports it. A script is a few lines of method-specific code::

    from papershelf_harness import Claim, reproduce_cli

    def claims(args):
        yield Claim("CI width vs PPI++", paper="0.77x", measured="0.81x", holds=True)

    main = reproduce_cli(claims)   # package, paper, help text: from the script and its pyproject

    if __name__ == "__main__":
        raise SystemExit(main())

Result rows follow the schema of ``docs/contributing.md`` (see :mod:`papershelf_harness.schema`).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .bench import RATIO_NOTE, Table, Timing, bench_main, peak_memory, ratio, timeit_ms
from .machine import describe_machine
from .reproduce import Claim, reproduce_main
from .schema import SchemaError, validate_bench, validate_reproduce
from .script import bench_cli, reproduce_cli, script_metadata

try:
    __version__ = version("papershelf-harness")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "RATIO_NOTE",
    "Claim",
    "SchemaError",
    "Table",
    "Timing",
    "bench_cli",
    "bench_main",
    "describe_machine",
    "peak_memory",
    "ratio",
    "reproduce_cli",
    "reproduce_main",
    "script_metadata",
    "timeit_ms",
    "validate_bench",
    "validate_reproduce",
]
