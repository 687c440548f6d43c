"""Left-padded batches: every row generates exactly what it generates alone, in every mode."""

from __future__ import annotations

import warnings

import pytest
import torch
from archs import build
from h2o_cache import H2OCache

G = torch.Generator().manual_seed(5)
A = torch.randint(1, 64, (1, 14), generator=G)
B = torch.randint(1, 64, (1, 9), generator=G)
BATCH = torch.cat([A, torch.cat([torch.zeros(1, 5, dtype=torch.long), B], 1)])
MASK = torch.ones_like(BATCH)
MASK[1, :5] = 0


def _generate(model, ids, mask, **cache_kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the hooks notice (Falcon, Bloom)
        cache = H2OCache(model, **cache_kwargs)
    return model.generate(ids, attention_mask=mask, max_new_tokens=10, do_sample=False, cache=cache)


@pytest.mark.parametrize("budget", [(3, 3), (8, 4)])  # (8, 4): padding is still held at decode
@pytest.mark.parametrize(
    "name,attention",
    [
        ("gpt2", "eager"),
        ("llama", "eager"),
        ("gpt2", "auto"),
        ("bloom", "auto"),
        ("falcon", "auto"),
    ],
)
def test_left_padded_rows_match_rows_run_alone(name, attention, budget):
    # issue 10: under eager the padding keys got probability mass (padding query rows and
    # transformers' contiguous mask after eviction), so a padding key survived as a heavy hitter
    model = build(name)
    kw = dict(heavy=budget[0], recent=budget[1], attention=attention)
    out = _generate(model, BATCH, MASK, **kw)
    alone_a = _generate(model, A, torch.ones_like(A), **kw)
    alone_b = _generate(model, B, torch.ones_like(B), **kw)
    assert torch.equal(out[0], alone_a[0])
    assert torch.equal(out[1, 5:], alone_b[0])


@pytest.mark.parametrize("attention", ["auto", "eager"])
def test_ratio_budget_in_a_padded_batch_is_resolved_per_row(attention):
    # issue 10: ratio budgets were resolved from the padded length, so a short row kept more
    # than it keeps alone
    model = build("llama")
    kw = dict(ratio=(0.2, 0.2), attention=attention)
    out = _generate(model, BATCH, MASK, **kw)
    alone_a = _generate(model, A, torch.ones_like(A), **kw)
    alone_b = _generate(model, B, torch.ones_like(B), **kw)
    assert torch.equal(out[0], alone_a[0])
    assert torch.equal(out[1, 5:], alone_b[0])
