"""PINN and VS-PINN losses, Gram matrices, models and training."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from ._checks import (
    check_array,
    check_float,
    check_generator,
    check_int,
    check_option,
    check_tensor,
    describe,
)
from ._optim import Adam
from ._validation import as_points, check_net, module_dtype
from .networks import TwoLayerPowerNet, _derivatives
from .pde import LinearPDE, SplitSystem, _unsplit, sample_points, split_system

__all__ = [
    "PINN",
    "VSPINN",
    "gram_matrix",
    "min_eig",
    "pinn_loss",
    "relative_l2_error",
    "train",
]


def _value(c: Any, x: torch.Tensor) -> torch.Tensor | float:
    return c(x) if callable(c) else c


def _face_mask(x: torch.Tensor, faces) -> torch.Tensor:
    if faces is None:
        return torch.ones(x.shape[0], dtype=torch.bool)
    mask = torch.zeros(x.shape[0], dtype=torch.bool)
    for axis, side in faces:
        mask |= (x[:, axis] - side).abs() <= 1e-12
    return mask


def _combine(terms: Mapping, derivs: Mapping, x: torch.Tensor, rhs: Any) -> torch.Tensor:
    out = torch.zeros(x.shape[0], dtype=x.dtype)
    for (var, alpha), c in terms.items():
        out = out + _value(c, x) * derivs[var][alpha]
    return out - _value(rhs, x)


def _residuals(nets: Mapping, system: SplitSystem, interior, boundary) -> list[torch.Tensor]:
    """Residuals of every interior equation (at ``interior``), then of every bc (at the rows of
    ``boundary`` on its faces), in order."""
    need: dict[str, set] = {}
    for terms, _ in system.equations:
        for var, alpha in terms:
            need.setdefault(var, set()).add(tuple(alpha))
    derivs = {v: _derivatives(nets[v], interior, a) for v, a in need.items()}
    res = [_combine(t, derivs, interior, rhs) for t, rhs in system.equations]
    for j, (terms, g, faces) in enumerate(system.bcs):
        xb = boundary[_face_mask(boundary, faces)]
        if xb.shape[0] == 0:
            raise ValueError(
                f"boundary has no points on the faces {faces} of boundary condition {j}"
            )
        bneed: dict[str, set] = {}
        for var, alpha in terms:
            bneed.setdefault(var, set()).add(tuple(alpha))
        bderivs = {v: _derivatives(nets[v], xb, a) for v, a in bneed.items()}
        res.append(_combine(terms, bderivs, xb, g))
    return res


def _loss(res: list[torch.Tensor]) -> torch.Tensor:
    return sum(0.5 * (r**2).mean() for r in res)


def _gram(res: list[torch.Tensor], params: list[torch.Tensor]) -> torch.Tensor:
    r = torch.cat([ri / math.sqrt(ri.shape[0]) for ri in res])
    rows = []
    for i in range(r.shape[0]):
        grads = torch.autograd.grad(r[i], params, retain_graph=True, allow_unused=True)
        rows.append(
            torch.cat(
                [
                    (torch.zeros_like(p) if g is None else g).reshape(-1)
                    for g, p in zip(grads, params)
                ]
            )
        )
    jac = torch.stack(rows)
    return (jac @ jac.T).detach()


def _check_pde(pde: Any) -> LinearPDE:
    if not isinstance(pde, LinearPDE):
        raise TypeError(f"pde must be a LinearPDE, got {describe(pde)}")
    return pde


def _prepare(net, pde, interior, boundary):
    pde = _check_pde(pde)
    net = check_net(net, "net", dim=pde.dim)
    dtype = module_dtype(net)
    return (
        net,
        pde,
        as_points(interior, "interior", dim=pde.dim, dtype=dtype),
        as_points(boundary, "boundary", dim=pde.dim, dtype=dtype),
    )


def pinn_loss(net: Any, pde: LinearPDE, interior: Any, boundary: Any) -> torch.Tensor:
    """(1/2n1) sum (L u - f)^2 over ``interior`` + sum over bcs (1/2n2) sum (B u - g)^2 over the
    rows of ``boundary`` on each bc's faces; a scalar tensor, differentiable in the parameters.
    ``net`` maps [n, dim] -> [n]; closed-form derivatives for a ``TwoLayerPowerNet``, nested
    autograd otherwise."""
    net, pde, interior, boundary = _prepare(net, pde, interior, boundary)
    return _loss(_residuals({"u": net}, _unsplit(pde), interior, boundary))


def gram_matrix(
    net: Any, pde: LinearPDE | None = None, interior: Any = None, boundary: Any = None
) -> torch.Tensor:
    """G = J J^T [N, N] with r = residuals / sqrt(n) (interior, then each bc in order; N the
    total number of residuals) and J = dr / d(trainable parameters). The loss is |r|^2 / 2.

    ``gram_matrix(net, pde, interior, boundary)`` for a network; ``gram_matrix(model)`` for a
    ``PINN`` or ``VSPINN`` (all its equations, bcs and networks)."""
    if isinstance(net, _Model) and pde is None and interior is None and boundary is None:
        return net.gram_matrix()
    if pde is None or interior is None or boundary is None:
        missing = [
            k
            for k, v in (("pde", pde), ("interior", interior), ("boundary", boundary))
            if v is None
        ]
        raise TypeError(f"{missing[0]} is required unless net is a PINN or VSPINN model")
    net, pde, interior, boundary = _prepare(net, pde, interior, boundary)
    res = _residuals({"u": net}, _unsplit(pde), interior, boundary)
    params = (
        [p for p in net.parameters() if p.requires_grad] if isinstance(net, torch.nn.Module) else []
    )
    if not params:
        raise ValueError("net has no trainable parameters")
    return _gram(res, params)


def min_eig(gram: Any) -> float:
    """The smallest eigenvalue of a symmetric matrix (tensor or array)."""
    if isinstance(gram, torch.Tensor):
        check_tensor(gram, "gram", ndim=2)
        g = gram.detach().to(torch.float64)
    else:
        g = torch.as_tensor(check_array(gram, "gram", ndim=2))
    if g.shape[0] != g.shape[1]:
        raise ValueError(f"gram must be square, got shape {tuple(g.shape)}")
    return float(torch.linalg.eigvalsh(0.5 * (g + g.T))[0])


class _Model(torch.nn.Module):
    """Shared by PINN and VSPINN: nets per variable, collocation points, loss, prediction."""

    pde: LinearPDE
    system: SplitSystem

    def _build(self, pde, *, m, p, n_interior, n_boundary, sampler, generator) -> None:
        self.m = check_int(m, "m", minimum=1)
        need = self.system.order + 1
        if p is None:
            p = need
        self.p = check_int(p, "p", minimum=need)
        generator = check_generator(generator)
        self.nets = torch.nn.ModuleDict(
            {
                v: TwoLayerPowerNet(pde.dim, self.m, self.p, generator=generator)
                for v in self.system.variables
            }
        )
        pts = sample_points(
            pde, n_interior=n_interior, n_boundary=n_boundary, sampler=sampler, generator=generator
        )
        self.register_buffer("interior", pts.interior)
        self.register_buffer("boundary", pts.boundary)
        self.sampler = sampler

    @property
    def net(self) -> TwoLayerPowerNet:
        """The network of the solution u."""
        return self.nets[self.system.variables[0]]

    def residuals(self) -> list[torch.Tensor]:
        """Residual vectors: each interior equation, then each bc."""
        return _residuals(self.nets, self.system, self.interior, self.boundary)

    def loss(self) -> torch.Tensor:
        """Sum of (1/2n) mean-square residuals, one term per equation and bc."""
        return _loss(self.residuals())

    def gram_matrix(self) -> torch.Tensor:
        """G = J J^T of the residuals / sqrt(n) w.r.t. all trainable parameters."""
        return _gram(self.residuals(), [p for p in self.parameters() if p.requires_grad])

    def predict(self, x: Any) -> torch.Tensor:
        """u at ``x`` [n, dim] -> [n] (no graph)."""
        x = as_points(x, "x", dim=self.pde.dim, dtype=self.net.weight.dtype)
        with torch.no_grad():
            return self.net(x)


class PINN(_Model):
    """A PINN: one ``TwoLayerPowerNet`` of width ``m`` and power ``p`` (default order + 1) on the
    PDE itself, with its collocation points."""

    def __init__(
        self,
        pde: LinearPDE,
        *,
        m: int,
        p: int | None = None,
        n_interior: int = 64,
        n_boundary: int = 64,
        sampler: str = "grid",
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.pde = _check_pde(pde)
        self.system = _unsplit(pde)
        self._build(
            pde,
            m=m,
            p=p,
            n_interior=n_interior,
            n_boundary=n_boundary,
            sampler=sampler,
            generator=generator,
        )


class VSPINN(_Model):
    """Variable-splitting PINN: the PDE as a system of order-``level`` equations (level 2: e.g.
    v = Laplace u; level 1: a first-order system), one ``TwoLayerPowerNet`` of width ``m`` and
    power ``p`` (default level + 1) per scalar unknown. ``system`` overrides the built-in
    splitting (required for a user's PDE)."""

    def __init__(
        self,
        pde: LinearPDE,
        *,
        level: int = 1,
        m: int,
        p: int | None = None,
        n_interior: int = 64,
        n_boundary: int = 64,
        sampler: str = "grid",
        generator: torch.Generator | None = None,
        system: SplitSystem | None = None,
    ) -> None:
        super().__init__()
        self.pde = _check_pde(pde)
        self.level = check_int(level, "level", minimum=1, maximum=2)  # the contract: level=1|2
        if system is None:
            system = split_system(pde, self.level)
        elif not isinstance(system, SplitSystem):
            raise TypeError(f"system must be a SplitSystem, got {describe(system)}")
        elif system.dim != pde.dim:
            raise ValueError(f"system has dim={system.dim} but pde has dim={pde.dim}")
        self.system = system
        self._build(
            pde,
            m=m,
            p=p,
            n_interior=n_interior,
            n_boundary=n_boundary,
            sampler=sampler,
            generator=generator,
        )


def _check_model(model: Any) -> _Model:
    if not isinstance(model, _Model):
        raise TypeError(f"model must be a PINN or VSPINN, got {describe(model)}")
    return model


def train(
    model: Any,
    *,
    steps: int,
    optimizer: str = "adam",
    lr: float = 1e-3,
    log_every: int = 100,
) -> dict[str, list]:
    """Minimise ``model.loss()`` for ``steps`` full-batch steps of Adam or plain gradient
    descent. Returns ``{"step": [...], "loss": [...]}``: the loss after 0, log_every, 2 log_every,
    ... and ``steps`` updates. Training stops early (last entry non-finite) if the loss diverges."""
    if not (isinstance(model, torch.nn.Module) and callable(getattr(model, "loss", None))):
        raise TypeError(
            f"model must be a torch.nn.Module with a loss() method, got {describe(model)}"
        )
    steps = check_int(steps, "steps", minimum=0)
    optimizer = check_option(optimizer, "optimizer", ("adam", "gd"))
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    log_every = check_int(log_every, "log_every", minimum=1)
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("model has no trainable parameters")
    update = Adam(params, lr).step if optimizer == "adam" else _GD(params, lr)
    history: dict[str, list] = {"step": [], "loss": []}
    for step in range(steps + 1):
        loss = model.loss()
        value = float(loss.detach())
        if step % log_every == 0 or step == steps or not math.isfinite(value):
            history["step"].append(step)
            history["loss"].append(value)
        if step == steps or not math.isfinite(value):
            break
        grads = torch.autograd.grad(loss, params, allow_unused=True)
        update([torch.zeros_like(p) if g is None else g for g, p in zip(grads, params)])
    return history


class _GD:
    """theta <- theta - lr * grad."""

    def __init__(self, params, lr):
        self.params, self.lr = params, lr

    def __call__(self, grads):
        with torch.no_grad():
            for p, g in zip(self.params, grads):
                p.sub_(self.lr * g)


def _test_grid(d: int) -> torch.Tensor:
    q = {1: 1001, 2: 101}.get(d, 21)
    t = torch.linspace(0.0, 1.0, q, dtype=torch.float64)
    mesh = torch.meshgrid(*([t] * d), indexing="ij")
    return torch.stack([g.reshape(-1) for g in mesh], dim=1)


def relative_l2_error(model: Any, x: Any = None) -> float:
    """|u_model - u_exact|_2 / |u_exact|_2 at ``x`` [n, dim] (default: a uniform test grid of the
    unit cube including its boundary, 1001 points in 1-D, 101^2 in 2-D)."""
    model = _check_model(model)
    if model.pde.exact is None:
        raise ValueError("model.pde has no exact solution (exact=None)")
    x = (
        _test_grid(model.pde.dim)
        if x is None
        else as_points(x, "x", dim=model.pde.dim, dtype=torch.float64)
    )
    pred = model.predict(x).to(torch.float64)
    ref = model.pde.exact(x).to(torch.float64)
    denom = float(torch.linalg.vector_norm(ref))
    if denom == 0.0:
        raise ValueError("the exact solution is zero at x; the relative error is undefined")
    return float(torch.linalg.vector_norm(pred - ref)) / denom
