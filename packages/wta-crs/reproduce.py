"""Reproduce the headline claims of WTA-CRS (Liu et al., NeurIPS 2023) at small scale on CPU.

1. Unbiasedness: on X (256 x 64), G (256 x 32) with log-normal row norms, the mean of many
   WTA-CRS and CRS estimates is within a few Monte-Carlo standard errors of GᵀX; top-k is biased.
2. The closed-form variances match Monte Carlo.
3. WTA-CRS has lower MSE than CRS at k = 0.1n and 0.3n (heavy-tailed rows).
4. Memory: a WTALinear at ratio 0.3 saves >= 2.5x fewer bytes for backward than nn.Linear.
5. Fine-tuning parity: a tiny BERT-style classifier (2 layers, d = 128, random init) trained on
   a synthetic task with WTA-CRS at ratio 0.3 ends within 2 accuracy points of exact backprop
   (3 seeds); CRS and top-k at the same budget beside it.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
import wta_crs
from torch import nn
from wta_crs import (
    WTALinear,
    convert_linear_layers,
    crs_matmul_grad,
    crs_variance,
    saved_activation_bytes,
    topk_matmul_grad,
    wta_crs_matmul_grad,
    wta_crs_variance,
)
from wta_crs._synthetic import heavy_rows

from papershelf_harness import Claim, reproduce_cli


def monte_carlo(fn, X, G, k, draws, seed):
    rng = np.random.default_rng(seed)
    A = G.T @ X
    est = np.stack([fn(X, G, k, rng=rng) for _ in range(draws)])
    se = est.std(axis=0, ddof=1) / np.sqrt(draws)
    z = np.abs(est.mean(axis=0) - A) / se
    sq_err = ((est - A) ** 2).sum(axis=(1, 2))
    return float(z.max()), sq_err


def estimator_claims(args):
    draws = 300 if args.quick else 5000
    X, G = heavy_rows(256, 64, 32, seed=0)
    A = G.T @ X
    k = int(0.3 * 256)
    z_crs, err_crs = monte_carlo(crs_matmul_grad, X, G, k, draws, 1)
    z_wta, err_wta = monte_carlo(wta_crs_matmul_grad, X, G, k, draws, 2)
    bias = topk_matmul_grad(X, G, k) - A
    rel_bias = float(np.linalg.norm(bias) / np.linalg.norm(A))
    # with 2048 entries, max |z| of an unbiased mean stays below ~4.5 (normal tails)
    yield Claim(
        "WTA-CRS and CRS are unbiased (max |z| of the mean over 2048 entries); top-k is biased",
        paper="unbiased (Thm. 1)",
        measured=f"max|z| WTA {z_wta:.2f}, CRS {z_crs:.2f} ({draws} draws); "
        f"top-k rel. bias {rel_bias:.3f}",
        holds=bool(z_wta < 4.5 and z_crs < 4.5 and rel_bias > 0.01),
        note="k = 0.3n, n = 256, log-normal row norms (sigma = 1)",
    )
    v_crs, v_wta = crs_variance(X, G, k), wta_crs_variance(X, G, k)
    gap_crs = abs(err_crs.mean() / v_crs - 1)
    gap_wta = abs(err_wta.mean() / v_wta - 1)
    yield Claim(
        "closed-form variances match Monte Carlo within 5 %",
        paper="Eq. (3)/(5) (brief's trial: 1.21e7 vs 1.21e7, 4.97e6 vs 4.96e6)",
        measured=f"CRS {v_crs:.3g} vs {err_crs.mean():.3g}, WTA {v_wta:.3g} vs "
        f"{err_wta.mean():.3g}",
        holds=bool(gap_crs < 0.05 and gap_wta < 0.05) if not args.quick else None,
        note="--quick: too few draws to judge 5 %" if args.quick else f"{draws} draws",
    )
    ratios = []
    for frac in (0.1, 0.3):
        kk = int(frac * 256)
        p = np.linalg.norm(X, axis=1) * np.linalg.norm(G, axis=1)
        p = p / p.sum()
        c = wta_crs.choose_num_deterministic(p, kk)
        P_C = float(np.sort(p)[::-1][:c].sum())
        ratios.append((frac, crs_variance(X, G, kk) / wta_crs_variance(X, G, kk), c, P_C, kk))
    yield Claim(
        "WTA-CRS has lower MSE than CRS at k = 0.1n and 0.3n (heavy-tailed rows)",
        paper="lower variance when P_C > |C|/k (Thm. 2); brief's trial 1.26x, 2.44x",
        measured="; ".join(
            f"k={kk}: {r:.2f}x lower (|C|={c}, P_C={pc:.2f} vs |C|/k={c / kk:.2f})"
            for _, r, c, pc, kk in ratios
        ),
        holds=all(r > 1 for _, r, *_ in ratios),
        note="closed forms (checked against Monte Carlo above)",
    )


def memory_claim(args):
    torch.manual_seed(0)
    dense = nn.Linear(128, 512)
    wta = WTALinear.from_linear(dense, ratio=0.3, generator=torch.Generator().manual_seed(0))
    x = torch.randn(32, 64, 128, requires_grad=True)
    b_dense = saved_activation_bytes(dense, x)
    b_wta = saved_activation_bytes(wta, x)
    yield Claim(
        "a layer at ratio 0.3 saves >= 2.5x fewer activation bytes for backward",
        paper="only the k sampled rows are stored; up to 2.7x peak memory (T5-3B, whole model)",
        measured=f"{b_dense / b_wta:.2f}x ({b_dense} vs {b_wta} bytes, n = 2048 tokens)",
        holds=bool(b_dense / b_wta >= 2.5),
        note="measured with saved_tensors_hooks, parameters aside",
    )


class Block(nn.Module):
    """A post-LN BERT encoder layer, every projection an nn.Linear."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x):
        B, T, D = x.shape

        def split(t):
            return t.view(B, T, self.heads, D // self.heads).transpose(1, 2)

        a = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)))
        x = self.ln1(x + self.o(a.transpose(1, 2).reshape(B, T, D)))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class TinyBert(nn.Module):
    def __init__(self, vocab, length, d=128, layers=2, heads=4, ff=256, classes=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(length + 1, d)
        self.blocks = nn.ModuleList(Block(d, heads, ff) for _ in range(layers))
        self.classifier = nn.Linear(d, classes)

    def forward(self, ids):
        cls = torch.zeros(ids.shape[0], 1, dtype=ids.dtype)  # token 0 is [CLS]
        ids = torch.cat([cls, ids], 1)
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.classifier(x[:, 0])


class TopKLinear(WTALinear):
    """The biased baseline at the same budget: the k rows of largest ‖x_i‖, unscaled."""

    def select(self, weights, k):
        rows = torch.sort(torch.topk(weights, k).indices).values
        return rows, torch.ones(k)


class Adam:
    """Plain Adam (torch.optim's import pulls in torch._dynamo: tens of seconds on a busy CPU)."""

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps, self.t = params, lr, betas, eps, 0
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            m.mul_(b1).add_(p.grad, alpha=1 - b1)
            v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
            denom = (v / (1 - b2**self.t)).sqrt_().add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / (1 - b1**self.t))


def task(n, length, vocab, seed):
    """Label 1 when the sequence holds more 'low' tokens (1..vocab/2) than 'high' ones."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, vocab, (n, length), generator=g)
    labels = ((ids < vocab // 2 + 1).sum(1) * 2 > length).long()
    return ids, labels


def train(method, seed, *, steps, batch, length, vocab, data):
    torch.manual_seed(seed)
    model = TinyBert(vocab, length)
    if method == "WTA-CRS":
        convert_linear_layers(
            model, ratio=0.3, exclude="classifier", generator=torch.Generator().manual_seed(seed)
        )
    elif method == "CRS":
        convert_linear_layers(
            model,
            ratio=0.3,
            exclude="classifier",
            num_deterministic=0.0,
            generator=torch.Generator().manual_seed(seed),
        )
    elif method == "top-k":
        for mod in list(model.modules()):
            for child, sub in list(mod.named_children()):
                if type(sub) is nn.Linear and child != "classifier":
                    setattr(mod, child, TopKLinear.from_linear(sub, ratio=0.3))
    opt = Adam(list(model.parameters()), lr=1e-3)
    (xtr, ytr), (xte, yte) = data
    g = torch.Generator().manual_seed(seed + 100)
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, len(xtr), (batch,), generator=g)
        loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
        model.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        acc = float((model(xte).argmax(1) == yte).float().mean())
    return acc, model


def finetune_claims(args):
    torch.set_num_threads(1)  # a tiny model: more threads only contend on a shared CPU
    vocab, length = 16, 16
    seeds = (0,) if args.quick else (0, 1, 2)
    steps = 5 if args.quick else 150
    batch = 32
    data = (task(4096, length, vocab, 10), task(1000, length, vocab, 11))
    accs = {m: [] for m in ("exact", "WTA-CRS", "CRS", "top-k")}
    for seed in seeds:
        for m in accs:
            accs[m].append(
                train(m, seed, steps=steps, batch=batch, length=length, vocab=vocab, data=data)[0]
            )
    mean = {m: 100 * float(np.mean(v)) for m, v in accs.items()}
    gap = mean["exact"] - mean["WTA-CRS"]
    yield Claim(
        "tiny BERT fine-tuned with WTA-CRS (ratio 0.3) ends within 2 accuracy points of exact",
        paper="GLUE with T5/BERT: within about a point (Table 2)",
        measured=f"exact {mean['exact']:.1f}, WTA-CRS {mean['WTA-CRS']:.1f}, CRS "
        f"{mean['CRS']:.1f}, top-k {mean['top-k']:.1f} % ({len(seeds)} seeds, {steps} steps)",
        holds=None if args.quick else bool(gap <= 2.0),
        note="--quick: too few steps to judge" if args.quick else "synthetic counting task",
    )
    # whole-model saved bytes of the same classifier (all projections converted)
    ids = data[0][0][:batch]
    torch.manual_seed(0)
    model = TinyBert(vocab, length).train()
    dense_bytes = saved_activation_bytes(model, ids)
    convert_linear_layers(model, ratio=0.3, exclude="classifier")
    wta_bytes = saved_activation_bytes(model, ids)
    yield Claim.reported(
        "whole-model activation memory of the tiny BERT at ratio 0.3",
        paper="up to 2.7x peak memory reduction (T5-3B; FFN-heavy, GPU peak incl. weights)",
        measured=f"{dense_bytes / wta_bytes:.2f}x fewer saved bytes ({dense_bytes} vs {wta_bytes})",
        note="not comparable to the paper's peak memory: Q/K/V share one input that dense "
        "autograd saves once, attention/LayerNorm/GELU activations are not sampled",
    )


def claims(args):
    yield from estimator_claims(args)
    yield from memory_claim(args)
    yield from finetune_claims(args)


main = reproduce_cli(claims)  # package, paper and --help from this file and pyproject.toml
