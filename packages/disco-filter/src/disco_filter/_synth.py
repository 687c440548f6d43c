"""Synthetic data for the reproduction and the tests (not part of the public API).

Audio: "tracks" are chord progressions of sinusoids with a drum-like noise envelope; their
"YouTube versions" get a gain change, 0-2 s of leading silence, white noise at a given SNR and
a different sample rate. Text: YouTube-style titles made from a search query, and titles of
other tracks as negatives.
"""

from __future__ import annotations

import numpy as np

_MAJOR = (0, 4, 7)
_MINOR = (0, 3, 7)


def synth_track(rng: np.random.Generator, *, seconds: float = 8.0, sr: int = 22050) -> np.ndarray:
    n = int(seconds * sr)
    t = np.arange(n) / sr
    x = np.zeros(n)
    n_chords = 4
    seg = n // n_chords
    for c in range(n_chords):
        root = 48 + int(rng.integers(0, 12))  # MIDI C3..B3
        intervals = _MAJOR if rng.random() < 0.5 else _MINOR
        sl = slice(c * seg, n if c == n_chords - 1 else (c + 1) * seg)
        for iv in intervals:
            f = 440.0 * 2.0 ** ((root + iv - 69) / 12.0)
            for h, amp in ((1, 1.0), (2, 0.5), (3, 0.25)):
                x[sl] += amp * np.sin(2 * np.pi * f * h * t[sl] + rng.uniform(0, 2 * np.pi))
    bpm = rng.uniform(80, 140)
    beat = 60.0 / bpm
    env = np.exp(-np.mod(t, beat) / 0.05)
    color = rng.uniform(0.2, 0.8)
    noise = rng.standard_normal(n)
    noise = np.convolve(noise, np.ones(int(2 + 8 * color)) / (2 + 8 * color), mode="same")
    x += 1.5 * env * noise
    return x / np.max(np.abs(x))


def youtube_version(
    x: np.ndarray,
    sr: int,
    rng: np.random.Generator,
    *,
    snr_db: float = 20.0,
    sr_out: int | None = None,
    max_silence: float = 2.0,
) -> tuple[np.ndarray, int]:
    gain = rng.uniform(0.3, 2.0)
    lead = np.zeros(int(rng.uniform(0.0, max_silence) * sr))
    y = np.concatenate([lead, gain * x])
    power = np.mean((gain * x) ** 2)
    y = y + rng.standard_normal(y.size) * np.sqrt(power / 10.0 ** (snr_db / 10.0))
    sr_out = sr_out or int(rng.choice([16000, 32000, 44100, 48000]))
    n_out = int(round(y.size * sr_out / sr))
    y = np.interp(np.arange(n_out) * (sr / sr_out), np.arange(y.size), y)
    return y, sr_out


_ADJ = "blue red silent golden broken electric lonely wild midnight burning neon velvet".split()
_NOUN = "river heart city dream fire road ocean night star mirror garden storm".split()
_FIRST = "Ana Ben Chloe Diego Emma Felix Grace Hugo Ines Jonas Kira Liam Mira Noah".split()
_LAST = "Reyes Novak Silva Berg Kato Moreau Okafor Lind Rossi Haas Costa Ivanova".split()


def synth_catalogue(rng: np.random.Generator, n_artists: int, n_tracks: int):
    artists = sorted({f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(4 * n_artists)})
    artists = [str(a) for a in rng.permutation(artists)[:n_artists]]
    tracks = set()
    while len(tracks) < n_tracks:
        words = [rng.choice(_ADJ), rng.choice(_NOUN)]
        if rng.random() < 0.3:
            words.append(rng.choice(_NOUN))
        tracks.add(" ".join(str(w) for w in words).title())
    tracks = sorted(tracks)
    return [(artists[i % n_artists], tr) for i, tr in enumerate(rng.permutation(tracks))]


def youtube_title(artist: str, track: str, rng: np.random.Generator) -> str:
    feat = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    styles = [
        f"{artist} - {track} (Official Video)",
        f"{track.upper()} | {artist} [Lyrics]",
        f"{artist} ft. {feat} - {track}",
        f"{artist.lower()} - {track.lower()}",
        f"{track} - {artist} (Official Audio)",
        f"{artist.upper()} - {track.upper()} [HD]",
    ]
    return styles[int(rng.integers(len(styles)))]


def text_pairs(rng: np.random.Generator, n_pairs: int):
    """(query, title, label) triples: half positives (a title of the query's track), half
    negatives (a title of another track, by the same artist when there is one)."""
    cat = synth_catalogue(rng, max(2, n_pairs // 5), n_pairs)
    by_artist: dict[str, list[int]] = {}
    for i, (a, _) in enumerate(cat):
        by_artist.setdefault(a, []).append(i)
    out = []
    for i in range(n_pairs):
        artist, track = cat[i]
        query = f"{artist} {track}"
        if i % 2 == 0:
            out.append((query, youtube_title(artist, track, rng), True))
        else:
            same = [j for j in by_artist[artist] if j != i]
            j = (
                int(rng.choice(same))
                if same and rng.random() < 0.5
                else int(rng.choice([j for j in range(len(cat)) if cat[j][0] != artist]))
            )
            out.append((query, youtube_title(*cat[j], rng), False))
    return out


def char_trigram_jaccard(a: str, b: str) -> float:
    def grams(s: str) -> set[str]:
        s = f"  {s.lower()} "
        return {s[i : i + 3] for i in range(len(s) - 2)}

    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb)
