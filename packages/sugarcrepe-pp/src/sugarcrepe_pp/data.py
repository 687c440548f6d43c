"""The SUGARCREPE++ caption triplets (shipped with the package) and their loader.

The five JSON files of the release (https://github.com/Sri-Harsha/scpp, ``data/``, commit
c083bbf; CC BY 4.0 / MIT, see ``LICENSE-DATA.txt`` beside them) are package data: no download.
Each file is a JSON list of records ``{"id", "filename", "caption" (P1), "caption2" (P2),
"negative_caption" (N)}``. Images are MS-COCO val2017 and are not shipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ._checks import describe
from ._validation import check_categories, check_path

__all__ = ["CATEGORIES", "FIELDS", "SIZES", "Triplet", "data_dir", "load_triplets"]

#: The five SUGARCREPE++ categories, in the paper's order.
CATEGORIES: tuple[str, ...] = ("swap_obj", "swap_att", "replace_obj", "replace_att", "replace_rel")
#: Number of triplets per category in the shipped release.
SIZES: dict[str, int] = {
    "swap_obj": 245,
    "swap_att": 666,
    "replace_obj": 1652,
    "replace_att": 788,
    "replace_rel": 1406,
}
#: JSON field of the release -> ``Triplet`` attribute.
FIELDS: dict[str, str] = {
    "id": "id",
    "filename": "image_file",
    "caption": "p1",
    "caption2": "p2",
    "negative_caption": "neg",
}


@dataclass(frozen=True)
class Triplet:
    """One SUGARCREPE++ sample: an MS-COCO image and its caption triplet.

    ``p1`` is the SugarCrepe positive caption, ``p2`` its paraphrase (same meaning, other words),
    ``neg`` the hard negative (P1's words, another meaning).
    """

    id: int
    category: str
    image_file: str
    p1: str
    p2: str
    neg: str

    def __post_init__(self) -> None:
        if isinstance(self.id, bool) or not isinstance(self.id, int):
            raise TypeError(f"id must be an int, got {describe(self.id)}")
        for name in ("category", "image_file", "p1", "p2", "neg"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {describe(value)}")

    @property
    def is_degenerate(self) -> bool:
        """Whether N is string-identical to P1 or to P2 (the triplet cannot be solved)."""
        return self.neg == self.p1 or self.neg == self.p2


def data_dir() -> Path:
    """The folder of the shipped data files (inside the installed package)."""
    return Path(str(resources.files("sugarcrepe_pp") / "data"))


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _parse_records(text: str, file: Path) -> list[tuple[int, Any]]:
    """A JSON array's elements with the line each starts on; malformed JSON is a ValueError
    naming the file and line."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos >= len(text) or text[pos] != "[":
        raise ValueError(f"{file}, line {_line(text, pos)}: expected a JSON list of records")
    pos = _skip_ws(text, pos + 1)
    out: list[tuple[int, Any]] = []
    line, counted = 1, 0  # line number of position `counted`, advanced incrementally

    def line_at(p: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, p)
        counted = p
        return line

    if pos < len(text) and text[pos] == "]":
        pos += 1
    else:
        while True:
            start = pos
            try:
                value, pos = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as e:
                raise ValueError(f"{file}, line {e.lineno}: malformed JSON ({e.msg})") from None
            out.append((line_at(start), value))
            pos = _skip_ws(text, pos)
            if pos < len(text) and text[pos] == ",":
                pos = _skip_ws(text, pos + 1)
                continue
            if pos < len(text) and text[pos] == "]":
                pos += 1
                break
            raise ValueError(
                f"{file}, line {_line(text, min(pos, len(text)))}: malformed JSON "
                "(expected ',' or ']' after a record)"
            )
    pos = _skip_ws(text, pos)
    if pos != len(text):
        raise ValueError(
            f"{file}, line {_line(text, pos)}: malformed JSON (extra data after the list)"
        )
    return out


def _triplet(record: Any, category: str, file: Path, line: int) -> Triplet:
    where = f"{file}, line {line}"
    if not isinstance(record, dict):
        raise ValueError(f"{where}: a record must be a JSON object, got {describe(record)}")
    missing = [k for k in FIELDS if k not in record]
    if missing:
        raise ValueError(f"{where}: record is missing field(s) {missing}")
    rid = record["id"]
    if isinstance(rid, bool) or not isinstance(rid, int):
        raise ValueError(f"{where}: field 'id' must be an integer, got {describe(rid)}")
    for key in ("filename", "caption", "caption2", "negative_caption"):
        value = record[key]
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: field {key!r} must be a non-empty string, got {value!r}")
    return Triplet(
        id=rid,
        category=category,
        image_file=record["filename"],
        p1=record["caption"],
        p2=record["caption2"],
        neg=record["negative_caption"],
    )


def _load_file(file: Path, category: str) -> list[Triplet]:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"root holds no {category}.json: {file} does not exist") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{file}: not UTF-8 text ({e.reason})") from None
    triplets: list[Triplet] = []
    seen: dict[int, int] = {}
    for line, record in _parse_records(text, file):
        t = _triplet(record, category, file, line)
        if t.id in seen:
            raise ValueError(
                f"{file}, line {line}: duplicate id {t.id} (first on line {seen[t.id]})"
            )
        seen[t.id] = line
        triplets.append(t)
    return triplets


def load_triplets(categories=None, *, root=None) -> list[Triplet]:
    """The triplets of ``categories`` (None: all five, in ``CATEGORIES`` order), each file in
    file order.

    Parameters
    ----------
    categories
        None, one category name, or a list of distinct names from ``CATEGORIES``; the result
        follows the order given.
    root
        A folder holding ``<category>.json`` files in the release's format; None reads the data
        shipped in the package.

    Malformed files (bad JSON, a record missing a field or with an empty/wrongly typed one, a
    duplicate id) raise ``ValueError`` naming the file and line.

    >>> ts = load_triplets("swap_obj")
    >>> len(ts), ts[0].id, ts[0].image_file
    (245, 0, '000000222235.jpg')
    """
    cats = check_categories(categories, "categories", CATEGORIES)
    folder = data_dir() if root is None else check_path(root, "root")
    out: list[Triplet] = []
    for cat in cats:
        out.extend(_load_file(folder / f"{cat}.json", cat))
    return out
