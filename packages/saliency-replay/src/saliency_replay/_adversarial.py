"""L-infinity FGSM / PGD attacks on a learner's end-to-end prediction (the robustness check of
reproduce.py; private: not part of the package's API contract).

``end_to_end(learner)`` is a context manager giving ``f(x) -> logits`` in eval mode with
gradients flowing through *both* branches of a :class:`SER` learner (the classifier detaches
the saliency features during training; a white-box attacker differentiates through them, so
the saliency path cannot hide the gradient). ``pgd(f, x, y, *, eps, ...)`` maximises the mean
cross-entropy over ``||x' - x||_inf <= eps`` intersected with the pixel box ``clip``;
``fgsm`` is one step of size ``eps`` from ``x`` (Goodfellow et al., 2015).
"""

from __future__ import annotations

import contextlib

import torch
from torch.nn import functional as F

from ._checks import check_bool, check_callable, check_float, check_generator, check_int
from ._validation import check_images, check_labels


@contextlib.contextmanager
def end_to_end(learner, *, through_saliency=True):
    """Yield ``f(x) -> logits`` of ``learner`` (a strategy or an :class:`SER`), eval mode,
    differentiable in ``x`` through every branch (``through_saliency=False``: through the
    classifier only, the saliency features detached as in training, an attacker blind to the
    saliency path); the modules' modes are restored after."""
    from .strategies import SER, _Rehearsal

    if not isinstance(learner, SER | _Rehearsal):
        raise TypeError(f"learner must be an ER, DERpp, ERACE or SER, got {type(learner)!r}")
    model = learner.model
    net = learner.saliency_net if isinstance(learner, SER) else None
    modules = [m for m in (model, net) if m is not None]
    modes = [m.training for m in modules]
    through_saliency = check_bool(through_saliency, "through_saliency")
    detach = getattr(model, "_detach_features", None)
    for m in modules:
        m.eval()
    if detach is not None:
        model._detach_features = not through_saliency
    try:
        yield (lambda x: model(x)) if net is None else (lambda x: model(x, net(x)[1]))
    finally:
        for m, was in zip(modules, modes):
            m.train(was)
        if detach is not None:
            model._detach_features = detach


def pgd(
    f, x, y, *, eps, steps=10, step_size=None, random_start=True, clip=(0.0, 1.0), generator=None
):
    """Projected gradient ascent on ``CE(f(x'), y)`` in the L-inf ball of radius ``eps`` around
    ``x`` (Madry et al., 2018): ``x' <- proj(x' + step_size * sign(grad))``, ``steps`` times,
    from a uniform random start when ``random_start``. ``step_size`` defaults to
    ``2.5 * eps / steps``. Returns the adversarial batch (detached)."""
    check_callable(f, "f")
    check_images(x, "x")
    check_labels(y, "y", x.shape[0])
    eps = check_float(eps, "eps", minimum=0.0)
    steps = check_int(steps, "steps", minimum=1)
    step = (
        2.5 * eps / steps if step_size is None else check_float(step_size, "step_size", minimum=0.0)
    )
    random_start = check_bool(random_start, "random_start")
    generator = check_generator(generator)
    lo, hi = (check_float(c, f"clip[{i}]") for i, c in enumerate(clip))
    if not lo < hi:
        raise ValueError(f"clip must be (low, high) with low < high, got {clip!r}")
    x0 = x.detach()
    adv = x0.clone()
    if random_start and eps > 0:
        noise = torch.rand(x0.shape, generator=generator, dtype=x0.dtype).to(x0.device)
        adv = (adv + (2 * noise - 1) * eps).clamp(lo, hi)
    for _ in range(steps):
        adv.requires_grad_(True)
        loss = F.cross_entropy(f(adv), y)
        (grad,) = torch.autograd.grad(loss, adv)
        with torch.no_grad():
            adv = adv + step * grad.sign()
            adv = torch.minimum(torch.maximum(adv, x0 - eps), x0 + eps).clamp(lo, hi)
    return adv.detach()


def fgsm(f, x, y, *, eps, clip=(0.0, 1.0)):
    """The fast gradient sign method: ``clip(x + eps * sign(grad_x CE(f(x), y)))``."""
    return pgd(f, x, y, eps=eps, steps=1, step_size=eps, random_start=False, clip=clip)


@torch.no_grad()
def _correct(f, x, y):
    return f(x).argmax(1) == y


def robust_accuracy(
    learner, x, y, *, eps, steps=10, batch_size=250, through_saliency=True, generator=None
):
    """``(clean, fgsm, pgd)`` accuracies of ``learner`` on ``(x, y)`` under L-inf attacks of
    radius ``eps`` (PGD: ``steps`` steps, random start from ``generator``; gradients as
    :func:`end_to_end` with ``through_saliency``)."""
    bs = check_int(batch_size, "batch_size", minimum=1)
    counts = torch.zeros(3)
    with end_to_end(learner, through_saliency=through_saliency) as f:
        for i in range(0, x.shape[0], bs):
            xb, yb = x[i : i + bs], y[i : i + bs]
            adv_f = fgsm(f, xb, yb, eps=eps)
            adv_p = pgd(f, xb, yb, eps=eps, steps=steps, generator=generator)
            for k, xa in enumerate((xb, adv_f, adv_p)):
                counts[k] += _correct(f, xa, yb).sum()
    return tuple(float(c) / x.shape[0] for c in counts)
