"""calibrate's statistics against a naive per-token loop over hooked inputs."""

import re

import pytest
import torch
from espace import ActivationStats, calibrate, default_targets
from torch import nn


def _hooked_inputs(model, names, run):
    """Every input tensor of the named modules during ``run()`` (a plain forward hook)."""
    seen = {n: [] for n in names}
    modules = dict(model.named_modules())
    hs = [
        modules[n].register_forward_hook(lambda m, a, o, n=n: seen[n].append(a[0].detach().clone()))
        for n in names
    ]
    try:
        run()
    finally:
        for h in hs:
            h.remove()
    return seen


def _naive_mean_outer(tensors, masks=None, normalize=False):
    K = tensors[0].shape[-1]
    total = torch.zeros(K, K, dtype=torch.float64)
    count = 0
    for j, t in enumerate(tensors):
        B, T = t.shape[:2]
        for b in range(B):
            for s in range(T):
                if masks is not None and masks[j][b, s] == 0:
                    continue
                v = t[b, s].double()
                if normalize and v.norm() > 0:  # a zero token (no gradient) stays zero
                    v = v / v.norm()
                total += torch.outer(v, v)
                count += 1
    return total / count


def test_default_targets_skip_lm_head(llama):
    names = default_targets(llama)
    assert "lm_head" not in names
    assert sum(".q_proj" in n for n in names) == 2 and sum("down_proj" in n for n in names) == 2
    assert len(names) == 2 * 7


@pytest.mark.parametrize("normalize", [False, True])
def test_mse_matches_naive_token_loop(llama, normalize):
    g = torch.Generator().manual_seed(0)
    batches = [torch.randint(0, 64, (2, 6), generator=g) for _ in range(3)]
    names = ["model.layers.0.self_attn.q_proj", "model.layers.1.mlp.down_proj"]
    stats = calibrate(llama, batches, targets=names, normalize=normalize)
    assert list(stats) == names
    with torch.no_grad():
        seen = _hooked_inputs(llama, names, lambda: [llama(b) for b in batches])
    for n in names:
        ref = _naive_mean_outer(seen[n], normalize=normalize)
        assert stats[n].shape == ref.shape and stats[n].dtype == torch.float64
        torch.testing.assert_close(stats[n], ref, atol=1e-10, rtol=1e-8)


def test_padding_is_left_out_and_dicts_accepted(llama):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 64, (2, 7), generator=g)
    mask = torch.ones(2, 7, dtype=torch.long)
    mask[0, :3] = 0  # left padding
    names = ["model.layers.0.mlp.up_proj"]
    stats = calibrate(llama, [{"input_ids": ids, "attention_mask": mask}], targets=names)
    with torch.no_grad():
        seen = _hooked_inputs(llama, names, lambda: llama(input_ids=ids, attention_mask=mask))
    ref = _naive_mean_outer(seen[names[0]], masks=[mask])
    torch.testing.assert_close(stats[names[0]], ref, atol=1e-10, rtol=1e-8)


def test_go_objective_closed_form(llama, ids):
    name = "model.layers.1.self_attn.o_proj"
    cx = calibrate(llama, [ids], targets=[name])[name]
    go = calibrate(llama, [ids], targets=[name], objective="go")[name]
    W = llama.get_submodule(name).weight.detach().double()
    cw = W.T @ W / W.shape[0]
    torch.testing.assert_close(go, cx @ cw + cw @ cx, atol=1e-10, rtol=1e-8)


def _naive_nl(model, batches, name, normalize=False):
    """Per batch: C_X and C_G (g = dLoss/dx of this GEMM's input, by a separate leaf)."""
    module = model.get_submodule(name)
    total = 0
    for ids in batches:
        store = {}

        def pre(m, args, store=store):
            x = args[0].detach().requires_grad_(True)
            store["x"] = x
            return (x,)

        # a detached leaf: the gradient reaching this GEMM's input through this GEMM only
        h = module.register_forward_pre_hook(pre)
        try:
            logits = model(ids).logits
        finally:
            h.remove()
        loss = nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1)
        )
        loss.backward()
        x, gx = store["x"].detach(), store["x"].grad
        cx = _naive_mean_outer([x], normalize=normalize)
        cg = _naive_mean_outer([gx], normalize=normalize)
        total = total + cx @ cg + cg @ cx
        model.zero_grad()
    return total / len(batches)


@pytest.mark.parametrize("normalize", [False, True])
def test_nl_objective_matches_naive_backward(llama, normalize):
    g = torch.Generator().manual_seed(2)
    batches = [torch.randint(0, 64, (2, 8), generator=g) for _ in range(2)]
    name = "model.layers.0.self_attn.k_proj"
    stats = calibrate(llama, batches, targets=[name], objective="nl", normalize=normalize)
    assert all(p.grad is None for p in llama.parameters())  # .grad untouched
    ref = _naive_nl(llama, batches, name, normalize=normalize)
    torch.testing.assert_close(stats[name], ref, atol=1e-12, rtol=1e-6)


def test_regex_targets_and_num_batches(llama, ids):
    stats = calibrate(llama, [ids, ids, ids], targets=r"layers\.1\..*_proj$", num_batches=1)
    assert set(stats) == {n for n in default_targets(llama) if re.search(r"layers\.1\.", n)}
    one = calibrate(llama, [ids], targets=r"layers\.1\..*_proj$")
    for n in stats:
        torch.testing.assert_close(stats[n], one[n])


def test_gpt2_conv1d_layers_are_calibrated(ids):
    from papershelf_harness.tiny_hf import tiny_causal_lm

    model = tiny_causal_lm("gpt2", n_layers=1, seed=0, vocab=64)
    stats = calibrate(model, [ids])
    assert any(n.endswith("c_attn") for n in stats) and "lm_head" not in stats
    for n, C in stats.items():
        K = model.get_submodule(n).weight.shape[0]  # Conv1D weight is (in, out)
        assert C.shape == (K, K)


def test_activation_stats_running_means():
    st = ActivationStats(3)
    a, b = torch.randn(4, 3), torch.randn(2, 5, 3)
    st.update(a).update(b)
    rows = torch.cat([a, b.reshape(-1, 3)]).double()
    torch.testing.assert_close(st.autocorr(), rows.T @ rows / 14)
    st.update_grad(a)
    torch.testing.assert_close(st.grad_autocorr(), a.double().T @ a.double() / 4)
    with pytest.raises(ValueError, match="x"):
        st.update(torch.randn(4, 2))
