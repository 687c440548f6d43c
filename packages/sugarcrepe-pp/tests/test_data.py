"""The shipped data and the loader: integrity (exact), order, custom roots, malformed files."""

import dataclasses
import json
import re
from pathlib import Path

import pytest
import sugarcrepe_pp as scpp
from sugarcrepe_pp import CATEGORIES, Triplet, load_triplets

_UP = Path(__file__).resolve().parents
SHARED = next(
    (p / "shared" / "data" / "sugarcrepe-pp" for p in _UP[2:5] if (p / "shared" / "data").is_dir()),
    _UP[3] / "shared" / "data" / "sugarcrepe-pp",
)
COUNTS = {
    "swap_obj": 245,
    "swap_att": 666,
    "replace_obj": 1652,
    "replace_att": 788,
    "replace_rel": 1406,
}


def test_categories_and_counts():
    assert CATEGORIES == ("swap_obj", "swap_att", "replace_obj", "replace_att", "replace_rel")
    ts = load_triplets()
    assert len(ts) == 4757
    assert [t.category for t in ts] == [c for c in CATEGORIES for _ in range(COUNTS[c])]
    for c in CATEGORIES:
        sub = load_triplets(c)
        assert len(sub) == COUNTS[c] == scpp.SIZES[c]
        assert [t.id for t in sub] == list(range(COUNTS[c]))  # file order = ids 0..n-1
        assert all(t.p1.strip() and t.p2.strip() and t.neg.strip() for t in sub)
        assert all(re.fullmatch(r"\d{12}\.jpg", t.image_file) for t in sub)


def test_records_match_the_json_files_field_by_field():
    for c in CATEGORIES:
        raw = json.loads((scpp.data_dir() / f"{c}.json").read_text())
        got = load_triplets([c])
        assert [
            (r["id"], r["filename"], r["caption"], r["caption2"], r["negative_caption"])
            for r in raw
        ] == [(t.id, t.image_file, t.p1, t.p2, t.neg) for t in got]


def test_degenerate_triplets_are_swap_obj_2_and_8():
    ts = load_triplets()
    assert [(t.category, t.id) for t in ts if t.neg == t.p1] == [("swap_obj", 2), ("swap_obj", 8)]
    assert sum(t.neg == t.p2 for t in ts) == 0
    assert [(t.category, t.id) for t in ts if t.is_degenerate] == [("swap_obj", 2), ("swap_obj", 8)]


def test_category_selection_order_and_forms():
    both = load_triplets(["replace_att", "swap_obj"])
    assert [t.category for t in both] == ["replace_att"] * 788 + ["swap_obj"] * 245
    assert load_triplets(("swap_obj",)) == load_triplets("swap_obj")


def test_triplet_is_frozen_with_the_contract_fields():
    t = load_triplets("swap_obj")[0]
    assert [f.name for f in dataclasses.fields(Triplet)] == [
        "id",
        "category",
        "image_file",
        "p1",
        "p2",
        "neg",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.p1 = "x"
    assert t == Triplet(0, "swap_obj", t.image_file, t.p1, t.p2, t.neg)
    with pytest.raises(TypeError, match="id"):
        Triplet("0", "swap_obj", "a.jpg", "a", "b", "c")


def test_shipped_files_are_the_release_bytes():
    if not SHARED.is_dir():
        pytest.skip("the monorepo's shared data folder is not present")
    for name in [f"{c}.json" for c in CATEGORIES] + ["SOURCE.txt"]:
        assert (scpp.data_dir() / name).read_bytes() == (SHARED / name).read_bytes(), name


def test_licence_files_ship_with_the_data():
    text = (scpp.data_dir() / "LICENSE-DATA.txt").read_text()
    assert "CC BY 4.0" in text and "MIT" in text and "2406.11171" in text
    assert "MIT License" in (scpp.data_dir() / "LICENSE-MIT.txt").read_text()


def test_shipped_vocabulary_is_every_token_of_the_data():
    words = set()
    for t in load_triplets():
        for s in (t.p1, t.p2, t.neg):
            words.update(re.findall(r"[a-z0-9']+", s.lower()))
    vocab = scpp.shipped_vocabulary()
    assert list(vocab) == sorted(words)


# ---- custom roots and malformed files -------------------------------------------------------

RECORD = {
    "id": 0,
    "filename": "x.jpg",
    "caption": "a b",
    "caption2": "b a c",
    "negative_caption": "c",
}


def _write(root: Path, name: str, text: str) -> Path:
    path = root / f"{name}.json"
    path.write_text(text)
    return path


def _pretty(records) -> str:
    return json.dumps(records, indent=1)


def test_custom_root_reads_the_release_format(tmp_path):
    recs = [dict(RECORD, id=5), dict(RECORD, id=1, caption="z")]
    _write(tmp_path, "swap_att", _pretty(recs))
    ts = load_triplets("swap_att", root=tmp_path)
    assert [(t.id, t.p1, t.category) for t in ts] == [(5, "a b", "swap_att"), (1, "z", "swap_att")]
    assert load_triplets("swap_att", root=str(tmp_path)) == ts


def test_missing_category_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="swap_obj.json"):
        load_triplets("swap_obj", root=tmp_path)


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_bad_json_names_file_and_line(tmp_path):
    text = _pretty([RECORD, dict(RECORD, id=1)])
    bad = text.replace('"id": 1,', '"id": 1,,')
    path = _write(tmp_path, "swap_obj", bad)
    line = _line_of(bad, ",,")
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}, line {line}\b"):
        load_triplets("swap_obj", root=tmp_path)


def test_truncated_file_names_file_and_line(tmp_path):
    text = _pretty([RECORD, dict(RECORD, id=1)])
    path = _write(tmp_path, "swap_obj", text[:-3])
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}, line \d+"):
        load_triplets("swap_obj", root=tmp_path)


@pytest.mark.parametrize("field", ["id", "filename", "caption", "caption2", "negative_caption"])
def test_missing_field_names_file_line_and_field(tmp_path, field):
    third = {k: v for k, v in dict(RECORD, id=2).items() if k != field}
    text = _pretty([RECORD, dict(RECORD, id=1), third])
    path = _write(tmp_path, "replace_rel", text)
    # the third record starts on the line of the third "{"
    line = [i + 1 for i, s in enumerate(text.split("\n")) if s.strip() == "{"][2]
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}, line {line}: .*{field}"):
        load_triplets("replace_rel", root=tmp_path)


@pytest.mark.parametrize(
    "patch",
    [
        {"id": "3"},
        {"id": True},
        {"id": 1.5},
        {"caption": ""},
        {"caption2": 7},
        {"negative_caption": None},
    ],
    ids=repr,
)
def test_wrongly_typed_or_empty_field(tmp_path, patch):
    text = _pretty([RECORD, {**RECORD, "id": 1, **patch}])
    path = _write(tmp_path, "swap_obj", text)
    line = [i + 1 for i, s in enumerate(text.split("\n")) if s.strip() == "{"][1]
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}, line {line}: field"):
        load_triplets("swap_obj", root=tmp_path)


def test_duplicate_id_and_non_object_and_non_list(tmp_path):
    path = _write(tmp_path, "swap_obj", _pretty([RECORD, RECORD]))
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}, line 9: duplicate id 0"):
        load_triplets("swap_obj", root=tmp_path)
    _write(
        tmp_path,
        "swap_obj",
        '[\n{"id": 0, "filename": "a", "caption": "a",\n'
        ' "caption2": "b", "negative_caption": "c"},\n 3\n]',
    )
    with pytest.raises(ValueError, match=r"line 4: a record must be a JSON object"):
        load_triplets("swap_obj", root=tmp_path)
    _write(tmp_path, "swap_obj", '\n{"id": 0}')
    with pytest.raises(ValueError, match=r"line 2: expected a JSON list"):
        load_triplets("swap_obj", root=tmp_path)
    _write(tmp_path, "swap_obj", "[]\n[]")
    with pytest.raises(ValueError, match=r"line 2: malformed JSON \(extra data"):
        load_triplets("swap_obj", root=tmp_path)
    _write(tmp_path, "swap_obj", "[]")
    assert load_triplets("swap_obj", root=tmp_path) == []
