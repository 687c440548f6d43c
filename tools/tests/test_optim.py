"""The vendored optimiser (tools/vendor/_optim.py) against torch.optim, step by step."""

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

spec = importlib.util.spec_from_file_location(
    "_optim", Path(__file__).resolve().parents[1] / "vendor" / "_optim.py"
)
optim = importlib.util.module_from_spec(spec)
spec.loader.exec_module(optim)


def _problem(seed):
    g = torch.Generator().manual_seed(seed)
    X, y = torch.randn(64, 5, generator=g, dtype=torch.float64), torch.randn(64, generator=g)
    w = torch.randn(5, generator=g, dtype=torch.float64)
    return X, y.double(), w


def _run(make, seed, steps=30, clip=None, lrs=None):
    X, y, w0 = _problem(seed)
    w = w0.clone().requires_grad_(True)
    b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    opt = make([w, b])
    for t in range(steps):
        if lrs is not None:
            for group in getattr(opt, "param_groups", [opt.__dict__]):
                group["lr"] = lrs[t]
        opt.zero_grad()
        loss = ((X @ w + b - y) ** 2).mean() * 50  # large gradients: clipping engages
        loss.backward()
        if clip is not None and hasattr(opt, "param_groups"):
            torch.nn.utils.clip_grad_norm_([w, b], clip)
        opt.step()
    return torch.cat([w.detach(), b.detach()])


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lambda p: optim.Adam(p, 0.05), lambda p: torch.optim.Adam(p, 0.05, foreach=False)),
        (
            lambda p: optim.Adam(p, 0.05, weight_decay=0.1),
            lambda p: torch.optim.Adam(p, 0.05, weight_decay=0.1, foreach=False),
        ),
        (
            lambda p: optim.AdamW(p, 0.05, weight_decay=0.1),
            lambda p: torch.optim.AdamW(p, 0.05, weight_decay=0.1, foreach=False),
        ),
        (lambda p: optim.AdamW(p, 0.05), lambda p: torch.optim.AdamW(p, 0.05, foreach=False)),
    ],
    ids=["adam", "adam-l2", "adamw", "adamw-default-decay"],
)
def test_matches_torch_optim(ours, theirs):
    for seed in range(3):
        a, b = _run(ours, seed), _run(theirs, seed)
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_clipping_and_schedule_match_torch():
    lrs = [0.05 * (1 - t / 40) for t in range(30)]

    def ours(p):
        return optim.AdamW(p, 0.05, weight_decay=0.01, max_grad_norm=1.0)

    def theirs(p):
        return torch.optim.AdamW(p, 0.05, weight_decay=0.01, foreach=False)

    a = _run(ours, 0, clip=1.0, lrs=lrs)
    b = _run(theirs, 0, clip=1.0, lrs=lrs)
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
    # and clipping changed the path (the test would not notice a no-op clip otherwise)
    assert (
        a - _run(lambda p: optim.AdamW(p, 0.05, weight_decay=0.01), 0, lrs=lrs)
    ).abs().max() > 1e-3


def test_explicit_grads_and_missing_grads():
    w = torch.ones(3, requires_grad=True)
    v = torch.ones(2, requires_grad=True)
    opt = optim.Adam([w, v], 0.1)
    opt.step([torch.ones(3), None])  # v has no gradient: untouched
    assert torch.equal(v.detach(), torch.ones(2))
    torch.testing.assert_close(w.detach(), torch.full((3,), 0.9))  # Adam's first step is lr * sign
    with pytest.raises(ValueError, match="grads"):
        opt.step([torch.ones(3)])
    # clipping with no gradient at all is a step that changes nothing (not an error)
    clipped = optim.Adam([v], 0.1, max_grad_norm=1.0)
    clipped.step()
    assert torch.equal(v.detach(), torch.ones(2))
