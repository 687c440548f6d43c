"""Tabular toy language models with exactly known output distributions (for statistical tests).

SpecExec (https://arxiv.org/abs/2406.02532) claims the output distribution equals the target's
for any draft; a Markov chain target lets tests compare empirical frequencies of generated
sequences with the exact joint probabilities (:meth:`MarkovLM.joint_probs`).
"""

from __future__ import annotations

import itertools

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng
from .sampling import _warp_probs, check_sampling_args


class MarkovLM:
    """An order-``k`` Markov language model over ``V`` tokens, usable as target or draft.

    Calling it with ``int[B, T]`` prefixes returns ``float[B, V]`` next-token log-probabilities
    (the model-callable convention shared with spectr-decode; ``int[T] -> float[V]`` also works)
    that depend on the last ``k`` tokens (a shorter prefix is left-padded with token 0).

    Args:
        probs: (V,)*k + (V,) array of next-token probabilities, each last-axis row summing to 1.

    >>> lm = MarkovLM(np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> np.exp(lm([0, 1])).round(2).tolist()
    [0.2, 0.8]
    >>> lm.joint_probs([0], 2).round(3).tolist()
    [[0.81, 0.09], [0.02, 0.08]]
    """

    def __init__(self, probs):
        p = check_array(probs, "probs")
        if p.ndim < 2 or len(set(p.shape)) != 1:
            raise ValueError(f"probs must have shape (V,)*k + (V,) with k >= 1, got {p.shape}")
        if (p < 0).any():
            raise ValueError(f"probs must be non-negative, got minimum {p.min():.3g}")
        if not np.allclose(p.sum(-1), 1.0, atol=1e-8):
            raise ValueError("probs: every row must sum to 1")
        self.probs = p
        self.order = p.ndim - 1
        self.vocab_size = p.shape[-1]
        with np.errstate(divide="ignore"):
            self._logp = np.log(p)
        self.calls = 0

    @classmethod
    def random(cls, vocab_size: int, *, order: int = 1, concentration: float = 1.0, rng=0):
        """Rows drawn from a symmetric Dirichlet(``concentration``) (smaller = peakier);
        ``rng``: an int seed, a ``numpy.random.Generator`` or ``None``."""
        vocab_size = check_int(vocab_size, "vocab_size", minimum=2)
        order = check_int(order, "order", minimum=1)
        concentration = check_float(
            concentration, "concentration", minimum=0.0, min_inclusive=False
        )
        rng = check_rng(rng)
        shape = (vocab_size,) * order
        p = rng.dirichlet(np.full(vocab_size, concentration), size=shape)
        return cls(p)

    def perturbed(self, noise: float, *, rng=1) -> MarkovLM:
        """A draft-like model: ``(1 - noise) * self + noise * random`` (noise in [0, 1])."""
        noise = check_float(noise, "noise", minimum=0.0, maximum=1.0)
        other = MarkovLM.random(self.vocab_size, order=self.order, rng=rng).probs
        return MarkovLM((1.0 - noise) * self.probs + noise * other)

    def _context(self, prefix) -> tuple[int, ...]:
        last = [int(t) for t in np.asarray(prefix).reshape(-1)[-self.order :]]
        if any(t < 0 or t >= self.vocab_size for t in last):
            raise ValueError(f"prefix tokens must be in [0, {self.vocab_size})")
        return tuple([0] * (self.order - len(last)) + last)

    def __call__(self, prefixes) -> np.ndarray:
        """Next-token log-probabilities: ``int[B, T] -> float[B, V]`` (or ``int[T] -> float[V]``)."""
        self.calls += 1
        x = check_array(prefixes, "prefixes", ndim=(1, 2), dtype="int")
        if x.ndim == 2:
            return np.stack([self._logp[self._context(row)] for row in x])
        return self._logp[self._context(x)]

    def joint_probs(self, prefix, n_tokens: int, *, temperature=1.0, top_p=1.0) -> np.ndarray:
        """Exact (V,)*n_tokens probabilities of the next ``n_tokens`` tokens under the warped model."""
        temperature, top_p = check_sampling_args(temperature, top_p)
        n_tokens = check_int(n_tokens, "n_tokens", minimum=1)
        prefix = check_array(prefix, "prefix", ndim=1, dtype="int").tolist()
        self._context(prefix)  # range check
        v = self.vocab_size
        out = np.zeros((v,) * n_tokens)
        for seq in itertools.product(range(v), repeat=n_tokens):
            pr, ctx = 1.0, list(prefix)
            for t in seq:
                pr *= _warp_probs(self._logp[self._context(ctx)], temperature, top_p)[t]
                if pr == 0:
                    break
                ctx.append(t)
            out[seq] = pr
        return out
