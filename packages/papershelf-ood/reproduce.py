"""Check that papershelf-ood computes OOD metrics and scores as OpenOOD v1.5, scikit-learn and
pytorch-ood do (DMLR 2024, arXiv 2306.09301), on synthetic score pairs with and without ties.

    python reproduce.py [--quick] [--full] [--json PATH]

There is no learning here: every claim is an equality (to 1e-12) with a reference library run
in the same process, or a documented difference between conventions.
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import Claim, reproduce_cli


def _pairs(n_cases, rng):
    for k in range(n_cases):
        n_id, n_ood = int(rng.integers(2, 3000)), int(rng.integers(2, 3000))
        s_id, s_ood = rng.normal(1.0, 1.0, n_id), rng.normal(0.0, 1.3, n_ood)
        if k % 2:  # half the cases with many ties
            s_id, s_ood = np.round(s_id, 1), np.round(s_ood, 1)
        yield s_id, s_ood


def _pairwise_auroc(s_id, s_ood):
    d = s_id[:, None] - s_ood[None, :]
    return float(((d > 0) + 0.5 * (d == 0)).mean())


def _missing(peer):
    return Claim.not_run(
        f"comparison with {peer}",
        paper="-",
        why=f"{peer} is not installed here; `nox -s reproduce` installs the bench group",
    )


def _agrees(text, err, tol, *, note):
    """A claim that ours agrees with a reference: max |difference| ``err`` within ``tol``."""
    return Claim(
        text,
        paper="exact" if tol == 0 else f"<= {tol:g}",
        measured=f"max |diff| {err:.1e}",
        holds=bool(err <= tol),
        note=note,
    )


def _max_abs(rows):
    return max(abs(a - b) for a, b in rows)


def claims(args):
    import papershelf_ood as po

    n_cases = 6 if args.quick else 60
    cases = list(_pairs(n_cases, np.random.default_rng(0)))
    labelled = [
        (s_id, s_ood, np.r_[np.ones(s_id.size), np.zeros(s_ood.size)], np.r_[s_id, s_ood])
        for s_id, s_ood in cases
    ]

    err = _max_abs((po.auroc(a, b), _pairwise_auroc(a, b)) for a, b in cases)
    yield _agrees(
        "auroc = P(ID score > OOD score) + P(tie)/2 (Mann-Whitney, all pairs)",
        err,
        1e-12,
        note=f"{n_cases} score pairs, half with ties",
    )

    try:
        from sklearn import metrics
    except ImportError:
        yield _missing("scikit-learn")
        return

    err = _max_abs(
        pair
        for s_id, s_ood, y, s in labelled
        for pair in [
            (po.auroc(s_id, s_ood), metrics.roc_auc_score(y, s)),
            (po.aupr_in(s_id, s_ood), metrics.average_precision_score(y, s)),
            (po.aupr_out(s_id, s_ood), metrics.average_precision_score(1 - y, -s)),
        ]
    )
    yield _agrees(
        "auroc, aupr_in, aupr_out equal scikit-learn (roc_auc_score, average_precision_score)",
        err,
        1e-12,
        note=f"{n_cases} score pairs, half with ties",
    )

    def openood_fpr(y_ood, outlier, level):  # OpenOOD v1.5 auc_and_fpr_recall
        fpr, tpr, _ = metrics.roc_curve(y_ood, outlier)
        return fpr[np.argmax(tpr >= level)]

    err = _max_abs(
        (po.fpr_at_tpr(s_id, s_ood, tpr=0.95), openood_fpr(1 - y, -s, 0.95))
        for s_id, s_ood, y, s in labelled
    )
    yield _agrees(
        'fpr_at_tpr(positive="ood") equals OpenOOD v1.5 FPR@95 (OOD positive on -score)',
        err,
        0.0,
        note="fpr[argmax(tpr >= 0.95)] on sklearn.metrics.roc_curve",
    )

    try:
        import torch
        from pytorch_ood.detector import EnergyBased, MaxLogit, MaxSoftmax
        from pytorch_ood.metrics import functional as F
    except ImportError:
        yield _missing("pytorch-ood")
        return

    def labels(s_id, s_ood):  # pytorch-ood: labels < 0 are OOD, scores are outlier scores
        return torch.tensor(np.r_[np.zeros(s_id.size), -np.ones(s_ood.size)], dtype=torch.long)

    rows = []
    aupr_gap = []
    for s_id, s_ood, _, s in labelled:
        outlier, lab = torch.tensor(-s), labels(s_id, s_ood)
        rows.append((po.auroc(s_id, s_ood), float(F.auroc(outlier, lab))))
        rows.append((po.fpr_at_tpr(s_id, s_ood), float(F.fpr_at_tpr(outlier, lab, 0.95))))
        aupr_gap.append(abs(po.aupr_in(s_id, s_ood) - float(F.aupr(outlier, lab, positive="id"))))
        aupr_gap.append(abs(po.aupr_out(s_id, s_ood) - float(F.aupr(outlier, lab, "ood"))))
    err = _max_abs(rows)
    yield _agrees(
        "auroc and fpr_at_tpr equal pytorch-ood's on outlier score = -score",
        err,
        1e-12,
        note="pytorch_ood.metrics.functional.auroc / fpr_at_tpr, labels < 0 = OOD",
    )
    yield Claim.reported(
        "AUPR convention: ours = average precision; pytorch-ood/OpenOOD = trapezoid auc(R, P)",
        paper="differ",
        measured=f"max |diff| {max(aupr_gap):.1e}, mean {np.mean(aupr_gap):.1e}",
        note="a difference of conventions, not an error; both are in use",
    )

    rng = np.random.default_rng(1)
    L = rng.normal(size=(500 if args.quick else 20000, 10)) * 4
    t = torch.tensor(L)
    err = max(
        np.abs(po.msp(L, temperature=2.0) + MaxSoftmax.score(t, 2.0).numpy()).max(),
        np.abs(po.energy(L, temperature=2.0) + EnergyBased.score(t, 2.0).numpy()).max(),
        np.abs(po.max_logit(L) + MaxLogit.score(t).numpy()).max(),
    )
    yield _agrees(
        "msp, energy, max_logit = minus pytorch-ood's MaxSoftmax, EnergyBased, MaxLogit scores",
        err,
        1e-12,
        note=f"{L.shape[0]} x 10 float64 logits, temperature 2",
    )


main = reproduce_cli(claims)
