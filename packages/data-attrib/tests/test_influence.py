"""Influence functions against independent references: a hand-written Hessian and gradients,
exact leave-one-out retraining, and each other."""

from __future__ import annotations

import copy

import data_attrib as da
import numpy as np
import pytest
import torch
from _lr import (
    LAM,
    ce_loss,
    fit,
    make_data,
    make_loss,
    make_model,
    per_example_losses,
    reference_grads,
    reference_hessian,
)

from papershelf_harness.testing import assert_close

TRAIN, TEST = make_data()
MODEL = fit(make_model(), *TRAIN)
TASK = da.AttributionTask(make_loss(MODEL), MODEL)
G = reference_grads(MODEL, *TRAIN)
GT = reference_grads(MODEL, *TEST)
H = reference_hessian(MODEL, *TRAIN)
REF = G @ torch.linalg.solve(H, GT.T)  # [n_train, n_test]
EIG = torch.linalg.eigvalsh(H)


def loader(data, batch_size=7):
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*data), batch_size=batch_size)


def test_explicit_matches_hand_written_hessian_and_gradients():
    ex = da.IFExplicit(TASK)
    ex.cache(loader(TRAIN))
    assert_close(ex.hessian(), H, rtol=1e-10, atol=1e-12)
    s = ex.attribute(loader(TRAIN), TEST)
    assert s.shape == (30, 8)
    assert_close(s, REF, rtol=1e-8, atol=1e-10)
    assert_close(
        ex.self_attribute(loader(TRAIN)),
        torch.diagonal(G @ torch.linalg.solve(H, G.T)),
        rtol=1e-8,
        atol=1e-10,
    )


def test_regularization_adds_lambda_identity():
    ex = da.IFExplicit(TASK, regularization=0.3)
    ex.cache(TRAIN)
    ref = G @ torch.linalg.solve(H + 0.3 * torch.eye(H.shape[0], dtype=H.dtype), GT.T)
    assert_close(ex.attribute(TRAIN, TEST), ref, rtol=1e-8, atol=1e-10)


def test_explicit_if_predicts_exact_leave_one_out_retraining():
    """Retrain without each example (warm start, L-BFGS to 1e-13) and measure the test
    cross-entropy. The task's loss is the plain cross-entropy and the L2 term enters as
    ``regularization=LAM`` (H + λI is the Hessian of the training objective). Removing z_i
    changes the test loss by about score / (n - 1) (up to a per-test constant from the L2
    term), so the per-test Pearson correlation is near 1 and the centred slope near 1."""
    n = TRAIN[0].shape[0]
    base = per_example_losses(MODEL, *TEST)
    change = []
    for i in range(n):
        keep = torch.arange(n) != i
        m = fit(copy.deepcopy(MODEL), TRAIN[0][keep], TRAIN[1][keep], rounds=1)
        change.append(per_example_losses(m, *TEST) - base)
    change = torch.stack(change)
    ex = da.IFExplicit(da.AttributionTask(ce_loss(MODEL), MODEL), regularization=LAM)
    ex.cache(TRAIN)
    s = ex.attribute(TRAIN, TEST)
    corr = da.loo_corr(s, change)
    assert corr > 0.95, corr
    pc = s / (n - 1) - s.mean(0) / (n - 1)
    cc = change - change.mean(0)
    slope = float((pc * cc).sum() / pc.pow(2).sum())
    assert 0.9 < slope < 1.6, slope  # first order; leverage p/n = 0.5 makes it larger
    # a wrong inverse (the identity: grad-dot) correlates clearly worse
    g_ce = da.AttributionTask(ce_loss(MODEL), MODEL).per_sample_grads(TRAIN)
    gt_ce = da.AttributionTask(ce_loss(MODEL), MODEL).per_sample_grads(TEST)
    assert da.loo_corr(g_ce @ gt_ce.T, change) < corr - 0.03
    # sign: removing the example with the largest total score raises the mean test loss
    top = int(s.sum(dim=1).argmax())
    assert float(change[top].sum()) > 0


def test_cg_lissa_arnoldi_match_explicit():
    cg = da.IFCG(TASK, max_iter=30, tol=1e-12)
    cg.cache(loader(TRAIN))
    assert_close(cg.attribute(TRAIN, TEST), REF, rtol=1e-6, atol=1e-8)
    li = da.IFLiSSA(
        TASK, depth=100, scale=float(EIG.max() + EIG.min()) / 2 * 1.02, batch_size=10**6
    )
    li.cache(loader(TRAIN))
    assert_close(li.attribute(TRAIN, TEST), REF, rtol=1e-4, atol=1e-6)
    p = H.shape[0]
    ar = da.IFArnoldi(TASK, k=p, max_iter=p, generator=torch.Generator().manual_seed(0))
    ar.cache(loader(TRAIN))
    assert_close(ar.attribute(TRAIN, TEST), REF, rtol=1e-6, atol=1e-8)


def test_cg_with_few_iterations_is_textbook_cg_from_v():
    """max_iter=2 from x0 = v: compare with two hand-written CG steps on the explicit matrix."""
    cg = da.IFCG(TASK, max_iter=2, tol=0.0)
    cg.cache(TRAIN)
    V = GT
    x = V.clone()
    r = V - x @ H
    d = r.clone()
    for _ in range(2):
        ad = d @ H
        alpha = (r * r).sum(1) / (d * ad).sum(1)
        x = x + alpha[:, None] * d
        r_new = r - alpha[:, None] * ad
        d = r_new + ((r_new * r_new).sum(1) / (r * r).sum(1))[:, None] * d
        r = r_new
    assert_close(cg.attribute(TRAIN, TEST), G @ x.T, rtol=1e-8, atol=1e-10)


def test_arnoldi_top_k_is_the_truncated_eigen_inverse():
    p, k = H.shape[0], 5
    w, q = torch.linalg.eigh(H)
    top = torch.argsort(w.abs(), descending=True)[:k]
    ref = (G @ q[:, top]) / w[top] @ (GT @ q[:, top]).T
    ar = da.IFArnoldi(TASK, k=k, max_iter=p, generator=torch.Generator().manual_seed(1))
    ar.cache(TRAIN)
    assert_close(ar.attribute(TRAIN, TEST), ref, rtol=1e-6, atol=1e-8)


def test_lissa_minibatches_are_seeded_and_unbiased_on_average():
    scale = float(EIG.max()) * 1.5

    def run(seed):
        li = da.IFLiSSA(
            TASK,
            depth=60,
            scale=scale,
            batch_size=10,
            generator=torch.Generator().manual_seed(seed),
        )
        li.cache(TRAIN)
        return li.attribute(TRAIN, (TEST[0][:2], TEST[1][:2]))

    a, b = run(3), run(3)
    assert torch.equal(a, b)
    avg = torch.stack([a, run(4)]).mean(0)
    ref = REF[:, :2]
    assert float((avg - ref).norm() / ref.norm()) < 0.5
    assert np.corrcoef(avg.flatten(), ref.flatten())[0, 1] > 0.9


def test_train_subset_rows_and_batching_do_not_change_scores():
    ex = da.IFExplicit(TASK)
    ex.cache(loader(TRAIN, 4))
    full = ex.attribute(loader(TRAIN, 30), loader(TEST, 3))
    idx = torch.tensor([3, 7, 11, 29])
    sub = ex.attribute((TRAIN[0][idx], TRAIN[1][idx]), TEST)
    assert_close(sub, full[idx], rtol=1e-10, atol=1e-12)


def test_checkpoints_average_and_layers_restrict():
    other = fit(make_model(seed=1), TRAIN[0][:20], TRAIN[1][:20])
    ck = [copy.deepcopy(MODEL.state_dict()), copy.deepcopy(other.state_dict())]
    model = make_model(seed=5)
    task2 = da.AttributionTask(make_loss(model), model, checkpoints=ck)
    ex = da.IFExplicit(task2)
    ex.cache(TRAIN)
    parts = []
    for m in (MODEL, other):
        g, gt, h = (
            reference_grads(m, *TRAIN),
            reference_grads(m, *TEST),
            reference_hessian(m, *TRAIN),
        )
        parts.append(g @ torch.linalg.solve(h, gt.T))
    assert_close(ex.attribute(TRAIN, TEST), (parts[0] + parts[1]) / 2, rtol=1e-8, atol=1e-10)
    # layers: only the weight (the first 12 coordinates), bias held fixed
    t_w = da.AttributionTask(make_loss(MODEL), MODEL, layers=["weight"])
    assert t_w.n_params == 12 and t_w.param_names == ["weight"]
    exw = da.IFExplicit(t_w)
    exw.cache(TRAIN)
    ref_w = G[:, :12] @ torch.linalg.solve(H[:12, :12], GT[:, :12].T)
    assert_close(exw.attribute(TRAIN, TEST), ref_w, rtol=1e-8, atol=1e-10)


def test_float32_works_and_agrees_with_float64():
    m32 = copy.deepcopy(MODEL).float()
    task = da.AttributionTask(make_loss(m32), m32)
    tr = (TRAIN[0].float(), TRAIN[1])
    te = (TEST[0].float(), TEST[1])
    for att in (da.IFExplicit(task), da.IFCG(task, max_iter=40), da.TracIn(task)):
        att.cache(tr)
        s = att.attribute(tr, te)
        assert s.dtype == torch.float32
    assert_close(s, G.float() @ GT.float().T, rtol=1e-4, atol=1e-5)


def test_attribute_without_cache_warns_and_uses_the_train_loader():
    ex = da.IFExplicit(TASK)
    with pytest.warns(UserWarning, match="cache"):
        s = ex.attribute(TRAIN, TEST)
    assert_close(s, REF, rtol=1e-8, atol=1e-10)


def test_singular_hessian_is_a_value_error_naming_regularization():
    model = make_model()
    task = da.AttributionTask(make_loss(model), model)
    data = (torch.zeros(5, 4, dtype=torch.float64), torch.zeros(5, dtype=torch.long))
    task_nopen = da.AttributionTask(
        lambda p, b: (p["weight"] * 0).sum() + p["bias"].sum() * 0, model
    )
    with pytest.raises(ValueError, match="regularization"):
        da.IFExplicit(task_nopen).cache(data)
    da.IFExplicit(task, regularization=0.1).cache(data)


def test_a_loss_written_for_unbatched_examples_works_too():
    """The torch.func tutorial style (the loss adds the batch dimension itself) gives the same
    scores as dattri's style (the example arrives with a batch dimension of 1)."""
    from torch.func import functional_call

    def tutorial_loss(params, example):
        x, y = example
        out = functional_call(MODEL, params, (x.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, y.unsqueeze(0)) + 0.5 * LAM * sum(
            (p**2).sum() for p in params.values()
        )

    ex = da.IFExplicit(da.AttributionTask(tutorial_loss, MODEL))
    ex.cache(TRAIN)
    assert_close(ex.attribute(TRAIN, TEST), REF, rtol=1e-8, atol=1e-10)


def test_nonconvex_mlp_matches_autograd_functional():
    """A tanh MLP (4 parameter tensors, non-convex): IF-explicit against a Hessian and gradients
    from torch.autograd (not torch.func) on the flattened parameters; layers by module name."""
    from torch.func import functional_call

    torch.manual_seed(3)
    mlp = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    mlp = mlp.double()
    X = torch.randn(12, 3, dtype=torch.float64)
    Y = torch.randint(0, 2, (12,))
    names = [n for n, _ in mlp.named_parameters()]
    shapes = [p.shape for p in mlp.parameters()]

    def flat_loss(theta, x, y, keep):
        params, i = {}, 0
        for n, s in zip(names, shapes):
            k = int(torch.tensor(s).prod())
            params[n] = theta[i : i + k].reshape(s)
            i += k
        params = {n: (p if n in keep else p.detach()) for n, p in params.items()}
        return torch.nn.functional.cross_entropy(functional_call(mlp, params, (x,)), y)

    theta = torch.cat([p.detach().reshape(-1) for p in mlp.parameters()])
    for layers, keep in ((None, names), ("2", ["2.weight", "2.bias"])):
        idx = torch.cat(
            [torch.full((int(torch.tensor(s).prod()),), n in keep) for n, s in zip(names, shapes)]
        )
        h = torch.autograd.functional.hessian(lambda t, k=keep: flat_loss(t, X, Y, k), theta)
        h = h[idx][:, idx] + 0.01 * torch.eye(int(idx.sum()), dtype=torch.float64)
        g = torch.stack(
            [
                torch.autograd.functional.jacobian(
                    lambda t, i=i, k=keep: flat_loss(t, X[i : i + 1], Y[i : i + 1], k), theta
                )[idx]
                for i in range(12)
            ]
        )
        task = da.AttributionTask(ce_loss_of(mlp), mlp, layers=layers)
        ex = da.IFExplicit(task, regularization=0.01)
        ex.cache((X, Y))
        assert_close(
            ex.attribute((X, Y), (X[:4], Y[:4])),
            g @ torch.linalg.solve(h, g[:4].T),
            rtol=1e-8,
            atol=1e-10,
        )


def ce_loss_of(model):
    from torch.func import functional_call

    def loss(params, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(functional_call(model, params, (x,)), y)

    return loss
