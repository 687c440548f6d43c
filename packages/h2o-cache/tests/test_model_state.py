"""Mask mode on soft-capped / sliding-window layers, restoring the model's attention, and
output_attentions."""

from __future__ import annotations

import pytest
import torch
from archs import build
from h2o_cache import H2OCache, h2o_generate, h2o_mask_mode, h2o_token_nll

IDS = torch.randint(1, 64, (1, 22), generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("name", ["gemma2", "mistral_window"])
def test_mask_mode_equals_real_eviction_with_softcap_and_sliding_window(name):
    # issue 10: mask mode ignored soft-capping and sliding windows (2.7e-3 and 0.16 off on Gemma2)
    model = build(name)
    kw = dict(prefill_len=10, heavy=3, recent=3)
    real = h2o_token_nll(model, IDS, **kw)
    mask = h2o_mask_mode(model, IDS, **kw)
    torch.testing.assert_close(mask, real, atol=1e-5, rtol=1e-5)
    full = h2o_token_nll(model, IDS, prefill_len=10, policy="full")
    assert (full - real).abs().max() > 1e-3  # eviction matters here


def test_mask_mode_refuses_models_outside_the_attention_interface():
    # it used to run them silently with their own full attention (set_attn_implementation no-op)
    with pytest.raises(NotImplementedError, match="AttentionInterface"):
        h2o_mask_mode(build("falcon"), IDS, prefill_len=10, heavy=3, recent=3)


def test_leaving_the_with_block_or_detach_restores_the_attention_implementation():
    # issue 10: H2OCache(model) switched the model's attention for good
    model = build("llama")
    assert model.config._attn_implementation == "sdpa"
    with H2OCache(model, heavy=3, recent=3) as cache:
        assert model.config._attn_implementation == "h2o"
        model(input_ids=IDS[:, :12], cache=cache)
        other = H2OCache(model, heavy=2, recent=2)  # a second cache on the same model
        other.detach()
        assert model.config._attn_implementation == "h2o"  # still needed by `cache`
        model(input_ids=IDS[:, 12:13], cache=cache)
    assert model.config._attn_implementation == "sdpa"
    assert cache.kv_lengths() == [6, 6]  # the contents stay
    cache.detach()  # idempotent
    eager = build("llama", attn_implementation="eager")
    c2 = H2OCache(eager, heavy=3, recent=3)
    c2.detach()
    assert eager.config._attn_implementation == "eager"


def test_helpers_leave_the_attention_implementation_unchanged():
    model = build("llama")
    h2o_token_nll(model, IDS, prefill_len=10, heavy=3, recent=3)
    assert model.config._attn_implementation == "sdpa"
    h2o_generate(model, IDS[:, :10], max_new_tokens=3, heavy=3, recent=3)
    assert model.config._attn_implementation == "sdpa"


@pytest.mark.parametrize("attention", ["auto", "eager"])
def test_output_attentions_returns_the_weights_over_the_kept_entries(attention):
    # issue 10: output_attentions=True silently returned nothing on the fused path
    model = build("llama")
    cache = H2OCache(model, heavy=3, recent=3, attention=attention)
    model(input_ids=IDS[:, :10], cache=cache)
    out = model(input_ids=IDS[:, 10:11], cache=cache, output_attentions=True)
    assert cache.kv_lengths() == [6, 6]
    att = out.attentions
    assert len(att) == 2
    for a in att:
        assert a.shape == (1, 4, 1, 7)  # (B, H, q, kept + q) before this step's eviction
        torch.testing.assert_close(a.sum(-1), torch.ones(1, 4, 1))


def test_a_new_cache_reattaches_a_model_switched_away_meanwhile():
    model = build("llama")
    first = H2OCache(model, heavy=3, recent=3)
    model.set_attn_implementation("sdpa")  # by hand, while `first` is still attached
    with H2OCache(model, heavy=3, recent=3) as cache:
        assert model.config._attn_implementation == "h2o"
        model(input_ids=IDS[:, :12], cache=cache)
        model(input_ids=IDS[:, 12:13], cache=cache)
    first.detach()
    assert model.config._attn_implementation == "sdpa"
