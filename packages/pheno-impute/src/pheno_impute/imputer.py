"""MPI (view-decoupled multi-modal phenotype imputation) as a scikit-learn transformer."""

from __future__ import annotations

import math

import numpy as np
import torch
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._checks import check_float, check_int, check_rng
from ._validation import check_binary_or_nan, check_modalities, check_table
from .quantize import ResidualQuantizer

__all__ = ["MPIImputer"]

_HIDE = 0.25  # fraction of observed phenotype entries hidden (and predicted) per training step
_HIDE_ROWS = 0.1  # fraction of patients whose phenotypes are all hidden per step
_FEATURE_HIDE = 0.2  # fraction of observed feature entries hidden per autoencoder step
_KD_BATCH = 512


class MPIImputer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Impute a patients x (phenotypes | biological features) table; NaN marks a missing entry.

    The first ``n_phenotypes`` columns (``None``: all) are binary phenotypes (0, 1 or NaN); the
    remaining columns are biological features, split into modalities by ``modalities`` (block
    sizes in column order, or a dict name -> size; ``None``: one modality).

    Model (MPI, Zhang et al., NeurIPS 2024), all of it inductive so that every row is imputed
    from itself and the fitted parameters only:

    * biological view: per modality, a masked autoencoder maps a patient's features (missing
      entries zero-filled, plus the missingness mask) to ``z`` in R^dim and reconstructs them;
      a ``ResidualQuantizer`` with ``rq_levels`` codebooks of ``codebook_size`` codes turns ``z``
      into discrete biological factors. Patients link to their codes (a patient lacking a
      modality has no links for it); a code node's embedding is the mean phenotype-view
      embedding of its training patients, and a patient's biological embedding the mean of its
      code nodes' embeddings (patient -> code -> patient propagation);
    * phenotype view: a LightGCN-style propagation on the patient-phenotype graph of observed
      positives: phenotype embeddings are smoothed ``gnn_layers - 1`` times over the
      normalised co-occurrence graph (mean of the layers) and a patient's embedding is the mean
      of its observed phenotypes' embeddings;
    * score ``s(p, j) = b_j + <a h_p^phe + c W h_p^bio, e_j>``, trained with binary cross-entropy
      on observed phenotype entries that are hidden from the input (masked training, so new
      patients are scored the same way), plus ``kd_weight`` times a cross-view contrastive
      (InfoNCE, temperature ``tau``) distillation term, the biological view as the
      stop-gradient teacher of the phenotype view.

    ``transform`` keeps observed entries, fills phenotype NaNs with probabilities in [0, 1] and
    feature NaNs with the autoencoder's reconstructions (column means for a modality the
    patient lacks entirely). A modality with fewer patients than ``codebook_size`` uses that
    many codes (``codebook_sizes_``).

    Parameters (keyword-only): ``dim`` embedding size; ``rq_levels``, ``codebook_size`` the
    quantizer; ``gnn_layers`` >= 1; ``kd_weight`` >= 0; ``tau`` > 0; ``epochs`` full-batch Adam
    steps per stage; ``lr`` > 0; ``random_state`` None, an int seed or a numpy Generator.

    Fitted attributes: ``n_phenotypes_``, ``modalities_`` (block sizes), ``quantizers_`` (one
    ``ResidualQuantizer`` per modality, ``None`` when it had no patients), ``codebook_sizes_``,
    ``phenotype_embeddings_`` (n_phenotypes, dim), ``phenotype_bias_``, ``code_embeddings_``
    (n_code_nodes, dim), ``loss_curve_`` (epochs,), ``n_features_in_``.
    """

    def __init__(
        self,
        *,
        n_phenotypes=None,
        modalities=None,
        dim=32,
        rq_levels=3,
        codebook_size=16,
        gnn_layers=2,
        kd_weight=0.1,
        tau=0.2,
        epochs=200,
        lr=1e-2,
        random_state=None,
    ):
        self.n_phenotypes = n_phenotypes
        self.modalities = modalities
        self.dim = dim
        self.rq_levels = rq_levels
        self.codebook_size = codebook_size
        self.gnn_layers = gnn_layers
        self.kd_weight = kd_weight
        self.tau = tau
        self.epochs = epochs
        self.lr = lr
        self.random_state = random_state

    # ------------------------------------------------------------------ sklearn plumbing
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _validate(self, X, *, reset: bool) -> np.ndarray:
        check_table(X, "X")
        return validate_data(
            self, X, reset=reset, ensure_all_finite="allow-nan", dtype=np.float64, copy=True
        )

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Fit the autoencoders, the residual quantizers and the two-view phenotype model."""
        X = self._validate(X, reset=True)
        n, p = X.shape
        m = p if self.n_phenotypes is None else check_int(self.n_phenotypes, "n_phenotypes")
        if not 0 <= m <= p:
            raise ValueError(f"n_phenotypes must be in [0, {p}] (the number of columns), got {m}")
        sizes = check_modalities(self.modalities, p - m)
        dim = check_int(self.dim, "dim", minimum=1)
        levels = check_int(self.rq_levels, "rq_levels", minimum=1)
        size = check_int(self.codebook_size, "codebook_size", minimum=1)
        layers = check_int(self.gnn_layers, "gnn_layers", minimum=1)
        kd_weight = check_float(self.kd_weight, "kd_weight", minimum=0.0)
        tau = check_float(self.tau, "tau", minimum=0.0, min_inclusive=False)
        epochs = check_int(self.epochs, "epochs", minimum=1)
        lr = check_float(self.lr, "lr", minimum=0.0, min_inclusive=False)
        rng = check_rng(self.random_state, "random_state")
        check_binary_or_nan(X[:, :m], "X (phenotype columns)")

        self.n_phenotypes_ = m
        self.modalities_ = sizes
        self._blocks = _blocks(m, sizes)
        gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        seed = int(rng.integers(2**62))

        # feature standardisation on observed entries
        feats = X[:, m:]
        obs = ~np.isnan(feats)
        cnt = obs.sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(cnt > 0, np.nansum(feats, 0) / np.maximum(cnt, 1), 0.0)
            var = np.where(cnt > 0, np.nansum((feats - mean) ** 2, 0) / np.maximum(cnt, 1), 1.0)
        scale = np.sqrt(var)
        scale[~(scale > 1e-12)] = 1.0
        self.feature_mean_, self.feature_scale_ = mean, scale

        # stage 1 + 2: per-modality autoencoder and residual quantizer
        self._autoencoders, self.quantizers_, self.codebook_sizes_ = [], [], []
        offsets, offset = [], 0
        for start, stop in self._blocks:
            xs, mask = self._standardised(X, start, stop)
            present = mask.any(1)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed + start)
                ae = _Autoencoder(stop - start, dim)
            if present.any():
                _train_autoencoder(ae, xs[present], mask[present], epochs, lr, gen)
                z = ae.encode_np(xs[present], mask[present])
                k = min(size, int(present.sum()))
                rq = ResidualQuantizer(levels=levels, codebook_size=k, random_state=rng).fit(z)
            else:
                rq, k = None, 0
            self._autoencoders.append(ae)
            self.quantizers_.append(rq)
            self.codebook_sizes_.append(k)
            offsets.append(offset)
            offset += levels * k
        self._code_offsets = offsets
        self.n_code_nodes_ = offset

        # stage 3: two-view phenotype model
        self.loss_curve_ = np.zeros(epochs)
        if m == 0:
            self.phenotype_embeddings_ = np.zeros((0, dim))
            self.phenotype_bias_ = np.zeros(0)
            self.code_embeddings_ = np.zeros((offset, dim))
            return self
        self._raw_dim = 2 * (p - m) if self._biology == "raw" else 0
        links = self._code_links(X)
        raw = self._raw_features(X)
        self._fit_phenotype_model(
            X[:, :m], links, raw, dim, layers, kd_weight, tau, epochs, lr, gen, seed
        )
        return self

    def _raw_features(self, X):
        """Raw-feature ablation input: per modality ``[x * mask, mask]`` (standardised, zero
        filled), concatenated, (n, 2 n_features); (n, 0) for the full model."""
        if self._biology != "raw":
            return np.zeros((X.shape[0], 0))
        parts = []
        for start, stop in self._blocks:
            xs, mask = self._standardised(X, start, stop)
            parts += [xs * mask, mask.astype(np.float64)]
        return np.hstack(parts) if parts else np.zeros((X.shape[0], 0))

    def _standardised(self, X, start, stop):
        m = self.n_phenotypes_
        block = X[:, start:stop]
        mask = ~np.isnan(block)
        xs = (block - self.feature_mean_[start - m : stop - m]) / self.feature_scale_[
            start - m : stop - m
        ]
        return np.where(mask, xs, 0.0), mask

    def _code_links(self, X) -> np.ndarray:
        """Patient x code-node incidence (n, n_code_nodes) in {0, 1}."""
        links = np.zeros((X.shape[0], self.n_code_nodes_))
        levels = check_int(self.rq_levels, "rq_levels", minimum=1)
        for b, (start, stop) in enumerate(self._blocks):
            rq = self.quantizers_[b]
            if rq is None:
                continue
            xs, mask = self._standardised(X, start, stop)
            present = np.flatnonzero(mask.any(1))
            if present.size == 0:
                continue
            z = self._autoencoders[b].encode_np(xs[present], mask[present])
            codes = rq.encode(z)
            k = self.codebook_sizes_[b]
            for level in range(levels):
                links[present, self._code_offsets[b] + level * k + codes[:, level]] = 1.0
        return links

    def _fit_phenotype_model(
        self, R, links, raw, dim, layers, kd_weight, tau, epochs, lr, gen, seed
    ):
        dt = torch.float64
        n, m = R.shape
        observed = torch.as_tensor(~np.isnan(R))
        labels = torch.as_tensor(np.nan_to_num(R, nan=0.0), dtype=dt)
        positives = observed & (labels > 0.5)
        B = torch.as_tensor(links, dtype=dt)
        F = torch.as_tensor(raw, dtype=dt)
        has_bio = B.sum(1) > 0
        # normalised co-occurrence propagation from the training graph (fixed)
        A = positives.to(dt)
        dp, dj = A.sum(1), A.sum(0)
        Ahat = A / torch.sqrt(dp.clamp(min=1))[:, None] / torch.sqrt(dj.clamp(min=1))[None, :]
        P = Ahat.T @ Ahat
        self._propagation = P.numpy()

        prev = (labels * observed).sum(0) / observed.sum(0).clamp(min=1)
        prev = prev.clamp(1e-3, 1 - 1e-3)  # initial value of the bias only
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed + 7919)
            net = _PhenotypeModel(m, dim, layers, torch.log(prev / (1 - prev)), self._raw_dim)
        opt = torch.optim.Adam(net.parameters(), lr=lr)
        code_count = B.sum(0).clamp(min=1)
        link_count = B.sum(1).clamp(min=1)
        kd_rows = torch.nonzero(has_bio).flatten()
        for epoch in range(epochs):
            hide = torch.rand((n, m), generator=gen, dtype=dt) < _HIDE
            hide |= (torch.rand(n, generator=gen, dtype=dt) < _HIDE_ROWS)[:, None]
            hide &= observed
            visible = (positives & ~hide).to(dt)
            E = net.propagated(P)
            h_phe = net.patient_phe(visible, E)
            if self._raw_dim:
                h_bio = net.raw_view(F, has_bio)
            else:
                codes_emb = (B.T @ h_phe) / code_count[:, None]
                h_bio = (B @ codes_emb) / link_count[:, None]
            logits = net.scores(h_phe, h_bio, E)
            target = hide.to(dt)
            bce = torch.nn.functional.binary_cross_entropy_with_logits(
                logits, labels, weight=target, reduction="sum"
            ) / target.sum().clamp(min=1)
            loss = bce
            if kd_weight > 0:
                rows = kd_rows[visible[kd_rows].sum(1) > 0]
                if rows.numel() > 1:
                    if rows.numel() > _KD_BATCH:
                        pick = torch.randperm(rows.numel(), generator=gen)[:_KD_BATCH]
                        rows = rows[pick]
                    loss = loss + kd_weight * net.distill(h_phe[rows], h_bio[rows].detach(), tau)
            opt.zero_grad()
            loss.backward()
            opt.step()
            self.loss_curve_[epoch] = float(loss.detach())

        net.eval()
        self._net = net
        with torch.no_grad():
            E = net.propagated(P)
            h_phe = net.patient_phe(positives.to(dt), E)
            self.code_embeddings_ = ((B.T @ h_phe) / code_count[:, None]).numpy()
            self.phenotype_embeddings_ = E.numpy()
            self.phenotype_bias_ = net.bias.detach().numpy().copy()

    # ------------------------------------------------------------------ inference
    def predict_phenotypes(self, X) -> np.ndarray:
        """Probability of every phenotype, (n, n_phenotypes), each row from its own observed
        entries (observed phenotypes are inputs; their own probabilities are returned too)."""
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        return self._proba(X)

    def _proba(self, X) -> np.ndarray:
        m = self.n_phenotypes_
        if m == 0:
            return np.zeros((X.shape[0], 0))
        dt = torch.float64
        R = X[:, :m]
        visible = torch.as_tensor(np.nan_to_num(R, nan=0.0) > 0.5, dtype=dt)
        B = torch.as_tensor(self._code_links(X), dtype=dt)
        with torch.no_grad():
            E = torch.as_tensor(self.phenotype_embeddings_)
            h_phe = self._net.patient_phe(visible, E)
            if self._raw_dim:
                F = torch.as_tensor(self._raw_features(X), dtype=dt)
                h_bio = self._net.raw_view(F, B.sum(1) > 0)
            else:
                C = torch.as_tensor(self.code_embeddings_)
                h_bio = (B @ C) / B.sum(1).clamp(min=1)[:, None]
            return torch.sigmoid(self._net.scores(h_phe, h_bio, E)).numpy()

    def transform(self, X):
        """Observed entries kept; phenotype NaNs -> probabilities, feature NaNs ->
        reconstructions."""
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        out = X.copy()
        m = self.n_phenotypes_
        if m:
            proba = self._proba(X)
            miss = np.isnan(X[:, :m])
            out[:, :m][miss] = proba[miss]
        for b, (start, stop) in enumerate(self._blocks):
            xs, mask = self._standardised(X, start, stop)
            recon = self._autoencoders[b].reconstruct_np(xs, mask)
            lo, hi = start - m, stop - m
            recon = recon * self.feature_scale_[lo:hi] + self.feature_mean_[lo:hi]
            absent = ~mask.any(1)
            recon[absent] = self.feature_mean_[lo:hi]
            block = out[:, start:stop]
            block[~mask] = recon[~mask]
        return out

    def encode(self, X) -> np.ndarray:
        """Biological factors: int (n, n_modalities, rq_levels) codes, -1 where the patient
        lacks the modality (all its features NaN) or the modality had no training patients."""
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        levels = check_int(self.rq_levels, "rq_levels", minimum=1)
        out = np.full((X.shape[0], len(self._blocks), levels), -1, dtype=np.int64)
        for b, (start, stop) in enumerate(self._blocks):
            rq = self.quantizers_[b]
            xs, mask = self._standardised(X, start, stop)
            present = np.flatnonzero(mask.any(1))
            if rq is None or present.size == 0:
                continue
            out[present, b] = rq.encode(self._autoencoders[b].encode_np(xs[present], mask[present]))
        return out

    def __sklearn_is_fitted__(self):
        return hasattr(self, "loss_curve_")

    _biology = "factors"  # "raw" in the ablation below


class _RawFeatureMPIImputer(MPIImputer):
    """Ablation (paper: "w/o RQ"), not public API: the biological view is a learned linear map
    of the raw standardised features and their missingness mask (zero for a patient without
    biology) instead of the residual-quantized factors and their code nodes. Everything else
    (autoencoders for feature filling, phenotype view, score, distillation) is unchanged."""

    _biology = "raw"


def _blocks(m, sizes):
    out, start = [], m
    for s in sizes:
        out.append((start, start + s))
        start += s
    return out


class _Autoencoder(torch.nn.Module):
    """Masked autoencoder of one modality: [x * mask, mask] -> z -> x."""

    def __init__(self, d_in, dim):
        super().__init__()
        hidden = max(2 * dim, 16)
        dt = torch.float64
        self.enc = torch.nn.Sequential(
            torch.nn.Linear(2 * d_in, hidden, dtype=dt),
            torch.nn.Tanh(),
            torch.nn.Linear(hidden, dim, dtype=dt),
        )
        self.dec = torch.nn.Sequential(
            torch.nn.Linear(dim, hidden, dtype=dt),
            torch.nn.Tanh(),
            torch.nn.Linear(hidden, d_in, dtype=dt),
        )

    def encode(self, x, mask):
        return self.enc(torch.cat([x * mask, mask], dim=1))

    def forward(self, x, mask):
        return self.dec(self.encode(x, mask))

    def encode_np(self, x, mask):
        with torch.no_grad():
            return self.encode(
                torch.as_tensor(x), torch.as_tensor(mask, dtype=torch.float64)
            ).numpy()

    def reconstruct_np(self, x, mask):
        with torch.no_grad():
            return self(torch.as_tensor(x), torch.as_tensor(mask, dtype=torch.float64)).numpy()


class _PhenotypeModel(torch.nn.Module):
    """Phenotype embeddings, LightGCN-style propagation, two-view scores, distillation heads."""

    def __init__(self, m, dim, layers, bias, raw_dim=0):
        super().__init__()
        dt = torch.float64
        self.layers = layers
        self.emb = torch.nn.Parameter(torch.randn(m, dim, dtype=dt) / math.sqrt(dim))
        self.bias = torch.nn.Parameter(bias.clone().to(dt))
        self.mix_phe = torch.nn.Parameter(torch.ones((), dtype=dt))
        self.mix_bio = torch.nn.Parameter(torch.ones((), dtype=dt))
        self.bio_map = torch.nn.Parameter(torch.eye(dim, dtype=dt))
        self.head_phe = torch.nn.Linear(dim, dim, dtype=dt)
        self.head_bio = torch.nn.Linear(dim, dim, dtype=dt)
        # raw-feature ablation only: a learned linear view of the raw features
        self.raw_proj = torch.nn.Linear(raw_dim, dim, dtype=dt) if raw_dim else None

    def raw_view(self, F, has_bio):
        return self.raw_proj(F) * has_bio.to(F.dtype)[:, None]

    def propagated(self, P):
        out, cur = self.emb, self.emb
        for _ in range(self.layers - 1):
            cur = P @ cur
            out = out + cur
        return out / self.layers

    @staticmethod
    def patient_phe(visible, E):
        return (visible @ E) / visible.sum(1).clamp(min=1)[:, None]

    def scores(self, h_phe, h_bio, E):
        h = self.mix_phe * h_phe + self.mix_bio * (h_bio @ self.bio_map)
        return h @ E.T + self.bias

    def distill(self, student, teacher, tau):
        q = torch.nn.functional.normalize(self.head_phe(student), dim=1)
        k = torch.nn.functional.normalize(self.head_bio(teacher), dim=1)
        logits = q @ k.T / tau
        return torch.nn.functional.cross_entropy(logits, torch.arange(q.shape[0]))


def _train_autoencoder(ae, xs, mask, epochs, lr, gen):

    x = torch.as_tensor(xs)
    obs = torch.as_tensor(mask, dtype=torch.float64)
    opt = torch.optim.Adam(ae.parameters(), lr=lr)
    for _ in range(epochs):
        hide = (torch.rand(obs.shape, generator=gen, dtype=torch.float64) < _FEATURE_HIDE) * obs
        vis = obs - hide
        err = (ae(x, vis) - x) ** 2
        loss = (err * hide).sum() / hide.sum().clamp(min=1) + (err * vis).sum() / vis.sum().clamp(
            min=1
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
    ae.eval()
