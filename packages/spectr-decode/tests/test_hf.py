"""SpecTr on Hugging Face Llama models (brief checks 6-7); skipped where transformers is absent.

Run them with the `test-hf` dependency group (torch + transformers + papershelf-tinylm):
``uv sync --package spectr-decode --group test-hf && pytest tests/test_hf.py``.
"""

import numpy as np
import pytest
from scipy import stats

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

import spectr_decode as sd  # noqa: E402
from spectr_decode.decode import _HFLM, _CallableLM  # noqa: E402

from papershelf_harness.tiny_hf import tiny_causal_lm  # noqa: E402

V = 64


def _llama(layers, seed, init=0.2):
    return tiny_causal_lm(
        "llama",
        n_layers=layers,
        seed=seed,
        vocab=V,
        num_key_value_heads=4,
        initializer_range=init,
        tie_word_embeddings=False,
    )


@pytest.fixture(scope="module")
def pair():
    torch.set_num_threads(1)
    return _llama(4, 0), _llama(1, 1)


def _full_logprobs(model):
    def fn(prefixes):
        with torch.no_grad():
            out = model(torch.as_tensor(prefixes)).logits[:, -1]
        return torch.log_softmax(out.double(), -1).numpy()

    return fn


def test_kv_cache_reuse_and_crop_match_full_recompute(pair):
    target, _ = pair
    hf, ref = _HFLM(target, "t"), _CallableLM(_full_logprobs(target), "t")
    rng = np.random.default_rng(0)
    prompt = rng.integers(0, V, size=(1, 5))
    np.testing.assert_allclose(hf.forward(prompt, 0), ref.forward(prompt, 0), atol=1e-4)
    drafts = rng.integers(0, V, size=(3, 4))  # batch of 3 continuations from a batch-1 cache
    np.testing.assert_allclose(hf.forward(drafts, 5), ref.forward(drafts, 5), atol=1e-4)
    hf.keep(2, 7), ref.keep(2, 7)  # keep row 2 and its first 2 draft tokens
    nxt = rng.integers(0, V, size=(1, 2))
    np.testing.assert_allclose(hf.forward(nxt, 7), ref.forward(nxt, 7), atol=1e-4)
    assert hf.cached_len == 9 and hf.cache.get_seq_length() == 9


def test_check6_greedy_identity_with_target(pair):
    target, draft = pair
    prompt = torch.tensor([[1, 5, 9, 2]])
    ref = target.generate(
        prompt,
        max_new_tokens=64,
        min_new_tokens=64,
        do_sample=False,
        eos_token_id=None,
        pad_token_id=0,
    )[0, 4:].tolist()
    toks, st = sd.spectr_generate(target, draft, prompt, 64, k=4, L=4, temperature=0)
    assert toks.tolist() == ref
    ar, _ = sd.autoregressive_generate(target, prompt, 64, temperature=0)
    assert ar.tolist() == ref
    sp, _ = sd.speculative_generate(target, draft, prompt, 64, L=3, temperature=0)
    assert sp.tolist() == ref
    assert st.target_calls <= 64 and st.new_tokens == 64


def test_callable_and_hf_backends_agree(pair):
    target, draft = pair
    a, _ = sd.spectr_generate(target, draft, [3, 4], 20, k=2, L=3, temperature=0)
    b, _ = sd.spectr_generate(
        _full_logprobs(target), _full_logprobs(draft), [3, 4], 20, k=2, L=3, temperature=0
    )
    assert a.tolist() == b.tolist()


def _first_token_chi2(target, draft, n, seed):
    prompt = [7, 3, 11]
    with torch.no_grad():
        q = torch.softmax(target(torch.tensor([prompt])).logits[0, -1].double(), -1).numpy()
    rng = np.random.default_rng(seed)
    counts = np.zeros(V)
    for _ in range(n):
        toks, _ = sd.spectr_generate(target, draft, prompt, 1, k=4, L=1, rng=rng)
        counts[toks[0]] += 1
    top = np.argsort(-q)[:20]
    rest = np.setdiff1d(np.arange(V), top)
    obs = np.append(counts[top], counts[rest].sum())
    exp = n * np.append(q[top], q[rest].sum())
    return stats.chisquare(obs, exp).pvalue


def test_check7_sampling_exactness_small(pair):
    target, draft = pair
    assert _first_token_chi2(target, draft, 1500, 0) > 1e-3


@pytest.mark.slow
def test_check7_sampling_exactness_2e4(pair):
    target, draft = pair
    assert _first_token_chi2(target, draft, 20_000, 1) > 1e-3


def test_vocab_mismatch_and_bad_prompt_give_clear_errors(pair):
    # regression: a draft with a larger vocabulary sent out-of-range ids into the target's
    # embedding (IndexError on CPU, device-side assert on GPU); so did an out-of-range prompt id
    target, _ = pair
    torch.manual_seed(2)
    cfg = transformers.LlamaConfig(
        vocab_size=V + 8,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        max_position_embeddings=64,
    )
    big = transformers.LlamaForCausalLM(cfg).eval()
    for tgt, drf in [(target, big), (big, target)]:
        with pytest.raises(ValueError, match="vocabularies differ"):
            sd.spectr_generate(tgt, drf, [1, 2], 4, rng=0)
    with pytest.raises(ValueError, match="input_ids contain token"):
        sd.spectr_generate(target, target, [1, V + 3], 4, rng=0)
    with pytest.raises(ValueError, match="input_ids contain token"):
        sd.autoregressive_generate(target, [V], 4, rng=0)


def _windowed(kind, layers, seed, window=8):
    """Random-init sliding-window LMs: Mistral (every layer local) and Gemma2 / Qwen2 (local and
    global layers mixed)."""
    return tiny_causal_lm(kind, n_layers=layers, seed=seed, vocab=V, window=window)


@pytest.mark.parametrize("kind", ["mistral", "gemma2", "qwen2"])
def test_sliding_window_models_match_the_target(kind):
    """Regression (issue 10): with a sliding window, the batched draft rows and the cache crop
    failed mid-generation ("crop was called, but the current layer does not track past
    states"). Greedy output must equal plain greedy decoding by full forwards, and the reused,
    cropped cache must give the logits of a full recomputation past the window."""
    target, draft = _windowed(kind, 3, 0), _windowed(kind, 1, 1)
    # the draft shares the target's embeddings, first layer, norm and head: it agrees often
    draft.load_state_dict({k: v for k, v in target.state_dict().items() if k in draft.state_dict()})
    prompt = [5, 17, 33, 2, 9, 41]  # W = 8: exceeded after 3 new tokens
    seq = list(prompt)
    with torch.no_grad():
        for _ in range(24):
            seq.append(int(target(torch.tensor([seq])).logits[0, -1].argmax()))
        toks, st = sd.spectr_generate(target, draft, prompt, 24, k=3, L=3, temperature=0)
        sampled, _ = sd.spectr_generate(target, draft, prompt, 24, k=3, L=3, rng=0)
    assert toks.tolist() == seq[len(prompt) :] and st.target_calls < 24
    assert sampled.shape == (24,)
    hf, ref = _HFLM(target, "t"), _CallableLM(_full_logprobs(target), "t")
    rng = np.random.default_rng(0)
    start = rng.integers(0, V, size=(1, 7))
    np.testing.assert_allclose(hf.forward(start, 0), ref.forward(start, 0), atol=1e-4)
    length = 7
    for _ in range(4):  # k rows of 3 draft tokens, keep row 1 and 2 of its tokens
        rows = rng.integers(0, V, size=(3, 3))
        np.testing.assert_allclose(hf.forward(rows, length), ref.forward(rows, length), atol=1e-4)
        hf.keep(1, length + 2), ref.keep(1, length + 2)
        length += 2
        one = rng.integers(0, V, size=(1, 1))
        np.testing.assert_allclose(hf.forward(one, length), ref.forward(one, length), atol=1e-4)
        length += 1
    assert length > 8
