"""H2OCache on tiny random-init Llama models: exactness, budgets, positions, batch, GQA, fallback."""

from __future__ import annotations

import pytest
import torch
from conftest import tiny_llama
from h2o_cache import H2OCache, h2o_generate, h2o_mask_mode, h2o_perplexity, h2o_token_nll
from transformers import DynamicCache


def test_budget_at_least_length_is_exactly_the_full_cache(model, ids):
    ref = model.generate(ids[:, :12], max_new_tokens=12, do_sample=False)
    cache = H2OCache(model, heavy=64, recent=64)
    out = model.generate(ids[:, :12], max_new_tokens=12, do_sample=False, cache=cache)
    assert torch.equal(out, ref)
    assert cache.kv_lengths() == [23, 23]
    full = h2o_token_nll(model, ids, prefill_len=10, policy="full")
    big = h2o_token_nll(model, ids, prefill_len=10, heavy=64, recent=64)
    torch.testing.assert_close(big, full, atol=2e-5, rtol=1e-5)


def test_small_budget_changes_the_output(model, ids):
    full = h2o_token_nll(model, ids, prefill_len=16, policy="full")
    small = h2o_token_nll(model, ids, prefill_len=16, heavy=2, recent=2)
    assert (small - full).abs().max() > 1e-3


def test_cache_never_exceeds_budget_and_evicted_positions_never_return(model, ids):
    heavy, recent = 3, 4
    cache = H2OCache(model, heavy=heavy, recent=recent)
    pos = torch.arange(ids.shape[1])[None].expand(2, -1)
    model(input_ids=ids[:, :10], position_ids=pos[:, :10], cache=cache)
    evicted = [set() for _ in range(2)]
    prev = [cache.kept_positions(i).clone() for i in range(2)]
    for t in range(10, 30):
        model(input_ids=ids[:, t : t + 1], position_ids=pos[:, t : t + 1], cache=cache)
        assert cache.kv_lengths() == [heavy + recent] * 2
        assert cache.get_seq_length() == t + 1
        for li in range(2):
            kp = cache.kept_positions(li)  # (B, Hkv, m)
            assert torch.all(kp[..., 1:] > kp[..., :-1])  # sorted, unique
            assert torch.equal(
                kp[..., -recent:], torch.arange(t + 1 - recent, t + 1).expand(2, 2, recent)
            )
            gone = set(prev[li].flatten().tolist()) - set(kp.flatten().tolist())
            evicted[li] |= gone
            assert not (set(kp.flatten().tolist()) & evicted[li] - set(prev[li].flatten().tolist()))
            for b in range(2):
                for h in range(2):
                    before = set(prev[li][b, h].tolist())
                    now = set(kp[b, h].tolist())
                    assert now <= before | {t}  # only the new token can join
            prev[li] = kp.clone()


def test_kept_keys_are_stored_rope_keys_at_their_absolute_positions(model, ids):
    """No re-rotation: layer 0's kept keys equal the full cache's keys at the kept positions (deeper
    layers' keys depend on earlier layers' outputs, which eviction changes)."""
    full = DynamicCache(config=model.config)
    model(input_ids=ids[:, :30], cache=full)
    cache = H2OCache(model, heavy=4, recent=3)
    pos = torch.arange(30)[None].expand(2, -1)
    model(input_ids=ids[:, :12], position_ids=pos[:, :12], cache=cache)
    for t in range(12, 30):
        model(input_ids=ids[:, t : t + 1], position_ids=pos[:, t : t + 1], cache=cache)
    kp = cache.kept_positions(0)
    assert kp.max() > 20 and kp.min() < 12  # both old heavy hitters and recent tokens
    k_full = full.layers[0].keys  # (B, Hkv, 30, D)
    expect = k_full.gather(2, kp[..., None].expand(*kp.shape, k_full.shape[-1]))
    torch.testing.assert_close(cache.layers[0].keys, expect, atol=1e-5, rtol=1e-5)


def test_model_generate_matches_explicit_decode_loop_after_eviction(model, ids):
    prompt = ids[:1, :16]
    cache = H2OCache(model, heavy=3, recent=3)
    out = model.generate(prompt, max_new_tokens=14, do_sample=False, cache=cache)
    ours = h2o_generate(model, prompt, max_new_tokens=14, heavy=3, recent=3)
    assert torch.equal(out, ours)
    assert cache.kv_lengths() == [6, 6]


def test_batch_with_left_padding_matches_rows_run_alone(model):
    g = torch.Generator().manual_seed(5)
    a, b = torch.randint(1, 64, (1, 14), generator=g), torch.randint(1, 64, (1, 9), generator=g)
    pad = torch.zeros(1, 5, dtype=torch.long)
    batch = torch.cat([a, torch.cat([pad, b], 1)])
    mask = torch.ones_like(batch)
    mask[1, :5] = 0
    for budget in [(3, 3), (2, 5)]:
        out = h2o_generate(
            model, batch, max_new_tokens=10, heavy=budget[0], recent=budget[1], attention_mask=mask
        )
        alone_a = h2o_generate(model, a, max_new_tokens=10, heavy=budget[0], recent=budget[1])
        alone_b = h2o_generate(model, b, max_new_tokens=10, heavy=budget[0], recent=budget[1])
        assert torch.equal(out[0], alone_a[0])
        assert torch.equal(out[1, 5:], alone_b[0])
        cache = H2OCache(model, heavy=budget[0], recent=budget[1])
        gen = model.generate(
            batch, attention_mask=mask, max_new_tokens=10, do_sample=False, cache=cache
        )
        assert torch.equal(gen, out)


def test_left_padding_kept_past_prefill_stays_masked(model):
    # regression: with a budget larger than the padded prompt, the padding is not evicted at
    # prefill; it must stay masked at every later step (it was attended after the first step)
    g = torch.Generator().manual_seed(7)
    a, b = torch.randint(1, 64, (1, 14), generator=g), torch.randint(1, 64, (1, 9), generator=g)
    batch = torch.cat([a, torch.cat([torch.zeros(1, 5, dtype=torch.long), b], 1)])
    mask = torch.ones_like(batch)
    mask[1, :5] = 0
    for budget in [(8, 8), (20, 20)]:  # eviction starts during decoding / never happens
        cache = H2OCache(model, heavy=budget[0], recent=budget[1])
        gen = model.generate(
            batch, attention_mask=mask, max_new_tokens=10, do_sample=False, cache=cache
        )
        alone_b = h2o_generate(model, b, max_new_tokens=10, heavy=budget[0], recent=budget[1])
        assert torch.equal(gen[1, 5:], alone_b[0])
        assert torch.equal(
            h2o_generate(
                model,
                batch,
                max_new_tokens=10,
                heavy=budget[0],
                recent=budget[1],
                attention_mask=mask,
            ),
            gen,
        )
    full = model.generate(batch, attention_mask=mask, max_new_tokens=10, do_sample=False)
    assert torch.equal(gen, full)  # budget 40 >= length: the full cache


@pytest.mark.parametrize("policy", ["h2o", "local"])
def test_mask_mode_equals_real_eviction(model, ids, policy):
    real = h2o_token_nll(model, ids, prefill_len=12, heavy=3, recent=4, policy=policy)
    mask = h2o_mask_mode(model, ids, prefill_len=12, heavy=3, recent=4, policy=policy)
    torch.testing.assert_close(mask, real, atol=1e-5, rtol=1e-5)


def test_mask_mode_equals_real_eviction_mean_scores_and_ratio(model, ids):
    real = h2o_token_nll(
        model, ids, prefill_len=20, ratio=(0.15, 0.1), score_mode="mean", gqa_reduce="mean"
    )
    mask = h2o_mask_mode(
        model, ids, prefill_len=20, ratio=(0.15, 0.1), score_mode="mean", gqa_reduce="mean"
    )
    torch.testing.assert_close(mask, real, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("n_heads,n_kv", [(4, 4), (4, 1)])
def test_mha_and_mqa(n_heads, n_kv, ids):
    m = tiny_llama(n_heads=n_heads, n_kv=n_kv, layers=1)
    real = h2o_token_nll(m, ids, prefill_len=12, heavy=2, recent=3)
    mask = h2o_mask_mode(m, ids, prefill_len=12, heavy=2, recent=3)
    torch.testing.assert_close(mask, real, atol=1e-5, rtol=1e-5)


def _real_eviction_nll(m, ids, cache, prefill=12):
    pos = torch.arange(ids.shape[1])[None].expand(ids.shape[0], -1)
    out = m(input_ids=ids[:, :prefill], position_ids=pos[:, :prefill], cache=cache)
    logits = [out.logits[:, -1]]
    for t in range(prefill, ids.shape[1] - 1):
        out = m(input_ids=ids[:, t : t + 1], position_ids=pos[:, t : t + 1], cache=cache)
        logits.append(out.logits[:, -1])
    return torch.nn.functional.cross_entropy(
        torch.stack(logits, 2), ids[:, prefill:], reduction="none"
    )


def test_eager_mode_matches_fused_path(ids):
    fused = h2o_token_nll(tiny_llama(), ids, prefill_len=12, heavy=3, recent=3)
    m = tiny_llama()
    cache = H2OCache(m, heavy=3, recent=3, attention="eager")
    assert m.config._attn_implementation == "h2o" and cache.mode == "eager"
    nll = _real_eviction_nll(m, ids, cache)
    torch.testing.assert_close(nll, fused, atol=1e-4, rtol=1e-4)
    assert cache.kv_lengths() == [6, 6]


def test_model_outside_the_attention_interface_uses_hooks_with_a_warning(monkeypatch, ids):
    fused = h2o_token_nll(tiny_llama(), ids, prefill_len=12, heavy=3, recent=3)
    m = tiny_llama()
    m.set_attn_implementation("eager")
    monkeypatch.setattr(type(m), "_can_set_attn_implementation", classmethod(lambda cls: False))
    with pytest.raises(NotImplementedError, match="fused"):
        H2OCache(m, heavy=2, recent=2, attention="fused")
    with pytest.warns(RuntimeWarning, match="hooks"):
        cache = H2OCache(m, heavy=3, recent=3)
    assert cache.mode == "hooks" and m.config._attn_implementation == "eager"
    torch.testing.assert_close(_real_eviction_nll(m, ids, cache), fused, atol=1e-4, rtol=1e-4)
    cache.detach()
    m.config._attn_implementation_internal = "sdpa"  # cannot return weights: refused up front
    with pytest.raises(NotImplementedError, match="attn_implementation='eager'"):
        H2OCache(m, heavy=3, recent=3)


def test_model_not_on_h2o_attention_raises_a_clear_error(ids):
    m = tiny_llama()
    cache = H2OCache(heavy=2, recent=2)  # no model: it must already run attn_implementation="h2o"
    m(input_ids=ids[:, :8], cache=cache)
    with pytest.raises(RuntimeError, match="attn_implementation='h2o'"):
        m(input_ids=ids[:, 8:9], cache=cache)


def test_model_on_h2o_behaves_like_sdpa_without_an_h2o_cache(model, ids):
    ref = model(input_ids=ids).logits
    model.set_attn_implementation("h2o")
    torch.testing.assert_close(model(input_ids=ids).logits, ref)
    full = DynamicCache(config=model.config)
    torch.testing.assert_close(model(input_ids=ids, cache=full).logits, ref)


def test_perplexity_policies_and_memory(model, ids):
    ppl = {
        p: h2o_perplexity(model, ids, prefill_len=16, heavy=3, recent=3, policy=p)
        for p in ["full", "h2o", "local", "random"]
    }
    assert all(v > 1 for v in ppl.values())
    _, cache = h2o_generate(
        model, ids[:, :16], max_new_tokens=4, heavy=3, recent=3, return_cache=True
    )
    # 2 layers x (K + V) x B=2 x Hkv=2 x 6 kept x head_dim 8 x 4 bytes
    assert cache.memory_bytes() == 2 * 2 * 2 * 2 * 6 * 8 * 4


def test_bad_arguments(model, ids):
    with pytest.raises(TypeError, match="model"):
        H2OCache(3, heavy=3, recent=3)
    with pytest.raises(ValueError, match="heavy"):
        H2OCache(model, heavy=-1, recent=2)
    with pytest.raises(ValueError, match="attention"):
        H2OCache(model, heavy=1, recent=2, attention="flash")
    with pytest.raises(ValueError, match="prefill_len"):
        h2o_perplexity(model, ids, prefill_len=40, heavy=2, recent=2)
    with pytest.raises(ValueError, match="policy"):
        h2o_perplexity(model, ids, prefill_len=10, heavy=2, recent=2, policy="lru")
    with pytest.raises(TypeError, match="ids"):
        h2o_perplexity(model, ids.float(), prefill_len=10, heavy=2, recent=2)
    with pytest.raises(ValueError, match="max_new_tokens"):
        h2o_generate(model, ids, max_new_tokens=-1, heavy=2, recent=2)
    with pytest.raises(ValueError, match="attention_mask"):
        h2o_generate(
            model,
            ids,
            max_new_tokens=2,
            heavy=2,
            recent=2,
            attention_mask=torch.ones(1, 3, dtype=torch.long),
        )
    cache = H2OCache(model, heavy=2, recent=2)
    model(input_ids=ids[:, :5], cache=cache)
    with pytest.raises(NotImplementedError, match="beam"):
        cache.reorder_cache(torch.tensor([0, 1]))
    with pytest.raises(NotImplementedError, match="crop"):
        cache.crop(-1)
