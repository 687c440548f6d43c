"""Stages and Pipeline against pure-Python loops: kept records, written scores, accounting,
laziness, input order, and that each stage sees only the survivors of the stages before it."""

from __future__ import annotations

import copy
import itertools
import math

import disco_filter as dfl
import numpy as np
import pytest
from conftest import make_records, py_cosine, py_duration


class CharEncoder:
    """A deterministic toy text encoder: letter counts (a-z) plus 1; records every call."""

    def __init__(self):
        self.calls = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return np.array([py_char_vec(t) for t in texts], dtype=float)


def py_char_vec(text):
    v = [1.0] * 27
    for ch in text.lower():
        if "a" <= ch <= "z":
            v[ord(ch) - 97] += 1.0
    return v


# --- pure-Python reference of every stage: (name, score field or None, score fn, keep fn) -----
def ref_stage(kind, param):
    if kind == "duration":
        return (
            "similarity_duration",
            lambda r: py_duration(r["track_duration_spotify_ms"], r["video_duration_youtube_sec"]),
            lambda s, r: s >= param,
        )
    if kind == "audio":
        return (
            "similarity_audio",
            lambda r: py_cosine(r["audio_embedding_spotify"], r["audio_embedding_youtube"]),
            lambda s, r: s >= param,
        )
    if kind == "text":
        return (
            "similarity_query_video_title",
            lambda r: py_cosine(
                py_char_vec(r["search_query_youtube"]), py_char_vec(r["video_title_youtube"])
            ),
            lambda s, r: s >= param,
        )
    if kind == "threshold":
        field, t = param
        return None, None, lambda s, r: r[field] >= t
    if kind == "predicate":
        return None, None, lambda s, r: param(r)
    raise AssertionError(kind)


def ref_pipeline(records, specs):
    """The reference: one record at a time, one stage at a time; returns (kept, counts)."""
    kept = []
    counts = [[0, 0] for _ in specs]
    seen = [set() for _ in specs]
    for r in records:
        alive = True
        for k, (kind, param) in enumerate(specs):
            counts[k][0] += 1
            if kind == "dedup":
                key = r[param]
                if key in seen[k]:
                    alive = False
                    break
                seen[k].add(key)
            else:
                field, score, keep = ref_stage(kind, param)
                s = score(r) if score else None
                if not keep(s, r):
                    alive = False
                    break
                if field:
                    r = {**r, field: s}
            counts[k][1] += 1
        if alive:
            kept.append(r)
    return kept, counts


def build(kind, param):
    if kind == "duration":
        return dfl.DurationStage(param)
    if kind == "audio":
        return dfl.AudioStage(param)
    if kind == "text":
        return dfl.TextStage(
            "search_query_youtube", "video_title_youtube", param, encoder=CharEncoder()
        )
    if kind == "threshold":
        return dfl.ThresholdStage(*param)
    if kind == "dedup":
        return dfl.DedupStage(param)
    if kind == "predicate":
        return dfl.PredicateStage(param)
    raise AssertionError(kind)


def views_over(r):
    return r["video_view_count_youtube"] > 300_000


SINGLE = [
    ("duration", 0.9),
    ("duration", 0.0),
    ("duration", 1.0),
    ("audio", 0.5),
    ("audio", -1.0),
    ("text", 0.8),
    ("threshold", ("video_view_count_youtube", 500_000)),
    ("dedup", "track_id_spotify"),
    ("predicate", views_over),
]


def assert_same(kept, ref):
    assert [r["search_query_youtube"] for r in kept] == [r["search_query_youtube"] for r in ref]
    for a, b in zip(kept, ref):
        assert a.keys() == b.keys()
        for key in a:
            if key.startswith("similarity_"):
                assert a[key] == pytest.approx(b[key], abs=1e-12)
                assert isinstance(a[key], float)
            else:
                assert a[key] == b[key]


@pytest.mark.parametrize("kind,param", SINGLE, ids=[f"{k}-{p}" for k, p in SINGLE])
def test_each_stage_matches_python_loop(records, kind, param):
    kept = list(dfl.Pipeline([build(kind, param)], batch_size=64).run(records))
    ref, counts = ref_pipeline(records, [(kind, param)])
    assert_same(kept, ref)
    assert 0 < len(ref) <= len(records) or param in (1.0,)  # the cases are not all-or-nothing
    # a stage called alone is the same filter
    assert_same(build(kind, param)(records), ref)


SPECS = [
    ("duration", 0.9),
    ("dedup", "track_id_spotify"),
    ("audio", 0.5),
    ("predicate", views_over),
    ("text", 0.7),
    ("threshold", ("similarity_audio", 0.8)),
]


@pytest.mark.parametrize("batch_size", [1, 7, 64, 4096])
def test_pipeline_and_report_match_reference(records, batch_size):
    pipe = dfl.Pipeline([build(k, p) for k, p in SPECS], batch_size=batch_size)
    kept = list(pipe.run(records))
    ref, counts = ref_pipeline(records, SPECS)
    assert_same(kept, ref)
    rep = pipe.report
    assert isinstance(rep, dfl.Report)
    assert rep.n_in == len(records) and rep.n_kept == len(ref)
    assert [(n, p) for _, n, p in rep.stages] == [tuple(c) for c in counts]
    assert [s.name for s in rep.stages] == [
        "DurationStage",
        "DedupStage",
        "AudioStage",
        "PredicateStage",
        "TextStage",
        "ThresholdStage",
    ]
    # accounting reconciles: each stage sees what the previous passed; drops sum to the total
    assert rep.stages[0].n_in == rep.n_in and rep.stages[-1].n_passed == rep.n_kept
    for prev, nxt in zip(rep.stages, rep.stages[1:]):
        assert nxt.n_in == prev.n_passed
    assert sum(s.n_in - s.n_passed for s in rep.stages) == rep.n_dropped
    assert rep.stages == [tuple(s) for s in rep.stages]  # plain tuples compare equal
    assert 0 < rep.n_kept < rep.n_in


STATELESS = [("duration", 0.95), ("audio", 0.6), ("predicate", views_over), ("text", 0.75)]


def test_kept_set_is_intersection_and_order_free(records):
    masks = []
    for kind, param in STATELESS:
        ref, _ = ref_pipeline(records, [(kind, param)])
        masks.append({r["search_query_youtube"] for r in ref})
    expect = [
        r["search_query_youtube"]
        for r in records
        if all(r["search_query_youtube"] in m for m in masks)
    ]
    assert expect
    for perm in itertools.permutations(STATELESS):
        kept = list(dfl.Pipeline([build(k, p) for k, p in perm], batch_size=50).run(records))
        assert [r["search_query_youtube"] for r in kept] == expect


class Source:
    """An input stream that counts the records pulled from it."""

    def __init__(self, records):
        self.records = records
        self.pulled = 0

    def __iter__(self):
        for r in self.records:
            self.pulled += 1
            yield r


def test_run_is_lazy_and_batched(records):
    src = Source(records)
    pipe = dfl.Pipeline([dfl.DurationStage(0.0)], batch_size=10)
    it = pipe.run(src)
    assert src.pulled == 0  # nothing read before iteration
    first = next(it)
    assert src.pulled == 10 and first["search_query_youtube"] == records[0]["search_query_youtube"]
    assert pipe.report.n_in == 10  # the report so far
    rest = list(it)
    assert len(rest) + 1 == len(records) and pipe.report.n_in == len(records)


def test_stages_see_only_survivors(records):
    seen = []
    spy = dfl.PredicateStage(lambda r: seen.append(r["search_query_youtube"]) or True)
    enc = CharEncoder()
    text = dfl.TextStage("search_query_youtube", "video_title_youtube", -1.0, encoder=enc)
    pipe = dfl.Pipeline([dfl.DurationStage(0.95), spy, text], batch_size=32)
    list(pipe.run(records))
    ref, _ = ref_pipeline(records, [("duration", 0.95)])
    survivors = [r["search_query_youtube"] for r in ref]
    assert seen == survivors
    # one encoder call per input batch that has survivors: their queries, then their titles
    keep = {
        id(r)
        for r in records
        if py_duration(r["track_duration_spotify_ms"], r["video_duration_youtube_sec"]) >= 0.95
    }
    expected = []
    for i in range(0, len(records), 32):
        alive = [r for r in records[i : i + 32] if id(r) in keep]
        if alive:
            expected.append(
                [r["search_query_youtube"] for r in alive]
                + [r["video_title_youtube"] for r in alive]
            )
    assert enc.calls == expected


def test_input_records_are_not_modified(records):
    before = copy.deepcopy(records[:50])
    out = list(dfl.Pipeline([dfl.DurationStage(0.0), dfl.AudioStage(-1.0)]).run(records[:50]))
    assert records[:50] == before
    assert all("similarity_audio" in r and "similarity_duration" in r for r in out)


def test_scores_written_back_match_recomputation(records):
    out = list(
        dfl.Pipeline([dfl.DurationStage(0.0), dfl.AudioStage(-1.0)], batch_size=13).run(records)
    )
    assert len(out) == len(records)
    for r in out:
        assert r["similarity_audio"] == pytest.approx(
            py_cosine(r["audio_embedding_spotify"], r["audio_embedding_youtube"]), abs=1e-12
        )
        assert r["similarity_duration"] == pytest.approx(
            py_duration(r["track_duration_spotify_ms"], r["video_duration_youtube_sec"]), abs=1e-15
        )
    scores = dfl.AudioStage(0.0).score(records)
    np.testing.assert_allclose(scores, [r["similarity_audio"] for r in out], atol=1e-12)


def test_dedup_spans_batches_and_runs_are_independent():
    recs = [{"k": i % 3, "i": i} for i in range(10)]
    pipe = dfl.Pipeline([dfl.DedupStage("k")], batch_size=2)
    assert [r["i"] for r in pipe.run(recs)] == [0, 1, 2]
    assert [r["i"] for r in pipe.run(recs)] == [0, 1, 2]  # fresh state for every run
    two = dfl.Pipeline([dfl.DedupStage(("k", "j"))], batch_size=3)
    recs2 = [{"k": i % 2, "j": i % 3, "i": i} for i in range(12)]
    assert [r["i"] for r in two.run(recs2)] == [0, 1, 2, 3, 4, 5]
    by_fn = dfl.Pipeline([dfl.DedupStage(lambda r: r["i"] // 4)])
    assert [r["i"] for r in by_fn.run(recs)] == [0, 4, 8]
    lists = [{"e": [1, 2]}, {"e": [1, 2]}, {"e": [2, 1]}]
    assert len(dfl.DedupStage("e")(lists)) == 2  # unhashable values compared by content


def test_empty_input_and_no_stages():
    pipe = dfl.Pipeline([dfl.DurationStage(0.5)])
    assert list(pipe.run([])) == []
    assert pipe.report == dfl.Report(0, 0, [("DurationStage", 0, 0)])
    ident = dfl.Pipeline([])
    recs = [{"a": 1}, {"a": 2}]
    assert list(ident.run(recs)) == recs and ident.report.n_kept == 2


def test_report_before_any_run():
    rep = dfl.Pipeline([dfl.DurationStage(0.5), dfl.DedupStage("x")]).report
    assert rep.n_in == 0 and rep.n_kept == 0
    assert rep.stages == [("DurationStage", 0, 0), ("DedupStage", 0, 0)]


@pytest.mark.parametrize(
    "stage,record,reason",
    [
        (dfl.DurationStage(0.5), {"video_duration_youtube_sec": 3.0}, "track_duration_spotify_ms"),
        (
            dfl.DurationStage(0.5),
            {"track_duration_spotify_ms": 3000, "video_duration_youtube_sec": math.nan},
            "finite",
        ),
        (
            dfl.DurationStage(0.5),
            {"track_duration_spotify_ms": 0, "video_duration_youtube_sec": 1.0},
            "> 0",
        ),
        (
            dfl.DurationStage(0.5),
            {"track_duration_spotify_ms": "3", "video_duration_youtube_sec": 1.0},
            "number",
        ),
        (dfl.AudioStage(0.5), {"audio_embedding_spotify": [1.0] * 512}, "audio_embedding_youtube"),
        (
            dfl.AudioStage(0.5),
            {"audio_embedding_spotify": [1.0] * 511, "audio_embedding_youtube": [1.0] * 512},
            "512",
        ),
        (
            dfl.AudioStage(0.5),
            {"audio_embedding_spotify": [0.0] * 512, "audio_embedding_youtube": [1.0] * 512},
            "zeros",
        ),
        (
            dfl.AudioStage(0.5),
            {"audio_embedding_spotify": [math.nan] * 512, "audio_embedding_youtube": [1.0] * 512},
            "finite",
        ),
        (
            dfl.AudioStage(0.5),
            {"audio_embedding_spotify": ["0.1"] * 512, "audio_embedding_youtube": [1.0] * 512},
            "numbers",
        ),
        (
            dfl.AudioStage(0.5),
            {"audio_embedding_spotify": None, "audio_embedding_youtube": [1.0] * 512},
            "numbers",
        ),
        (dfl.ThresholdStage("s", 0.5), {"t": 1.0}, "'s'"),
        (dfl.ThresholdStage("s", 0.5), {"s": "1.0"}, "number"),
        (dfl.ThresholdStage("s", 0.5), {"s": True}, "number"),
        (dfl.ThresholdStage("s", 0.5), {"s": np.True_}, "number"),
        (dfl.ThresholdStage("s", 0.5), {"s": None}, "number"),
        (dfl.ThresholdStage("s", 0.5), {"s": math.nan}, "finite"),
        (dfl.TextStage("q", "v", 0.5, encoder=CharEncoder()), {"q": "a", "v": None}, "'v'"),
        (dfl.DedupStage("k"), {"j": 1}, "'k'"),
    ],
)
def test_malformed_record_names_stage_and_position(records, stage, record, reason):
    good = {
        "track_duration_spotify_ms": 1000,
        "video_duration_youtube_sec": 1.0,
        "audio_embedding_spotify": [1.0] * 512,
        "audio_embedding_youtube": [1.0] * 512,
        "s": 1.0,
        "q": "a",
        "v": "b",
        "k": 0,
    }
    stream = [dict(good, k=i) for i in range(7)] + [record]
    with pytest.raises(ValueError) as info:
        list(dfl.Pipeline([stage], batch_size=3).run(stream))
    msg = str(info.value)
    assert "record 7" in msg and reason in msg and stage.name in msg


def test_numpy_embeddings_and_scalars_are_accepted():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((9, 512)).astype(np.float32)
    b = rng.standard_normal((9, 512))
    recs = [
        {
            "audio_embedding_spotify": a[i],
            "audio_embedding_youtube": b[i].tolist(),
            "track_duration_spotify_ms": np.int64(1000 + i),
            "video_duration_youtube_sec": np.float32(1.0),
        }
        for i in range(9)
    ]
    out = dfl.Pipeline([dfl.AudioStage(-1.0), dfl.DurationStage(0.0)], batch_size=4).run(recs)
    for r, i in zip(out, range(9)):
        assert r["similarity_audio"] == pytest.approx(
            py_cosine(a[i].tolist(), b[i].tolist()), abs=1e-9
        )
        assert r["similarity_duration"] == pytest.approx(py_duration(1000 + i, 1.0))


def test_non_dict_record_is_a_type_error():
    with pytest.raises(TypeError, match="record 1"):
        list(dfl.Pipeline([dfl.DedupStage("a")]).run([{"a": 1}, [1, 2]]))


def test_text_stage_field_names():
    enc = CharEncoder()
    assert dfl.TextStage("search_query_youtube", "video_title_youtube", 0.5, encoder=enc).field == (
        "similarity_query_video_title"
    )
    assert dfl.TextStage(
        "search_query_youtube", "video_description_youtube", 0.5, encoder=enc
    ).field == ("similarity_query_description")
    assert dfl.TextStage("q", "title", 0.5, encoder=enc).field == "similarity_q_title"
    # a plain callable is an encoder too
    stage = dfl.TextStage(
        "q", "v", 0.99, encoder=lambda texts: np.array([py_char_vec(t) for t in texts])
    )
    out = stage([{"q": "abc", "v": "cab"}, {"q": "abc", "v": "xyz"}])
    assert [r["v"] for r in out] == ["cab"] and out[0]["similarity_q_v"] == pytest.approx(1.0)


def test_encoder_returning_garbage_is_rejected():
    bad = dfl.TextStage("q", "v", 0.5, encoder=lambda texts: np.ones((len(texts) + 1, 3)))
    with pytest.raises(ValueError, match="encoder"):
        bad([{"q": "a", "v": "b"}])
    nan = dfl.TextStage("q", "v", 0.5, encoder=lambda texts: np.full((len(texts), 3), np.nan))
    with pytest.raises(ValueError, match="encoder"):
        nan([{"q": "a", "v": "b"}])


def test_large_stream_many_batches():
    recs = make_records(600, seed=5, dim=512, n_tracks=120)
    pipe = dfl.Pipeline(
        [dfl.DurationStage(0.9), dfl.AudioStage(0.7), dfl.DedupStage("track_id_spotify")],
        batch_size=64,
    )
    kept = list(pipe.run(iter(recs)))
    ref, counts = ref_pipeline(
        recs, [("duration", 0.9), ("audio", 0.7), ("dedup", "track_id_spotify")]
    )
    assert [r["search_query_youtube"] for r in kept] == [r["search_query_youtube"] for r in ref]
    assert [(n, p) for _, n, p in pipe.report.stages] == [tuple(c) for c in counts]
