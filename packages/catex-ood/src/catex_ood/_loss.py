"""CATEX's training loss on normalised image features and text features."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional as F

from ._checks import check_float, check_tensor, describe


def _pair_ce(pos: torch.Tensor, neg: torch.Tensor) -> torch.Tensor:
    """Cross-entropy over the pair (pos, neg) with target pos."""
    return F.cross_entropy(
        torch.stack([pos, neg], dim=1), torch.zeros(len(pos), dtype=torch.long, device=pos.device)
    )


def catex_loss(
    img_feats: torch.Tensor,
    labels: torch.Tensor,
    T: torch.Tensor,
    T_sp: torch.Tensor,
    *,
    outliers: torch.Tensor | None = None,
    outlier_labels: torch.Tensor | None = None,
    logit_scale: float = 100.0,
    weights: tuple[float, float, float, float, float] = (2.0, 0.5, 1.0, 1.0, 0.1),
) -> torch.Tensor:
    """The CATEX loss (the original ``calc_loss`` with the paper's options), features L2-normalised:

    (a) ``w0 * CE`` over the 2C logits ``[s, s~]`` with the true class's spurious logit set to -10;
    (b) ``w1 * CE`` of outliers over ``[s~, s]`` with their own perceptual logit set to -10;
    (c) ``w2 *`` pair CE (s_y vs s~_y, target perceptual) for ID images and ``w3 *`` pair CE
    (s~_c vs s_c, target spurious) for outliers; (d) with N_s > 1, ``w4 *`` the mean of each
    class's spurious-similarity matrix with the diagonal zeroed (orthogonality).
    ``T_sp`` [C, d] or [C, N_s, d]; with N_s > 1 a class's spurious logit is the max over N_s.
    Logits are cosines times ``logit_scale``. With ``outliers=None``, (b) and the outlier half
    of (c) are left out (an empty ``outliers`` is refused: pass None).
    """
    check_tensor(img_feats, "img_feats", ndim=2)
    check_tensor(labels, "labels", ndim=1, dtype="integer")
    check_tensor(T, "T", ndim=2)
    check_tensor(T_sp, "T_sp", ndim=(2, 3))
    logit_scale = check_float(logit_scale, "logit_scale", minimum=0.0, min_inclusive=False)
    if not isinstance(weights, tuple | list) or len(weights) != 5:
        raise TypeError(f"weights must be a tuple of 5 numbers, got {describe(weights)}")
    w = [check_float(x, f"weights[{i}]", minimum=0.0) for i, x in enumerate(weights)]
    C, d = T.shape
    if img_feats.shape[1] != d:
        raise ValueError(f"img_feats must have {d} columns to match T, got {img_feats.shape[1]}")
    if labels.shape[0] != img_feats.shape[0]:
        raise ValueError(f"labels has {labels.shape[0]} entries, img_feats {img_feats.shape[0]}")
    if T_sp.shape[0] != C or T_sp.shape[-1] != d:
        raise ValueError(
            f"T_sp must have shape ({C}, {d}) or ({C}, N_s, {d}), got {tuple(T_sp.shape)}"
        )
    if len(labels) and (int(labels.min()) < 0 or int(labels.max()) >= C):
        raise ValueError(f"labels must be in [0, {C - 1}]")
    sp3 = T_sp if T_sp.ndim == 3 else T_sp.unsqueeze(1)
    x = F.normalize(img_feats, dim=1)
    Tn, Sn = F.normalize(T, dim=-1), F.normalize(sp3, dim=-1)

    def logits(f: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s = f @ Tn.T
        s_sp = torch.einsum("nd,cjd->ncj", f, Sn).amax(dim=2)
        return logit_scale * s, logit_scale * s_sp

    n = len(labels)
    s, s_sp = logits(x)
    rows = torch.arange(n, device=x.device)
    masked = s_sp.clone()
    masked[rows, labels] = -10.0
    loss = w[0] * F.cross_entropy(torch.cat([s, masked], dim=1), labels)
    loss = loss + w[2] * _pair_ce(s[rows, labels], s_sp[rows, labels])
    if outliers is None and outlier_labels is not None:
        raise ValueError("outlier_labels given without outliers")
    if outliers is not None:
        check_tensor(outliers, "outliers", ndim=2, shape=(None, d))
        check_tensor(outlier_labels, "outlier_labels", ndim=1, dtype="integer")
        if outlier_labels.shape[0] != outliers.shape[0]:
            raise ValueError(
                f"outlier_labels has {outlier_labels.shape[0]} entries but outliers has "
                f"{outliers.shape[0]} rows"
            )
        if int(outlier_labels.min()) < 0 or int(outlier_labels.max()) >= C:
            raise ValueError(f"outlier_labels must be in [0, {C - 1}]")
        o = F.normalize(outliers, dim=1)
        ol = outlier_labels.to(o.device)
        so, so_sp = logits(o)
        r = torch.arange(len(ol), device=o.device)
        masked_o = so.clone()
        masked_o[r, ol] = -10.0
        loss = loss + w[1] * F.cross_entropy(torch.cat([so_sp, masked_o], dim=1), ol)
        loss = loss + w[3] * _pair_ce(so_sp[r, ol], so[r, ol])
    if Sn.shape[1] > 1 and w[4]:
        loss = loss + w[4] * spurious_orthogonality(Sn)
    return loss


def spurious_orthogonality(T_sp: Any) -> torch.Tensor:
    """Mean of each class's [N_s, N_s] spurious cosine matrix with its diagonal zeroed (the
    original's orthogonality term); ``T_sp`` [C, N_s, d]."""
    check_tensor(T_sp, "T_sp", ndim=3)
    Sn = F.normalize(T_sp, dim=-1)
    m = Sn @ Sn.transpose(1, 2)
    eye = torch.eye(m.shape[-1], dtype=torch.bool, device=m.device)
    return m.masked_fill(eye, 0.0).mean()
