"""Test oracle for neighborhood attention: NATTEN's FlexAttention mask_mod formulation, brute force.

Shipped (like ``torch.testing``) so that papershelf-kernels' and natten-lite's test suites, and
users checking their own kernels, share one oracle instead of copies.

Written from NATTEN's window-*center* form (w0/w1 distances to a clamped center), not from the
start/end form the package uses, and evaluated pair by pair in pure Python.
"""

import itertools
import math

import torch


def axis_ok(qi, ki, L, k, s, d, causal):
    qg, kg = qi % d, ki % d
    if qg != kg:
        return False
    q, j = qi // d, ki // d
    lg = L // d + (1 - ((qg + (d - L % d)) // d))  # NATTEN's group-length correction
    if causal:
        leader = min((q // s) * s + s - 1, lg - 1)
        return q - j >= 0 and leader - j < k
    leader = min((q // s) * s + s // 2, lg - 1)
    left, right = k // 2, k // 2 + (k % 2 - 1)
    center = min(max(leader, left), lg - 1 - right)
    w0, w1 = center - j, j - center
    return (0 <= w0 <= left) or (0 <= w1 <= right)


def oracle_mask(shape, ks, st, di, ca):
    coords = list(itertools.product(*[range(L) for L in shape]))
    N = math.prod(shape)
    rows = [
        [
            all(
                axis_ok(qc[a], kc[a], shape[a], ks[a], st[a], di[a], ca[a])
                for a in range(len(shape))
            )
            for kc in coords
        ]
        for qc in coords
    ]
    return torch.tensor(rows, dtype=torch.bool).view(N, N)


def masked_attention(q, k, v, mask, scale=None):
    """Dense masked softmax attention in fp64, heads-last in and out, with the LSE."""
    B, *shape, H, D = q.shape
    Hkv = k.shape[-2]
    N = math.prod(shape)
    scale = D**-0.5 if scale is None else scale
    qh = q.reshape(B, N, H, D).transpose(1, 2).double()
    kh = k.reshape(B, -1, Hkv, D).transpose(1, 2).double().repeat_interleave(H // Hkv, 1)
    vh = v.reshape(B, -1, Hkv, v.shape[-1]).transpose(1, 2).double().repeat_interleave(H // Hkv, 1)
    s = (qh @ kh.transpose(-1, -2)) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    lse = s.logsumexp(-1)
    o = torch.exp(s - lse[..., None]) @ vh
    return o.transpose(1, 2).reshape(B, *shape, H, -1), lse.transpose(1, 2).reshape(B, *shape, H)


def random_problem(rng, n, max_len):
    shape = [rng.randint(2, max_len) for _ in range(n)]
    ks, st, di, ca = [], [], [], []
    for L in shape:
        k = rng.randint(2, L)
        d = rng.randint(1, L // k)
        ks.append(k)
        st.append(rng.randint(1, k))
        di.append(d)
        ca.append(rng.random() < 0.3)
    return tuple(shape), tuple(ks), tuple(st), tuple(di), tuple(ca)


MAX_LEN = {1: 20, 2: 8, 3: 5}
"""Axis lengths of :func:`oracle_case` problems per dimensionality (the oracle is O(N^2) Python)."""


def oracle_case(rng, n, generator, *, max_len=None):
    """A random n-D problem (random.Random ``rng``), fp64 q/k/v from the torch ``generator``
    (2 query heads, 1 or 2 KV heads: GQA or MHA; D = 8, Dv = 6) and the oracle's answer.

    Returns ``(q, k, v, (shape, ks, st, di, ca), out, lse)``.
    """
    shape, ks, st, di, ca = random_problem(rng, n, MAX_LEN[n] if max_len is None else max_len)
    mask = oracle_mask(shape, ks, st, di, ca)
    hkv = rng.choice([1, 2])
    q = torch.randn(2, *shape, 2, 8, generator=generator, dtype=torch.float64)
    k = torch.randn(2, *shape, hkv, 8, generator=generator, dtype=torch.float64)
    v = torch.randn(2, *shape, hkv, 6, generator=generator, dtype=torch.float64)
    out, lse = masked_attention(q, k, v, mask)
    return q, k, v, (shape, ks, st, di, ca), out, lse


def assert_close(got, want, atol, msg=""):
    """max |got - want| <= atol (torch.testing.assert_close imports torch.distributed: slow)."""
    assert got.shape == want.shape, f"{msg}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    err = (got.double() - want.double()).abs().max().item()
    assert err <= atol, f"{msg}: max abs error {err:.3g} > {atol:.3g}"
