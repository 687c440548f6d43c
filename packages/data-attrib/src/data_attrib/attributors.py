"""Attributors: influence functions (explicit, CG, LiSSA, Arnoldi), TracIn and TRAK.

Every attributor takes an :class:`~data_attrib.AttributionTask` and has

* ``cache(train_loader)``: the training set the method conditions on (the Hessian of IF, the
  kernel of TRAK); ``attribute`` caches its own ``train_loader`` (with a warning) if this was
  not called;
* ``attribute(train_loader, test_loader)``: a ``torch.Tensor`` ``[n_train, n_test]``;
* ``self_attribute(train_loader)``: its diagonal, ``[n_train]``, each example against itself.

Sign convention (all methods): **positive = helpful**, i.e. removing (down-weighting) the
training example is predicted to *raise* the test loss. For influence functions the score is
``g_testᵀ (H + λI)⁻¹ g_i``; ``score / n`` is the first-order prediction of the test-loss
increase when example ``i`` is left out of a training set of ``n`` examples.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
from torch.func import grad, vjp, vmap

from ._checks import (
    check_bool,
    check_float,
    check_generator,
    check_int,
    describe,
)
from ._validation import as_batches, to_numpy_array
from .task import AttributionTask

__all__ = ["IFArnoldi", "IFCG", "IFExplicit", "IFLiSSA", "TRAK", "TracIn"]


class _Attributor:
    """Shared plumbing: loaders, checkpoints, per-example gradients, averaging."""

    _needs_cache = True

    def __init__(self, task: AttributionTask) -> None:
        if not isinstance(task, AttributionTask):
            raise TypeError(f"task must be an AttributionTask, got {describe(task)}")
        self.task = task
        self._cache_batches: list[tuple] | None = None
        self._n_cached = 0

    # -- plumbing ----------------------------------------------------------------------------
    def _device(self) -> torch.device:
        return next(self.task.model.parameters()).device

    def _batches(self, loader: Any, name: str) -> list[tuple]:
        dev = self._device()
        out = [tuple(t.to(dev) for t in b) for b in as_batches(loader, name)]
        if self._cache_batches is not None and len(out[0]) != len(self._cache_batches[0]):
            raise ValueError(
                f"{name} yields batches of {len(out[0])} items but the cached loader yields "
                f"{len(self._cache_batches[0])}"
            )
        return out

    def _state(self, k: int) -> tuple[dict, torch.Tensor]:
        full = self.task.params(k)
        theta = torch.cat([full[n].reshape(-1) for n in self.task.param_names])
        return full, theta

    def _grads(self, k: int, batch: tuple, state=None) -> tuple[torch.Tensor, torch.Tensor]:
        full, theta = state if state is not None else self._state(k)
        return self.task._grads_and_losses(full, theta, batch)

    def _all_grads(self, k: int, batches: list[tuple]) -> tuple[torch.Tensor, torch.Tensor]:
        state = self._state(k)
        gl = [self._grads(k, b, state) for b in batches]
        return torch.cat([g for g, _ in gl]), torch.cat([lo for _, lo in gl])

    def _ensure_cache(self, batches: list[tuple]) -> None:
        if self._cache_batches is None and self._needs_cache:
            warnings.warn(
                f"{type(self).__name__}.cache() was not called: caching the train_loader "
                "given to attribute() as the full training set",
                UserWarning,
                stacklevel=3,
            )
            self._cache_from(batches)

    def _cache_from(self, batches: list[tuple]) -> None:
        self._cache_batches = batches
        self._n_cached = sum(b[0].shape[0] for b in batches)
        self._prepare()

    def _prepare(self) -> None:  # per-method precomputation
        pass

    # -- public API --------------------------------------------------------------------------
    def cache(self, train_loader: Any) -> None:
        """Condition on the full training set ``train_loader`` (Hessian, kernel, projections)."""
        self._cache_batches = None
        self._cache_from(self._batches(train_loader, "train_loader"))

    def attribute(self, train_loader: Any, test_loader: Any) -> torch.Tensor:
        """Scores ``[n_train, n_test]``; positive = the training example helps the test loss."""
        train = self._batches(train_loader, "train_loader")
        test = self._batches(test_loader, "test_loader")
        self._ensure_cache(train)
        return self._scores(train, test)

    def self_attribute(self, train_loader: Any) -> torch.Tensor:
        """Self-influence ``[n_train]``: each training example scored against itself."""
        train = self._batches(train_loader, "train_loader")
        self._ensure_cache(train)
        return self._self_scores(train)

    def _scores(self, train: list[tuple], test: list[tuple]) -> torch.Tensor:
        raise NotImplementedError

    def _self_scores(self, train: list[tuple]) -> torch.Tensor:
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# Influence functions
# ---------------------------------------------------------------------------------------------
class _InfluenceFunction(_Attributor):
    """IF = g_testᵀ (H + λI)⁻¹ g_i with H the mean loss Hessian of the cached set, averaged over
    checkpoints. Subclasses supply the inverse-Hessian-vector product ``_ihvp(k, V)``."""

    def __init__(self, task: AttributionTask, *, regularization: float = 0.0) -> None:
        super().__init__(task)
        self.regularization = check_float(regularization, "regularization", minimum=0.0)

    # mean Hessian-vector products over the cached set ------------------------------------------
    def _sum_loss(self, full: dict, batch: tuple):
        return lambda th: self.task._batch_losses(full, th, batch).sum()

    def _hvp_fns(self, k: int, batches: list[tuple] | None = None) -> tuple[list, torch.Tensor]:
        full, theta = self._state(k)
        fns = []
        for b in batches if batches is not None else self._cache_batches:
            _, fn = vjp(grad(self._sum_loss(full, b)), theta)
            fns.append(fn)
        return fns, theta

    def _mean_hvp(self, fns: list, n: int, V: torch.Tensor) -> torch.Tensor:
        """``(H + λI) V`` for the rows of ``V`` (H: mean of the per-example Hessians)."""
        out = torch.zeros_like(V)
        for fn in fns:
            out = out + vmap(lambda v, fn=fn: fn(v)[0])(V)
        return out / n + self.regularization * V

    def _scores(self, train, test):
        total = None
        for k in range(self.task.n_checkpoints):
            state = self._state(k)
            g_test = torch.cat([self._grads(k, b, state)[0] for b in test])
            t = self._ihvp(k, g_test)  # [m, p]
            s = torch.cat([self._grads(k, b, state)[0] @ t.T for b in train])
            total = s if total is None else total + s
        return total / self.task.n_checkpoints

    def _self_scores(self, train):
        total = None
        for k in range(self.task.n_checkpoints):
            state = self._state(k)
            parts = []
            for b in train:
                g = self._grads(k, b, state)[0]
                parts.append((g * self._ihvp(k, g)).sum(dim=1))
            s = torch.cat(parts)
            total = s if total is None else total + s
        return total / self.task.n_checkpoints

    def _ihvp(self, k: int, V: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class IFExplicit(_InfluenceFunction):
    """Influence functions with the Hessian formed and inverted explicitly (small models).

    ``H`` is the mean Hessian of the per-example losses over the cached set; the LU factorisation of
    ``H + regularization * I`` is computed once per checkpoint in :meth:`cache`
    (``n_params²`` memory). A singular matrix raises ``ValueError`` (raise ``regularization``).
    """

    def _prepare(self) -> None:
        self._inv = []
        for k in range(self.task.n_checkpoints):
            h = self.hessian(k)
            h = 0.5 * (h + h.T)
            h = h + self.regularization * torch.eye(h.shape[0], dtype=h.dtype, device=h.device)
            lu, piv, info = torch.linalg.lu_factor_ex(h)  # one LU; solves at attribute time
            if int(info) != 0:
                raise ValueError(
                    f"regularization={self.regularization}: H + regularization*I is singular; "
                    "use regularization > 0"
                )
            self._inv.append((lu, piv))

    def hessian(self, checkpoint: int = 0) -> torch.Tensor:
        """The mean loss Hessian ``[n_params, n_params]`` of the cached set (no regularization)."""
        if self._cache_batches is None:
            raise RuntimeError("call cache(train_loader) before hessian()")
        k = check_int(checkpoint, "checkpoint", minimum=0, maximum=self.task.n_checkpoints - 1)
        full, theta = self._state(k)
        h = None
        for b in self._cache_batches:
            hb = torch.func.hessian(self._sum_loss(full, b))(theta).detach()
            h = hb if h is None else h + hb
        return h / self._n_cached

    def _ihvp(self, k, V):
        lu, piv = self._inv[k]
        return torch.linalg.lu_solve(lu, piv, V.T).T


class IFCG(_InfluenceFunction):
    """Influence functions with the IHVP by conjugate gradient on ``(H + λI) x = g_test``.

    Hessian-vector products only (no ``n_params²`` matrix). The iteration starts from
    ``x0 = g_test`` (as dattri does) and runs ``max_iter`` steps, stopping early for a vector
    whose residual norm falls below ``tol``.
    """

    def __init__(
        self,
        task: AttributionTask,
        *,
        regularization: float = 0.0,
        max_iter: int = 10,
        tol: float = 1e-7,
    ) -> None:
        super().__init__(task, regularization=regularization)
        self.max_iter = check_int(max_iter, "max_iter", minimum=1)
        self.tol = check_float(tol, "tol", minimum=0.0)

    def _ihvp(self, k, V):
        fns, _ = self._hvp_fns(k)

        def A(M):
            return self._mean_hvp(fns, self._n_cached, M)

        x = V.clone()
        r = V - A(x)
        d = r.clone()
        rs = (r * r).sum(dim=1)
        for _ in range(self.max_iter):
            active = rs.sqrt() >= self.tol
            if not bool(active.any()):
                break
            ad = A(d)
            dad = (d * ad).sum(dim=1)
            ok = active & (dad != 0)
            alpha = torch.where(ok, rs / torch.where(ok, dad, torch.ones_like(dad)), 0.0)
            x = x + alpha[:, None] * d
            r = r - alpha[:, None] * ad
            rs_new = (r * r).sum(dim=1)
            beta = torch.where(ok, rs_new / torch.where(ok, rs, torch.ones_like(rs)), 0.0)
            d = r + beta[:, None] * d
            rs = torch.where(ok, rs_new, rs)
            if not bool(ok.any()):
                break
        return x.detach()


class IFLiSSA(_InfluenceFunction):
    """Influence functions with the LiSSA stochastic IHVP (Agarwal et al.).

    ``x_0 = v``, ``x_t = v + x_{t-1} - (H_t + λI) x_{t-1} / scale`` for ``depth`` steps, with
    ``H_t`` the mean Hessian of ``batch_size`` cached examples drawn without replacement
    (``batch_size >= n``: the full cached set, deterministic); the estimate is ``x_T / scale``.
    It converges when ``scale`` exceeds the largest eigenvalue of ``H + λI``.
    """

    def __init__(
        self,
        task: AttributionTask,
        *,
        regularization: float = 0.0,
        depth: int = 5000,
        scale: float = 50.0,
        batch_size: int = 1,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(task, regularization=regularization)
        self.depth = check_int(depth, "depth", minimum=1)
        self.scale = check_float(scale, "scale", minimum=0.0, min_inclusive=False)
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self.generator = check_generator(generator, "generator")

    def _prepare(self) -> None:
        width = len(self._cache_batches[0])
        self._stacked = tuple(torch.cat([b[j] for b in self._cache_batches]) for j in range(width))

    def _ihvp(self, k, V):
        n = self._n_cached
        full_set = self.batch_size >= n
        if full_set:
            fns, _ = self._hvp_fns(k)
        else:
            full, theta = self._state(k)
        x = V.clone()
        for _ in range(self.depth):
            if full_set:
                hx = self._mean_hvp(fns, n, x)
            else:
                idx = torch.randperm(n, generator=self.generator)[: self.batch_size]
                sub = tuple(t[idx.to(t.device)] for t in self._stacked)
                _, fn = vjp(grad(self._sum_loss(full, sub)), theta)
                hx = self._mean_hvp([fn], self.batch_size, x)
            x = (V + x - hx / self.scale).detach()
        return x / self.scale


class IFArnoldi(_InfluenceFunction):
    """Influence functions with the Arnoldi IHVP (Schioppa et al.): ``max_iter`` Arnoldi steps
    on the mean Hessian from a random start (drawn with ``generator``) give Ritz pairs; the
    ``k`` of largest magnitude span the subspace, ``(H + λI)⁻¹ ≈ U diag(1/(μ + λ)) Uᵀ``.

    ``max_iter`` and ``k`` are capped at ``n_params``; with ``k = max_iter = n_params`` it is
    exact (up to rounding).
    """

    def __init__(
        self,
        task: AttributionTask,
        *,
        regularization: float = 0.0,
        k: int = 100,
        max_iter: int = 100,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(task, regularization=regularization)
        self.k = check_int(k, "k", minimum=1)
        self.max_iter = check_int(max_iter, "max_iter", minimum=1)
        self.generator = check_generator(generator, "generator")

    def _prepare(self) -> None:
        self._basis = []
        for c in range(self.task.n_checkpoints):
            fns, theta = self._hvp_fns(c)
            p = theta.numel()
            steps = min(self.max_iter, p)
            dtype = theta.dtype

            def H(v, fns=fns):
                return (sum(fn(v)[0] for fn in fns) / self._n_cached).detach()

            q0 = torch.randn(p, generator=self.generator, dtype=dtype).to(theta.device)
            Q = [q0 / q0.norm()]
            T = torch.zeros(steps + 1, steps, dtype=torch.float64)
            m = steps
            for j in range(steps):
                w = H(Q[j])
                for _ in range(2):  # full re-orthogonalisation, twice
                    Qm = torch.stack(Q)
                    coef = Qm @ w
                    w = w - coef @ Qm
                    T[: j + 1, j] += coef.double().cpu()
                beta = w.norm()
                T[j + 1, j] = float(beta)
                if float(beta) <= 1e3 * torch.finfo(dtype).eps * float(T[: j + 1, j].abs().max()):
                    m = j + 1
                    break
                Q.append(w / beta)
            Tm = T[:m, :m]
            Tm = 0.5 * (Tm + Tm.T)
            mu, y = torch.linalg.eigh(Tm)
            keep = torch.argsort(mu.abs(), descending=True)[: min(self.k, m)]
            mu = mu[keep].to(dtype)
            U = torch.stack(Q[:m]).T @ y[:, keep].to(dtype=dtype, device=theta.device)
            denom = mu + self.regularization
            if bool((denom == 0).any()):
                raise ValueError(
                    "regularization: a kept eigenvalue plus regularization is 0; "
                    "use regularization > 0"
                )
            self._basis.append((U, denom.to(theta.device)))

    def _ihvp(self, k, V):
        U, denom = self._basis[k]
        return ((V @ U) / denom) @ U.T


# ---------------------------------------------------------------------------------------------
# TracIn
# ---------------------------------------------------------------------------------------------
class TracIn(_Attributor):
    """TracInCP: ``Σ_k w_k ⟨g_i(θ_k), g_test(θ_k)⟩`` over the task's checkpoints.

    ``weights``: one per checkpoint (learning rates), default all ones. ``normalize=True``:
    cosine similarity of the gradients at each checkpoint (Grad-Cos). ``cache`` is accepted for
    the common API and records nothing the scores depend on.
    """

    _needs_cache = False

    def __init__(
        self, task: AttributionTask, *, weights: Any = None, normalize: bool = False
    ) -> None:
        super().__init__(task)
        K = task.n_checkpoints
        if weights is None:
            w = [1.0] * K
        else:
            arr = to_numpy_array(weights, "weights", ndim=1)
            if arr.shape[0] != K:
                raise ValueError(
                    f"weights must have one entry per checkpoint ({K}), got {arr.shape[0]}"
                )
            w = [float(v) for v in arr]
        self.weights = tuple(w)
        self.normalize = check_bool(normalize, "normalize")

    def _prep(self, g: torch.Tensor) -> torch.Tensor:
        if self.normalize:
            return torch.nn.functional.normalize(g, dim=1, eps=1e-12)
        return g

    def _scores(self, train, test):
        total = None
        for k, w in enumerate(self.weights):
            state = self._state(k)
            g_test = self._prep(torch.cat([self._grads(k, b, state)[0] for b in test]))
            s = torch.cat([self._prep(self._grads(k, b, state)[0]) @ g_test.T for b in train])
            total = w * s if total is None else total + w * s
        return total

    def _self_scores(self, train):
        total = None
        for k, w in enumerate(self.weights):
            state = self._state(k)
            s = torch.cat(
                [self._prep(self._grads(k, b, state)[0]).pow(2).sum(dim=1) for b in train]
            )
            total = w * s if total is None else total + w * s
        return total


# ---------------------------------------------------------------------------------------------
# TRAK
# ---------------------------------------------------------------------------------------------
_BLOCK = 1 << 16  # projection rows generated at a time
_MAX_STORED = 1 << 26  # store the projection up to 64M entries, else regenerate per batch


class TRAK(_Attributor):
    """TRAK (Park et al.) for a cross-entropy ``loss_func``: with ``p = exp(-ℓ)`` the
    probability of the correct class, the margin is ``m = log p - log(1 - p)
    = -ℓ - log(1 - e^{-ℓ})`` and ``φ = Pᵀ ∇m`` (``P`` a Gaussian Johnson-Lindenstrauss
    projection with ``N(0, 1/proj_dim)`` entries, drawn with ``generator``, one per checkpoint;
    ``proj_dim=None``: no projection). With ``Φ`` the features of the cached set,

        score(i, test) = φ_testᵀ (ΦᵀΦ + λI)⁻¹ φ_i · (1 - p_i),

    the kernel part averaged over checkpoints and multiplied by ``1 - p_i`` averaged over
    checkpoints (dattri's ensembling; the same as the plain formula for one checkpoint).
    With ``regularization=0`` a singular ``ΦᵀΦ`` is pseudo-inverted. The projection is kept
    in memory up to 64M entries; beyond that it is regenerated block by block from per-block
    seeds for every batch (memory bounded, same numbers, slower).
    """

    def __init__(
        self,
        task: AttributionTask,
        *,
        proj_dim: int | None = 2048,
        regularization: float = 0.0,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__(task)
        self.proj_dim = None if proj_dim is None else check_int(proj_dim, "proj_dim", minimum=1)
        self.regularization = check_float(regularization, "regularization", minimum=0.0)
        self.generator = check_generator(generator, "generator")
        self._proj: list[torch.Tensor | None] | None = None

    def _block(self, k: int, b: int, rows: int, like: torch.Tensor) -> torch.Tensor:
        """Rows ``[b * _BLOCK, b * _BLOCK + rows)`` of checkpoint ``k``'s projection, from a
        per-block seed (the same whether the matrix is stored or regenerated)."""
        g = torch.Generator().manual_seed(self._seeds[k] + b)
        blk = torch.randn(rows, self.proj_dim, generator=g, dtype=like.dtype)
        return (blk / self.proj_dim**0.5).to(like.device)

    def _projection(self, k: int, theta: torch.Tensor) -> torch.Tensor | None:
        """Checkpoint ``k``'s projection matrix ``[n_params, proj_dim]`` when it fits in
        ``_MAX_STORED`` entries, else ``None`` (then blocks are regenerated per batch)."""
        if self.proj_dim is None:
            return None
        if self._proj is None:
            self._proj = [None] * self.task.n_checkpoints
            self._seeds = [
                int(torch.randint(0, 2**62, (1,), generator=self.generator))
                for _ in range(self.task.n_checkpoints)
            ]
        p = theta.numel()
        if self._proj[k] is None and p * self.proj_dim <= _MAX_STORED:
            self._proj[k] = torch.cat(
                [
                    self._block(k, b, min(_BLOCK, p - s), theta)
                    for b, s in enumerate(range(0, p, _BLOCK))
                ]
            )
        return self._proj[k]

    def _project(self, k: int, g: torch.Tensor, P: torch.Tensor | None) -> torch.Tensor:
        if self.proj_dim is None:
            return g
        if P is not None:
            return g @ P
        p = g.shape[1]
        out = torch.zeros(g.shape[0], self.proj_dim, dtype=g.dtype, device=g.device)
        for b, s in enumerate(range(0, p, _BLOCK)):
            rows = min(_BLOCK, p - s)
            out += g[:, s : s + rows] @ self._block(k, b, rows, g)
        return out

    def _features(self, k: int, batches: list[tuple]) -> tuple[torch.Tensor, torch.Tensor]:
        """``(φ [n, d], 1 - p [n])`` at checkpoint ``k``."""
        state = self._state(k)
        P = self._projection(k, state[1])
        feats, q = [], []
        for b in batches:
            g, loss = self._grads(k, b, state)
            if bool((loss < 0).any()):
                raise ValueError(
                    "loss_func: TRAK needs a cross-entropy loss (-log p >= 0), got a negative loss"
                )
            one_minus_p = -torch.expm1(-loss)
            phi = -g / one_minus_p.clamp_min(torch.finfo(loss.dtype).tiny)[:, None]
            feats.append(self._project(k, phi, P))
            q.append(one_minus_p)
        return torch.cat(feats), torch.cat(q)

    def _prepare(self) -> None:
        # (ΦᵀΦ + λI)⁻¹ from the thin SVD Φ = U S Vᵀ: V diag(1/(s² + λ)) Vᵀ + (I - VVᵀ)/λ
        # (the second term only for λ > 0; λ = 0 is the pseudo-inverse). Costs O(n d min(n, d))
        # instead of a d x d inverse when proj_dim exceeds the cached set.
        self._kinv = []
        for k in range(self.task.n_checkpoints):
            phi, _ = self._features(k, self._cache_batches)
            _, sv, vh = torch.linalg.svd(phi, full_matrices=False)
            if self.regularization == 0:
                tol = float(sv.max()) * max(phi.shape) * torch.finfo(phi.dtype).eps
                keep = sv > tol
                sv, vh = sv[keep], vh[keep]
            self._kinv.append((vh.T, 1.0 / (sv**2 + self.regularization)))

    def _kernel(self, k: int, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """``a (ΦᵀΦ + λI)⁻¹ bᵀ`` for feature rows ``a`` and ``b``."""
        V, w = self._kinv[k]
        av, bv = a @ V, b @ V
        out = (av * w) @ bv.T
        if self.regularization > 0:
            out = out + (a @ b.T - av @ bv.T) / self.regularization
        return out

    def _kernel_diag(self, k: int, a: torch.Tensor) -> torch.Tensor:
        V, w = self._kinv[k]
        av = a @ V
        out = (av * av * w).sum(dim=1)
        if self.regularization > 0:
            out = out + ((a * a).sum(dim=1) - (av * av).sum(dim=1)) / self.regularization
        return out

    def _scores(self, train, test):
        kern_sum, q_sum = None, None
        for k in range(self.task.n_checkpoints):
            phi_tr, q = self._features(k, train)
            phi_te, _ = self._features(k, test)
            s = self._kernel(k, phi_tr, phi_te)
            kern_sum = s if kern_sum is None else kern_sum + s
            q_sum = q if q_sum is None else q_sum + q
        K = self.task.n_checkpoints
        return (kern_sum / K) * (q_sum / K)[:, None]

    def _self_scores(self, train):
        kern_sum, q_sum = None, None
        for k in range(self.task.n_checkpoints):
            phi, q = self._features(k, train)
            s = self._kernel_diag(k, phi)
            kern_sum = s if kern_sum is None else kern_sum + s
            q_sum = q if q_sum is None else q_sum + q
        K = self.task.n_checkpoints
        return (kern_sum / K) * (q_sum / K)
