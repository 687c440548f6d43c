"""H2OCache on tiny random configs of many architectures, fused and eager, against the
mask-based reference (full cache, evicted positions masked per layer and KV head)."""

from __future__ import annotations

import warnings

import pytest
import torch
from archs import CONFIGS, build
from h2o_cache import H2OCache
from reference import h2o_logits, reference_logits

FAST = ["llama", "mistral_window", "gemma2", "gpt2", "falcon", "bloom"]
SLOW = [name for name in CONFIGS if name not in FAST]
IDS = torch.randint(1, 64, (1, 22), generator=torch.Generator().manual_seed(0))


def _check_against_reference(name, attention, heavy=3, recent=3, prefill=10):
    ref, kept = reference_logits(
        build(name, attn_implementation="eager"), IDS, prefill, heavy, recent
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the hooks notice (Falcon, Bloom)
        got, cache = h2o_logits(build(name), IDS, prefill, heavy, recent, attention=attention)
    torch.testing.assert_close(got, ref, atol=2e-5, rtol=1e-5)
    for li, k in enumerate(kept):
        pos = cache.kept_positions(li)  # (1, Hkv, m)
        for h in range(pos.shape[1]):
            assert pos[0, h].tolist() == torch.nonzero(k[0, h]).flatten().tolist()
    assert set(cache.kv_lengths()) == {heavy + recent}
    # eviction matters here: the full cache gives different logits
    full = build(name)(input_ids=IDS).logits[:, prefill - 1 : -1].float()
    assert (full - ref).abs().max() > 1e-3
    return cache


@pytest.mark.parametrize("attention", ["auto", "eager"])
@pytest.mark.parametrize("name", FAST)
def test_matches_mask_reference(name, attention):
    cache = _check_against_reference(name, attention)
    if name in ("falcon", "bloom"):
        assert cache.mode == "hooks"
    elif name == "gemma2" or attention == "eager":
        assert cache.mode == "eager"  # soft-capping: exact eager attention
    else:
        assert cache.mode == "fused"


@pytest.mark.slow
@pytest.mark.parametrize("attention", ["auto", "eager"])
@pytest.mark.parametrize("name", SLOW)
def test_matches_mask_reference_more_architectures(name, attention):
    _check_against_reference(name, attention)


@pytest.mark.parametrize("attention", ["auto", "eager"])
def test_sliding_window_masks_by_kept_position(attention):
    # issue 10: after eviction the window was applied to the last W-1 KEPT entries instead of to
    # positions, so tokens outside the window were attended (Mistral W=8, heavy=6, recent=3)
    _check_against_reference("mistral_window", attention, heavy=6, recent=3, prefill=12)


@pytest.mark.parametrize("name", ["falcon", "bloom", "gpt_neox"])
def test_models_passing_the_cache_as_layer_past_run_with_eviction(name):
    # issue 10: the eager hook looked the cache up under keyword names, so models passing it as
    # `layer_past` crashed on the second forward
    _check_against_reference(name, "eager")


def test_attention_implementation_that_cannot_give_weights_is_refused_up_front():
    # issue 10: Falcon's set_attn_implementation("eager") does nothing; a model whose attention
    # cannot return its weights must be refused when the cache is built, not at the 2nd forward
    model = build("falcon")
    model.config._attn_implementation_internal = "flash_attention_2"
    with pytest.raises(NotImplementedError, match="attn_implementation"):
        H2OCache(model, heavy=2, recent=2)


def test_falcon_on_sdpa_is_asked_for_its_weights():
    model = build("falcon")
    assert (
        model.config._attn_implementation == "sdpa"
    )  # and set_attn_implementation cannot change it
    with pytest.warns(RuntimeWarning, match="hooks"):
        cache = H2OCache(model, heavy=2, recent=2)
    pos = torch.arange(12)[None]
    model(input_ids=IDS[:, :8], position_ids=pos[:, :8], cache=cache)
    model(input_ids=IDS[:, 8:9], position_ids=pos[:, 8:9], cache=cache)
    assert cache.kv_lengths() == [4, 4]
