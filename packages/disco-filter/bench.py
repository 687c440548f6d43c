"""Throughput of the streaming Pipeline vs a pure-Python per-record loop and pandas.

One DISCO-style filter (duration >= 0.9, audio cosine >= 0.5, views >= 1000, dedup by track id)
over a stream of records. The records are generated on the fly (memory stays bounded) from a
pool of 4096 embedding pairs; the time of the source alone is its own column. Two record forms:
float32 numpy embeddings (as DISCO's parquet files load) and lists of floats (as JSON lines
parse). Baselines, doing the same filter on the same records:

- python_loop: one fused pass per record (duration formula, one loop for dot and both norms);
- python_naive: the textbook three ``sum(... for ...)`` cosine per record;
- pandas: per batch of 4096 a DataFrame, vectorised columns, ``np.stack`` of the embeddings,
  a global seen-set for the dedup.

The per-record loops are timed on a prefix of the stream and scaled linearly to all records
(they are linear in the number of records); every method's kept records are checked to be the
same on the prefix.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import math
import time

import numpy as np
from disco_filter import AudioStage, DedupStage, DurationStage, Pipeline, ThresholdStage

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None

POOL = 4096
T_DURATION, T_AUDIO, MIN_VIEWS = 0.9, 0.5, 1000


def source(n: int, *, lists: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((POOL, 512)).astype(np.float32)
    b = (a + 1.2 * rng.standard_normal((POOL, 512))).astype(np.float32)
    other = rng.permutation(POOL)
    ea, eb = (a.tolist(), b.tolist()) if lists else (list(a), list(b))
    ms = rng.integers(60_000, 400_000, POOL).tolist()
    jitter = rng.uniform(-30, 30, POOL).tolist()
    views = rng.integers(0, 100_000, POOL).tolist()

    def rows():
        for i in range(n):
            j = i % POOL
            yield {
                "track_id_spotify": f"t{i // 3}",
                "track_duration_spotify_ms": ms[j],
                "video_duration_youtube_sec": ms[j] / 1000 + jitter[(j * 7) % POOL],
                "video_view_count_youtube": views[(j * 3) % POOL],
                "audio_embedding_spotify": ea[j],
                "audio_embedding_youtube": eb[j] if i % 4 else eb[other[j]],
            }

    return rows


def ours(rows):
    pipe = Pipeline(
        [
            DurationStage(T_DURATION),
            AudioStage(T_AUDIO),
            ThresholdStage("video_view_count_youtube", MIN_VIEWS),
            DedupStage("track_id_spotify"),
        ]
    )
    return [r["track_id_spotify"] for r in pipe.run(rows)]


def python_loop(rows):
    seen, kept = set(), []
    for r in rows:
        t = r["track_duration_spotify_ms"] / 1000
        v = r["video_duration_youtube_sec"]
        sd = 1 - abs(t - v) / max(t, v)
        if sd < T_DURATION:
            continue
        a, b = r["audio_embedding_spotify"], r["audio_embedding_youtube"]
        if not isinstance(a, list):
            a, b = a.tolist(), b.tolist()
        dot = na = nb = 0.0
        for x, y in zip(a, b):
            dot += x * y
            na += x * x
            nb += y * y
        sa = dot / math.sqrt(na * nb)
        if sa < T_AUDIO or r["video_view_count_youtube"] < MIN_VIEWS:
            continue
        if r["track_id_spotify"] in seen:
            continue
        seen.add(r["track_id_spotify"])
        kept.append({**r, "similarity_duration": sd, "similarity_audio": sa}["track_id_spotify"])
    return kept


def python_naive(rows):
    seen, kept = set(), []
    for r in rows:
        t = r["track_duration_spotify_ms"] / 1000
        v = r["video_duration_youtube_sec"]
        if 1 - abs(t - v) / max(t, v) < T_DURATION:
            continue
        a, b = list(r["audio_embedding_spotify"]), list(r["audio_embedding_youtube"])
        dot = sum(x * y for x, y in zip(a, b))
        sa = dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))
        if sa < T_AUDIO or r["video_view_count_youtube"] < MIN_VIEWS:
            continue
        if r["track_id_spotify"] not in seen:
            seen.add(r["track_id_spotify"])
            kept.append(r["track_id_spotify"])
    return kept


def pandas_filter(rows):
    seen, kept = set(), []
    batch = []

    def flush(batch):
        df = pd.DataFrame.from_records(batch)
        t = df["track_duration_spotify_ms"].to_numpy() / 1000
        v = df["video_duration_youtube_sec"].to_numpy()
        df["similarity_duration"] = 1 - np.abs(t - v) / np.maximum(t, v)
        df = df[df["similarity_duration"] >= T_DURATION]
        a = np.stack(df["audio_embedding_spotify"].to_numpy()).astype(np.float64)
        b = np.stack(df["audio_embedding_youtube"].to_numpy()).astype(np.float64)
        sa = np.einsum("ij,ij->i", a, b) / np.sqrt(
            np.einsum("ij,ij->i", a, a) * np.einsum("ij,ij->i", b, b)
        )
        df = df.assign(similarity_audio=sa)
        df = df[(df["similarity_audio"] >= T_AUDIO) & (df["video_view_count_youtube"] >= MIN_VIEWS)]
        df = df[~df["track_id_spotify"].isin(seen)].drop_duplicates("track_id_spotify")
        seen.update(df["track_id_spotify"])
        kept.extend(df["track_id_spotify"].tolist())

    for r in rows:
        batch.append(r)
        if len(batch) == 4096:
            flush(batch)
            batch = []
    if batch:
        flush(batch)
    return kept


def _seconds(fn, rows):
    t0 = time.perf_counter()
    out = fn(rows)
    return time.perf_counter() - t0, out


def run(args) -> Table:
    configs = (
        [("float32 arrays", False, 5_000, 1_000, 5_000)]
        if args.quick
        else [
            ("float32 arrays", False, 1_000_000, 20_000, 200_000),
            ("lists (JSONL)", True, 100_000, 20_000, 100_000),
        ]
    )
    table = Table(
        [
            "records",
            "n",
            "source_s",
            "ours_s",
            "python_loop_s",
            "python_naive_s",
            "pandas_s",
            "vs_python_loop",
            "vs_python_naive",
            "vs_pandas",
        ]
    )
    for name, lists, n, n_loop, n_pandas in configs:
        make = source(n, lists=lists)
        t_src, _ = _seconds(lambda rows: sum(1 for _ in rows), make())
        t_ours, kept = _seconds(ours, make())
        prefix = source(n_loop, lists=lists)
        ref = ours(prefix())
        t_loop, k_loop = _seconds(python_loop, prefix())
        t_naive, k_naive = _seconds(python_naive, prefix())
        assert k_loop == ref and k_naive == ref, "baselines disagree with the pipeline"
        scale = n / n_loop
        t_loop, t_naive = t_loop * scale, t_naive * scale
        t_pd = float("nan")
        if pd is not None:
            pre = source(n_pandas, lists=lists)
            t_pd, k_pd = _seconds(pandas_filter, pre())
            assert k_pd == ours(pre()), "pandas disagrees with the pipeline"
            t_pd *= n / n_pandas
        table.add(
            name,
            n,
            round(t_src, 2),
            round(t_ours, 2),
            round(t_loop, 2),
            round(t_naive, 2),
            round(t_pd, 2),
            ratio(t_loop, t_ours),
            ratio(t_naive, t_ours),
            ratio(t_pd, t_ours) if pd is not None else "-",
        )
    table.notes = (
        f"{RATIO_NOTE}. Seconds for all n records (source included in every column). "
        "python_loop/python_naive timed on the first 20,000 records (1,000 with --quick) and "
        "pandas on the first 200,000/100,000 (5,000 with --quick), scaled linearly to n; kept "
        "records identical on those prefixes. Single process."
    )
    return table


main = bench_cli(run, title="disco-filter Pipeline throughput")
