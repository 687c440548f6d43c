"""read_jsonl: streaming, faithful, and every malformed record names the file and the line."""

from __future__ import annotations

import json
import math

import pytest
from conftest import make_records
from disco_filter import RecordError, read_jsonl


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def good(i=0):
    return {"track_id_spotify": f"t{i}", "audio_embedding_spotify": [0.5] * 512, "x": i}


def test_round_trip_in_file_order(tmp_path):
    recs = make_records(20, seed=3)
    p = write(tmp_path / "a.jsonl", [json.dumps(r) for r in recs])
    assert list(read_jsonl(p)) == recs
    assert list(read_jsonl(str(p), required=("track_id_spotify",))) == recs


def test_blank_lines_are_skipped_but_counted(tmp_path):
    p = write(tmp_path / "b.jsonl", [json.dumps(good(0)), "", "   ", json.dumps({"x": 1, "y": 2})])
    assert [r["x"] for r in read_jsonl(p)] == [0, 1]
    p = write(tmp_path / "c.jsonl", [json.dumps(good(0)), "", "{oops"])
    with pytest.raises(ValueError, match=r"c\.jsonl:3\b"):
        list(read_jsonl(p))


def test_is_lazy(tmp_path):
    p = write(tmp_path / "lazy.jsonl", [json.dumps(good(0)), "not json"])
    it = read_jsonl(p)
    assert next(it)["x"] == 0  # the bad second line is not read yet
    with pytest.raises(ValueError, match="line 2"):
        next(it)


BAD = [
    ("bad JSON", '{"x": 1,', "invalid JSON"),
    ("truncated", '{"track_id_spotify": "t"', "invalid JSON"),
    ("not an object", "[1, 2, 3]", "JSON object"),
    ("missing field", json.dumps({"x": 1}), "track_id_spotify"),
    ("511 floats", json.dumps({**good(), "audio_embedding_spotify": [0.1] * 511}), "511"),
    ("513 floats", json.dumps({**good(), "audio_embedding_youtube": [0.1] * 513}), "513"),
    ("NaN", json.dumps({**good(), "audio_embedding_spotify": [math.nan] + [0.1] * 511}), "finite"),
    ("inf", json.dumps({**good(), "audio_embedding_youtube": [0.1] * 511 + [math.inf]}), "finite"),
    ("string element", json.dumps({**good(), "audio_embedding_spotify": ["0.1"] * 512}), "str"),
    ("bool element", json.dumps({**good(), "audio_embedding_spotify": [True] * 512}), "bool"),
    ("null embedding", json.dumps({**good(), "audio_embedding_spotify": None}), "NoneType"),
    ("nested", json.dumps({**good(), "audio_embedding_spotify": [[0.1] * 512]}), "512"),
]


@pytest.mark.parametrize("what,line,reason", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("lineno", [1, 4])
def test_malformed_record_names_file_and_line(tmp_path, what, line, reason, lineno):
    lines = [json.dumps(good(i)) for i in range(lineno - 1)] + [line, json.dumps(good(9))]
    p = write(tmp_path / "data.jsonl", lines)
    with pytest.raises(ValueError) as info:
        list(read_jsonl(p, required=("track_id_spotify",)))
    err = info.value
    assert isinstance(err, RecordError)
    msg = str(err)
    assert str(p) in msg and f"line {lineno}" in msg and f"{p}:{lineno}:" in msg
    assert reason in msg
    assert (err.path, err.line) == (str(p), lineno)


def test_not_utf8_names_the_line(tmp_path):
    p = tmp_path / "u.jsonl"
    p.write_bytes(json.dumps(good()).encode() + b"\n" + b'{"x": "\xff"}\n')
    with pytest.raises(RecordError, match="line 2"):
        list(read_jsonl(p))


def test_integers_in_embeddings_are_numbers(tmp_path):
    p = write(tmp_path / "i.jsonl", [json.dumps({**good(), "audio_embedding_spotify": [1] * 512})])
    assert list(read_jsonl(p))[0]["audio_embedding_spotify"] == [1] * 512


def test_path_and_required_checked_at_call(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_jsonl(tmp_path / "missing.jsonl")
    with pytest.raises(TypeError, match="path"):
        read_jsonl(3)
    p = write(tmp_path / "r.jsonl", [json.dumps(good())])
    with pytest.raises(TypeError, match="required"):
        read_jsonl(p, required="track_id_spotify")
    with pytest.raises(TypeError, match="required"):
        read_jsonl(p, required=(1,))
    with pytest.raises(ValueError, match="path"):
        read_jsonl(tmp_path)


def test_integer_too_large_for_a_float_is_not_finite(tmp_path):
    big = json.dumps({**good(), "audio_embedding_spotify": [1] * 511 + [10**400]})
    p = write(tmp_path / "big.jsonl", [big])
    with pytest.raises(RecordError, match="finite"):
        list(read_jsonl(p))
