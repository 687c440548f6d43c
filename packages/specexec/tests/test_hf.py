"""Hugging Face models: greedy identity (check 2), tree attention (check 3), KV-cache pruning."""

import numpy as np
import pytest
import specexec as sx
from conftest import draft_of, tiny_llama
from specexec.models import HFSession, prune_cache
from specexec.tree import build_tree

torch = pytest.importorskip("torch")


def fresh_next_logits(model, tokens):
    with torch.no_grad():
        return model(torch.tensor([tokens])).logits[0, -1]


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_greedy_specexec_equals_target_generate(attn):
    """Brief check 2: 4-layer target, 1-layer draft, 64 new tokens, token for token."""
    target = tiny_llama(4, seed=0, attn=attn)
    draft = draft_of(target, attn=attn)
    ids = torch.tensor([[5, 17, 33, 2, 9, 41, 12]])
    with torch.no_grad():
        ref = target.generate(
            ids, max_new_tokens=64, do_sample=False, eos_token_id=None, pad_token_id=0
        )[0, ids.shape[1] :]
        out, stats = sx.specexec_generate(target, draft, ids, 64, budget=32, temperature=0)
    assert out.shape == (64,) and out.dtype == np.int64
    assert out.tolist() == ref.tolist()
    assert stats.target_calls < 64 and stats.tokens_per_call > 1


def test_greedy_baselines_equal_target_generate(hf_pair):
    target, draft = hf_pair
    ids = torch.tensor([3, 14, 15, 9, 26])
    with torch.no_grad():
        ref = target.generate(
            ids[None], max_new_tokens=40, do_sample=False, eos_token_id=None, pad_token_id=0
        )[0, 5:]
        chain, cst = sx.chain_speculative_generate(target, draft, ids, 40, gamma=5, temperature=0)
        ar, ast = sx.autoregressive_generate(target, ids, 40, temperature=0)
        # a random, unrelated draft changes only the speed
        other = tiny_llama(1, seed=7)
        sxo, _ = sx.specexec_generate(target, other, ids, 40, budget=16, temperature=0)
    assert chain.shape == (40,)
    assert chain.tolist() == ar.tolist() == sxo.tolist() == ref.tolist()
    assert ast.target_calls == 40 and cst.target_calls < 40


def test_tree_attention_logits_equal_path_forwards(hf_pair):
    """Brief check 3: every tree node's logits under the 4-D mask = a causal forward of its path."""
    target, draft = hf_pair
    prompt = [7, 3, 22, 9, 1, 30]
    with torch.no_grad():
        dses = HFSession(draft, prompt)
        seen = {}

        def fn(tree, ids):
            out = dses.score(tree, ids)
            for i, row in zip(ids.tolist(), out):
                seen[i] = (tree.path_tokens(i).tolist() if i >= 0 else [], row.clone())
            return out

        tree = build_tree(fn, prompt, 40, branch_width=4, max_expand=8)
        assert len(tree) == 40 and tree.depth >= 3
        tses = HFSession(target, prompt)
        logits = tses.score(tree, np.arange(-1, len(tree)))
        assert logits.shape == (41, 64)
        worst = (logits[0] - fresh_next_logits(target, prompt)).abs().max()
        for i in range(len(tree)):
            ref = fresh_next_logits(target, prompt + tree.path_tokens(i).tolist())
            worst = max(worst, (logits[i + 1] - ref).abs().max())
        # the draft's incremental scoring (several calls sharing one cache) is exact too
        for path, row in seen.values():
            worst = max(worst, (row - fresh_next_logits(draft, prompt + path)).abs().max())
    assert worst < 1e-4, worst


def test_cache_pruned_to_accepted_path_matches_fresh_forward(hf_pair):
    """After each pass the pruned KV cache gives the same next logits as a fresh forward."""
    target, draft = hf_pair
    prompt = [4, 8, 15, 16, 23, 42]
    rng = np.random.default_rng(0)
    with torch.no_grad():
        tses, dses = HFSession(target, prompt), HFSession(draft, prompt)
        accepted_lengths = []
        for _ in range(6):
            tree = build_tree(dses.score, np.array(tses.seq), 24, branch_width=4)
            logits = tses.score(tree, np.arange(-1, len(tree)))
            acc, extra, ids = sx.validate_tree(tree, logits, rng=rng)
            new = acc.tolist() + [extra]
            tses.commit(new, ids)
            dses.commit(new, ids)
            accepted_lengths.append(len(ids))
            for ses, model in ((tses, target), (dses, draft)):
                assert ses.cache.get_seq_length() == ses.committed <= len(ses.seq) - 1
                empty = sx.DraftTree.empty()
                got = ses.score(empty, [-1])[0]
                ref = fresh_next_logits(model, ses.seq)
                assert (got - ref).abs().max() < 1e-4
                # score() cached the root: drop it again so the next pass starts as usual
                ses.commit([], ())
                ses.committed = len(ses.seq) - 1
                prune_cache(ses.cache, list(range(ses.committed)))
        assert max(accepted_lengths) >= 1  # some pass kept a non-contiguous tree path


def test_prune_cache_gathers_positions():
    from transformers import DynamicCache

    cache = DynamicCache()
    k = torch.arange(2 * 3 * 6 * 4, dtype=torch.float32).reshape(2, 3, 6, 4)
    for layer in range(2):
        cache.update(k + layer, -k - layer, layer)
    prune_cache(cache, [0, 2, 5])
    assert cache.get_seq_length() == 3
    for layer in range(2):
        keys = cache.layers[layer].keys if hasattr(cache, "layers") else cache.key_cache[layer]
        torch.testing.assert_close(keys, (k + layer)[:, :, [0, 2, 5]])


def test_sampling_on_hf_is_reproducible_and_seeded(hf_pair):
    target, draft = hf_pair
    with torch.no_grad():
        a, _ = sx.specexec_generate(target, draft, [1, 2, 3], 20, budget=16, rng=5)
        b, _ = sx.specexec_generate(target, draft, [1, 2, 3], 20, budget=16, rng=5)
    assert isinstance(a, np.ndarray) and np.array_equal(a, b)


@pytest.mark.slow
def test_hf_two_token_distribution_is_target():
    """Sampling exactness on an HF pair: joint of the first 2 tokens vs the target (3000 runs)."""
    from scipy import stats as sps

    target = tiny_llama(2, seed=3, vocab=5)
    draft = tiny_llama(1, seed=4, vocab=5)
    prompt = [1, 4, 2]
    temp, top_p = 0.8, 0.9
    with torch.no_grad():
        q1 = sx.warp_probs(
            fresh_next_logits(target, prompt).double().numpy(), temperature=temp, top_p=top_p
        )
        joint = np.zeros((5, 5))
        for a in range(5):
            row = fresh_next_logits(target, prompt + [a]).double().numpy()
            joint[a] = q1[a] * sx.warp_probs(row, temperature=temp, top_p=top_p)
        counts = np.zeros((5, 5))
        for s in range(3000):
            t, _ = sx.specexec_generate(
                target, draft, prompt, 2, budget=6, temperature=temp, top_p=top_p, rng=s
            )
            counts[t[0], t[1]] += 1
    nz = joint.ravel() > 0
    assert counts.ravel()[~nz].sum() == 0
    exp = joint.ravel()[nz] * counts.sum()
    stat = ((counts.ravel()[nz] - exp) ** 2 / exp).sum()
    assert sps.chi2.sf(stat, nz.sum() - 1) > 1e-3, stat


def test_hf_vocab_mismatch_and_out_of_vocab_prompt():
    """Regression: a draft with a larger vocabulary than the target raised IndexError inside
    the target's embedding; an out-of-vocabulary prompt id did too."""
    target = tiny_llama(1, seed=0, vocab=64)
    big = tiny_llama(1, seed=1, vocab=80)
    with torch.no_grad():
        for fn in (sx.specexec_generate, sx.chain_speculative_generate):
            with pytest.raises(ValueError, match="vocabularies differ"):
                fn(target, big, [1, 2, 3], 4, rng=0)
        with pytest.raises(ValueError, match="input_ids contains token id 70"):
            sx.specexec_generate(target, target, [1, 70], 4, temperature=0)
        with pytest.raises(ValueError, match="input_ids contains token id 64"):
            sx.autoregressive_generate(target, torch.tensor([[64]]), 2)


def test_flash_attention_is_refused():
    model = tiny_llama(1, seed=0)
    model.config._attn_implementation = "flash_attention_2"
    with pytest.raises(ValueError, match="4-D masks"):
        sx.specexec_generate(model, model, [1, 2], 4)
