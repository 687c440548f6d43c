"""``reproduce_main``: the whole ``main()`` of every package's ``reproduce.py``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .machine import describe_machine
from .schema import validate_reproduce


@dataclass(frozen=True)
class Claim:
    """One row of a reproduction: what the paper says, what we measured, and whether it holds.

    ``holds`` is True, False, or None when the claim cannot be checked at this scale (say why in
    ``note``).
    """

    claim: str
    paper: str
    measured: str
    holds: bool | None
    note: str = ""

    def __post_init__(self) -> None:
        for field in ("claim", "paper", "measured", "note"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(f"Claim.{field} must be a str, got {getattr(self, field)!r}")
        holds = self.holds
        if holds is not None and not isinstance(holds, bool):
            if type(holds).__module__ == "numpy" and type(holds).__name__ in ("bool", "bool_"):
                object.__setattr__(self, "holds", bool(holds))
            else:
                raise TypeError(f"Claim.holds must be True, False or None, got {holds!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def not_run(cls, claim: str, *, paper: str, why: str, measured: str = "not run") -> Claim:
        """A claim this run cannot check (data, models or hardware it lacks): ``holds`` None,
        ``why`` as the note. ``Claim.not_run("ImageNet top-1", paper="76.1", why="no ImageNet")``."""
        return cls(claim, paper, measured, None, why)

    @classmethod
    def reported(cls, claim: str, *, paper: str, measured: str, note: str = "") -> Claim:
        """A number reported for context and not asserted (the paper states no threshold, or the
        result is a diagnostic): ``holds`` None, unlike :meth:`not_run` a measured value.
        ``Claim.reported("GO vs MSE at L = 8", paper="GO 2.31", measured="GO 2.20 vs MSE 1.74")``."""
        return cls(claim, paper, measured, None, note)


def _as_claim(row: Claim | Mapping[str, Any]) -> Claim:
    if isinstance(row, Claim):
        return row
    if isinstance(row, Mapping):
        return Claim(**row)
    raise TypeError(f"a claim must be a Claim or a mapping, got {type(row).__name__}")


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def print_claims(claims: Sequence[Claim], *, widths: tuple[int, int, int] = (60, 24, 26)) -> None:
    """The printed table: claim | paper | measured | holds (one format for every package)."""
    wc, wp, wm = widths
    print(f"{'claim':{wc}s} {'paper':>{wp}s} {'measured':>{wm}s} holds")
    for c in claims:
        print(
            f"{_cell(c.claim, wc):{wc}s} {_cell(c.paper, wp):>{wp}s} "
            f"{_cell(c.measured, wm):>{wm}s} {c.holds}"
        )


def reproduce_main(
    package: str,
    paper: str,
    claims_fn: Callable[[argparse.Namespace], Iterable[Claim | Mapping[str, Any]]],
    argv: Sequence[str] | None = None,
    *,
    doc: str | None = None,
    full_help: str = "paper-scale version (slow)",
    quick: bool = False,
    extra_args: Callable[[argparse.ArgumentParser], None] | None = None,
    details: Callable[[argparse.Namespace], Mapping[str, Any]] | None = None,
    default_json: str | Path | None = None,
) -> int:
    """Parse the command line, run ``claims_fn(args)``, print the table, write the JSON.

    Parameters
    ----------
    package, paper
        The distribution name and the paper's title with its venue, as written in the JSON.
    claims_fn
        Called with the parsed arguments (``args.full``, ``args.quick`` when ``quick=True``, and
        whatever ``extra_args`` added); returns :class:`Claim` rows (or dicts of the same fields).
    argv
        The arguments (``None``: ``sys.argv[1:]``).
    doc
        The script's docstring, shown by ``--help``.
    quick
        Add a ``--quick`` flag (the smoke-test scale).
    extra_args
        Called with the parser to add method-specific options.
    details
        Called with the parsed arguments after the claims; its mapping is stored under
        ``"details"`` in the JSON (per-configuration numbers behind the claims).
    default_json
        Where ``--json`` writes when not given (default: ``reproduce.json`` in the working
        directory).

    Returns
    -------
    int
        0, the process exit code.
    """
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full", action="store_true", help=full_help)
    if quick:
        parser.add_argument("--quick", action="store_true", help="tiny configuration (seconds)")
    parser.add_argument(
        "--json",
        type=Path,
        default=Path(default_json) if default_json else Path("reproduce.json"),
        help="where to write the result JSON (default: %(default)s)",
    )
    if extra_args is not None:
        extra_args(parser)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    rows = [_as_claim(r) for r in claims_fn(args)]
    seconds = time.perf_counter() - t0
    print_claims(rows)
    result: dict[str, Any] = {
        "package": package,
        "paper": paper,
        "full": bool(args.full),
        "seconds": round(seconds, 2),
        "machine": describe_machine(),
        "claims": [r.to_dict() for r in rows],
    }
    if details is not None:
        result["details"] = dict(details(args))
    validate_reproduce(result, where=f"{package} reproduce result")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2, default=_json_default) + "\n")
    held = sum(r.holds is True for r in rows)
    checkable = sum(r.holds is not None for r in rows)
    print(f"{held}/{checkable} checkable claims hold ({seconds:.1f} s); wrote {args.json}")
    sys.stdout.flush()
    return 0


def _json_default(obj: Any) -> Any:
    """numpy scalars and arrays in ``details`` become plain JSON numbers and lists."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
