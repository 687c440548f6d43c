"""Small data sets from scikit-learn's bundled files (no download): digits and natural-image
patches. Needs the ``data`` extra (scikit-learn, and pillow for the sample images)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch

from ._checks import check_bool, check_float, check_int, check_rng

__all__ = ["natural_patches", "sklearn_digits"]


def sklearn_digits(*, dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    """The 1797 8x8 digits of ``sklearn.datasets.load_digits`` as ``(x [1797, 64] in [0, 1],
    labels [1797])``."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = torch.as_tensor(d.data / 16.0, dtype=dtype)
    return x, torch.as_tensor(d.target, dtype=torch.int64)


@lru_cache(maxsize=1)
def _grey_images() -> tuple[np.ndarray, ...]:
    from sklearn.datasets import load_sample_images

    return tuple(img.astype(np.float64).mean(axis=2) / 255.0 for img in load_sample_images().images)


def natural_patches(
    *,
    size: int = 8,
    n: int = 10000,
    whiten: bool = True,
    eps: float = 1e-2,
    rng: Any = None,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """``n`` random ``size x size`` grey-level patches ``[n, size * size]`` of the two images of
    ``sklearn.datasets.load_sample_images`` (china, flower), each patch with its mean removed;
    ``whiten=True`` applies ZCA whitening (eigenvalues floored by ``eps`` times the largest) and
    rescales to unit average variance."""
    size = check_int(size, "size", minimum=2, maximum=64)
    n = check_int(n, "n", minimum=1)
    whiten = check_bool(whiten, "whiten")
    eps = check_float(eps, "eps", minimum=0.0, min_inclusive=False)
    gen = check_rng(rng)
    images = _grey_images()
    out = np.empty((n, size * size))
    which = gen.integers(0, len(images), size=n)
    for i, k in enumerate(which):
        img = images[k]
        r = gen.integers(0, img.shape[0] - size + 1)
        c = gen.integers(0, img.shape[1] - size + 1)
        p = img[r : r + size, c : c + size].ravel()
        out[i] = p - p.mean()
    if whiten:
        cov = out.T @ out / n
        lam, U = np.linalg.eigh(cov)
        lam = np.maximum(lam, eps * lam.max())
        out = out @ U @ np.diag(lam**-0.5) @ U.T
        out /= out.std()
    return torch.as_tensor(out, dtype=dtype)
