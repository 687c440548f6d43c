"""``reproduce_cli`` / ``bench_cli``: a script's ``main`` in one line.

The package name and the paper (title and venue) are read from the ``pyproject.toml`` beside the
script (``[project] name``, ``[tool.papershelf] paper`` and ``venue``), so a script holds only its
method-specific code and ends with one line::

    main = reproduce_cli(claims)

Run as a program (``python reproduce.py --quick``), that line runs ``main`` and exits with its
status; imported (the smoke test's ``load_script``), it only defines ``main``.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .bench import bench_main
from .reproduce import reproduce_main


def _script(fn: Callable) -> tuple[Path, str | None]:
    """(directory, docstring) of the script module that defines ``fn``."""
    module = sys.modules.get(getattr(fn, "__module__", ""), None)
    path = getattr(module, "__file__", None)
    if path is None:
        raise ValueError(f"cannot tell which script defines {fn!r}: pass package= and paper=")
    return Path(path).resolve().parent, getattr(module, "__doc__", None)


def _run_if_main(fn: Callable, main: Callable) -> Callable:
    """Run ``main`` and exit when the script that defines ``fn`` is being run as a program
    (``python reproduce.py ...``), as ``unittest.main()`` does; imported (tests, ``load_script``),
    hand ``main`` back. So ``main = reproduce_cli(claims)`` is a script's last line, no guard."""
    if getattr(fn, "__module__", None) == "__main__":
        raise SystemExit(main())
    return main


def script_metadata(directory: str | Path) -> tuple[str, str]:
    """(distribution name, "paper title (venue)") from ``directory/pyproject.toml``."""
    pyproject = Path(directory) / "pyproject.toml"
    if not pyproject.exists():
        raise FileNotFoundError(f"{pyproject} not found: pass package= and paper=")
    data = tomllib.loads(pyproject.read_text())
    name = data.get("project", {}).get("name")
    tool = data.get("tool", {}).get("papershelf", {})
    if not name:
        raise ValueError(f"{pyproject} has no [project] name")
    paper = tool.get("paper", "")
    venue = tool.get("venue")
    return name, f"{paper} ({venue})" if venue else paper


def reproduce_cli(
    claims_fn: Callable | Sequence[Callable],
    *,
    package: str | None = None,
    paper: str | None = None,
    **options: Any,
) -> Callable[[Sequence[str] | None], int]:
    """``main(argv=None)`` running :func:`reproduce_main` for ``claims_fn``; package and paper
    default to the script's pyproject, ``--json`` to ``reproduce.json`` beside the script, the
    help text to the script's docstring, and ``quick`` to True. ``options`` are
    :func:`reproduce_main`'s keyword options.

    ``claims_fn`` may be a list of claims functions, each ``f(args) -> Iterable[Claim]``: their
    claims in that order (one function per experiment, no aggregator to write)."""
    if not callable(claims_fn):
        parts = list(claims_fn)
        if not parts or not all(callable(f) for f in parts):
            raise TypeError("claims_fn: expected a function or a non-empty list of functions")

        def claims_fn(args, _parts=tuple(parts)):
            for f in _parts:
                yield from f(args)

        claims_fn.__module__ = parts[0].__module__  # the script that defines them
    here, doc = _script(claims_fn)
    options.setdefault("doc", doc)
    options.setdefault("quick", True)
    if package is None or paper is None:
        name, title = script_metadata(here)
        package, paper = package or name, paper or title
    options.setdefault("default_json", here / "reproduce.json")

    def main(argv: Sequence[str] | None = None) -> int:
        return reproduce_main(package, paper, claims_fn, argv, **options)

    return _run_if_main(claims_fn, main)


def bench_cli(
    run_fn: Callable, *, package: str | None = None, **options: Any
) -> Callable[[Sequence[str] | None], int]:
    """``main(argv=None)`` running :func:`bench_main` for ``run_fn`` (package from the script's
    pyproject, ``--json`` to ``bench.json`` beside the script, help from its docstring)."""
    here, doc = _script(run_fn)
    options.setdefault("doc", doc)
    if package is None:
        package = script_metadata(here)[0]
    options.setdefault("default_json", here / "bench.json")

    def main(argv: Sequence[str] | None = None) -> int:
        return bench_main(package, run_fn, argv, **options)

    return _run_if_main(run_fn, main)
