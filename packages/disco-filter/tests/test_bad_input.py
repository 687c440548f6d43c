"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (``suite.Number``, ``OutOfRange``, ``Int``, ``Array``,
``Mismatch``, ``Option``, ``Rng``; see ``papershelf_harness.suite``); plain tests below for the
rules the kinds do not cover (field names, stages, encoders, callables, record streams).
"""

from __future__ import annotations

import numpy as np
import pytest
from disco_filter import (
    AudioStage,
    DedupStage,
    DurationStage,
    EmbeddingIndex,
    LogMelStatsAudio,
    Pipeline,
    PredicateStage,
    TextStage,
    ThresholdStage,
    auroc,
    cosine_rows,
    duration_similarity,
    fit_threshold,
    random_subset,
    top_subset,
)
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

A = np.arange(1.0, 13.0).reshape(3, 4)
S = np.linspace(0, 1, 10)
Y = np.tile([0, 1], 5)
RECS = [{"s": float(i), "k": i} for i in range(5)]
INDEX = EmbeddingIndex(np.eye(3) + 0.1)


def enc(texts):
    return np.ones((len(texts), 2))


def floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def lt(x):
    return floats(hi=x).filter(lambda v: v < x)


def gt(x):
    return floats(lo=x).filter(lambda v: v > x)


CASES = [
    # similarity
    suite.Array("cosine_rows.a", "a", lambda v: cosine_rows(v, A), (3, 4), (2,)),
    suite.Array("cosine_rows.b", "b", lambda v: cosine_rows(A, v), (3, 4), (2,)),
    suite.Mismatch("cosine_rows.rows", "b", lambda: cosine_rows(A, A[:2])),
    suite.Mismatch("cosine_rows.cols", "b", lambda: cosine_rows(A, A[:, :3])),
    suite.Number(
        "duration_similarity.track_ms", "track_ms", lambda v: duration_similarity(v, 180.0)
    ),
    suite.Number("duration_similarity.video_s", "video_s", lambda v: duration_similarity(1e5, v)),
    suite.OutOfRange(
        "duration_similarity.track_ms<=0",
        "track_ms",
        lambda v: duration_similarity(v, 1.0),
        floats(hi=0.0),
    ),
    suite.OutOfRange(
        "duration_similarity.video_s<=0",
        "video_s",
        lambda v: duration_similarity(1e3, v),
        floats(hi=0.0),
    ),
    suite.Mismatch(
        "duration_similarity.broadcast",
        "video_s",
        lambda: duration_similarity(np.ones(3), np.ones(2)),
    ),
    # stages
    suite.Number("DurationStage.t", "t", lambda v: DurationStage(v)),
    suite.OutOfRange("DurationStage.t<0", "t", lambda v: DurationStage(v), lt(0.0)),
    suite.OutOfRange("DurationStage.t>1", "t", lambda v: DurationStage(v), gt(1.0)),
    suite.Number("AudioStage.t", "t", lambda v: AudioStage(v)),
    suite.OutOfRange("AudioStage.t<-1", "t", lambda v: AudioStage(v), lt(-1.0)),
    suite.OutOfRange("AudioStage.t>1", "t", lambda v: AudioStage(v), gt(1.0)),
    suite.Number("TextStage.t", "t", lambda v: TextStage("q", "v", v, encoder=enc)),
    suite.OutOfRange("TextStage.t>1", "t", lambda v: TextStage("q", "v", v, encoder=enc), gt(1.0)),
    suite.Number("ThresholdStage.t", "t", lambda v: ThresholdStage("s", v)),
    suite.keyword(suite.Int, Pipeline, "batch_size", [], minimum=1),
    # calibration
    suite.Array("fit_threshold.scores", "scores", lambda v: fit_threshold(v, Y), (10,), (1,)),
    suite.Array("fit_threshold.labels", "labels", lambda v: fit_threshold(S, v), (10,), (1,)),
    suite.Mismatch("fit_threshold.labels", "labels", lambda: fit_threshold(S, Y[:9])),
    suite.keyword(
        suite.Option,
        fit_threshold,
        "objective",
        S,
        Y,
        valid=frozenset({"f1", "accuracy", "balanced_accuracy"}),
    ),
    suite.Array("auroc.scores", "scores", lambda v: auroc(v, Y), (10,), (1,)),
    suite.Array("auroc.labels", "labels", lambda v: auroc(S, v), (10,), (1,)),
    suite.Mismatch("auroc.labels", "labels", lambda: auroc(S, Y[:9])),
    # subsets
    suite.Int("random_subset.n", "n", lambda v: random_subset(RECS, v, rng=0), minimum=0),
    suite.keyword(suite.Rng, random_subset, "rng", RECS, 2),
    suite.Int("top_subset.n", "n", lambda v: top_subset(RECS, v, key="s"), minimum=0),
    # index
    suite.Array("EmbeddingIndex.embs", "embs", lambda v: EmbeddingIndex(v), (5, 3), (2,)),
    suite.Array("EmbeddingIndex.search.q", "q", lambda v: INDEX.search(v, 1), (3,), (1, 2)),
    suite.Mismatch("EmbeddingIndex.search.q", "q", lambda: INDEX.search(np.ones(4), 1)),
    suite.Int("EmbeddingIndex.search.k", "k", lambda v: INDEX.search(np.ones(3), v), minimum=1),
    suite.Number("EmbeddingIndex.near_duplicates.t", "t", lambda v: INDEX.near_duplicates(v)),
    suite.OutOfRange(
        "EmbeddingIndex.near_duplicates.t>1", "t", lambda v: INDEX.near_duplicates(v), gt(1.0)
    ),
    # audio baseline
    suite.keyword(suite.Int, LogMelStatsAudio, "sr_internal", minimum=4000),
    suite.Int(
        "LogMelStatsAudio.encode.sr",
        "sr",
        lambda v: LogMelStatsAudio().encode([np.ones(4000)], v),
        minimum=1000,
    ),
]

globals().update(suite.bad_input_suite(CASES))


def test_more_than_available_is_a_value_error():
    assert_rejects(ValueError, "n", random_subset, RECS, 6, rng=0)
    assert_rejects(ValueError, "n", top_subset, RECS, 6, key="s")
    assert_rejects(ValueError, "k", INDEX.search, np.ones(3), 4)


@pytest.mark.parametrize("bad", [None, 3, ["q"], b"q"])
def test_field_names_must_be_strings(bad):
    assert_rejects(TypeError, "query", TextStage, bad, "v", 0.5, encoder=enc)
    assert_rejects(TypeError, "target", TextStage, "q", bad, 0.5, encoder=enc)
    assert_rejects(TypeError, "field", ThresholdStage, bad, 0.5)


def test_empty_field_name_is_a_value_error():
    assert_rejects(ValueError, "query", TextStage, "", "v", 0.5, encoder=enc)


def test_encoder_key_fn_and_stages_types():
    assert_rejects(TypeError, "encoder", TextStage, "q", "v", 0.5, encoder="minilm")
    assert_rejects(TypeError, "key", DedupStage, 3)
    assert_rejects(TypeError, "key", DedupStage, ())
    assert_rejects(TypeError, "fn", PredicateStage, "not callable")
    assert_rejects(TypeError, "stages", Pipeline, DurationStage(0.5))
    assert_rejects(TypeError, "stages", Pipeline, [DurationStage(0.5), "audio"])
    assert_rejects(TypeError, "stages", Pipeline, 3)
    assert_rejects(TypeError, "key", top_subset, RECS, 1, key=1.5)


@pytest.mark.parametrize("bad", [None, 3, {"a": 1}, "records"])
def test_records_must_be_an_iterable_of_dicts(bad):
    assert_rejects(TypeError, "records", Pipeline([]).run, bad)
    assert_rejects(TypeError, "records", random_subset, bad, 1)
    assert_rejects(TypeError, "records", top_subset, bad, 1, key="s")


def test_bool_durations_are_type_errors():
    assert_rejects(TypeError, "track_ms", duration_similarity, np.array([True]), 1.0)
    assert_rejects(TypeError, "video_s", duration_similarity, 1000, np.array([True, False]))


def test_audio_encoder_waveforms():
    e = LogMelStatsAudio()
    assert_rejects(ValueError, "waveforms", e.encode, np.ones(4000), 16000)
    assert_rejects(ValueError, "waveforms", e.encode, [], 16000)
    assert_rejects(ValueError, "waveforms", e.encode, [np.zeros(4000)], 16000)
    assert_rejects(ValueError, "waveforms", e.encode, [np.full(4000, np.nan)], 16000)
    assert_rejects(TypeError, "waveforms", e.encode, 3, 16000)
