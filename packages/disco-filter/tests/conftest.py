"""Shared synthetic DISCO-like records and pure-Python references."""

from __future__ import annotations

import math
import random

import pytest


def py_cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb)


def py_duration(track_ms, video_s):
    t = track_ms / 1000.0
    return 1.0 - abs(t - video_s) / max(t, video_s)


def make_records(n, *, seed=0, dim=512, n_tracks=None):
    """n records with DISCO fields; half the videos carry the track (close embedding/duration)."""
    r = random.Random(seed)
    n_tracks = n_tracks or max(1, n // 2)
    out = []
    for i in range(n):
        a = [r.gauss(0, 1) for _ in range(dim)]
        match = r.random() < 0.5
        b = [x + r.gauss(0, 0.3) for x in a] if match else [r.gauss(0, 1) for _ in range(dim)]
        ms = r.randrange(60_000, 400_000)
        video = ms / 1000 + r.uniform(-3, 3) if match else r.uniform(30, 600)
        out.append(
            {
                "track_id_spotify": f"t{r.randrange(n_tracks)}",
                "track_name_spotify": f"song {i}",
                "primary_artist_name_spotify": f"artist {i % 7}",
                "search_query_youtube": f"artist {i % 7} song {i}",
                "video_title_youtube": f"artist {i % 7} - song {i} (official)"
                if match
                else f"artist {(i + 3) % 7} - tune {i + 1}",
                "track_duration_spotify_ms": ms,
                "video_duration_youtube_sec": max(1.0, video),
                "video_view_count_youtube": r.randrange(10**6),
                "audio_embedding_spotify": a,
                "audio_embedding_youtube": b,
                "label": match,
            }
        )
    return out


@pytest.fixture(scope="session")
def records():
    return make_records(300, seed=1)
