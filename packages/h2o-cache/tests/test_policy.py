"""The policy core against a plain-Python transcription of the paper's real-drop algorithm."""

from __future__ import annotations

import pytest
import torch
from h2o_cache import H2OState, select_keep
from hypothesis import given, settings
from hypothesis import strategies as st


def naive_keep(scores, heavy, recent):
    """Python lists: keep the last `recent`, plus the `heavy` largest older ones (ties -> older)."""
    n = len(scores)
    if n <= heavy + recent:
        return list(range(n))
    older = list(range(n - recent))
    top = sorted(older, key=lambda j: (-scores[j], j))[:heavy]
    return sorted(top) + list(range(n - recent, n))


@settings(derandomize=True, deadline=None, max_examples=60)
@given(
    n=st.integers(1, 30),
    heavy=st.integers(0, 8),
    recent=st.integers(0, 8),
    seed=st.integers(0, 10_000),
)
def test_select_keep_matches_naive(n, heavy, recent, seed):
    if heavy + recent == 0:
        return
    g = torch.Generator().manual_seed(seed)
    s = torch.randint(0, 5, (n,), generator=g).float()  # many ties
    got = select_keep(s, heavy=heavy, recent=recent).tolist()
    assert got == naive_keep(s.tolist(), heavy, recent)
    assert len(got) == min(n, heavy + recent)


class NaiveH2O:
    """Transcription of H2O's real-drop cache (one batch row, one KV head): dict position -> score."""

    def __init__(self, heavy, recent):
        self.heavy, self.recent = heavy, recent
        self.kept: list[int] = []
        self.score: dict[int, float] = {}
        self.seen = 0

    def step(self, colsum):  # colsum over kept + new keys
        q = len(colsum) - len(self.kept)
        keys = self.kept + list(range(self.seen, self.seen + q))
        self.seen += q
        for j, c in zip(keys, colsum):
            self.score[j] = self.score.get(j, 0.0) + float(c)
        keep = naive_keep([self.score[j] for j in keys], self.heavy, self.recent)
        self.kept = [keys[i] for i in keep]
        self.score = {j: self.score[j] for j in self.kept}


def random_attention(g, B, H, q, n):
    """Random causal attention rows (q new rows over n = kept + q keys)."""
    logits = torch.randn(B, H, q, n, generator=g) * 3
    causal = torch.ones(q, n, dtype=torch.bool).tril(n - q)
    return torch.softmax(logits.masked_fill(~causal, float("-inf")), dim=-1)


@pytest.mark.parametrize("heavy,recent", [(3, 2), (0, 4), (5, 0), (2, 2)])
def test_state_matches_naive_real_drop_over_many_steps(heavy, recent):
    g = torch.Generator().manual_seed(0)
    B, Hkv, G = 2, 2, 2
    st_ = H2OState(heavy=heavy, recent=recent)
    naive = {(b, h): NaiveH2O(heavy, recent) for b in range(B) for h in range(Hkv)}
    steps = [7] + [1] * 10 + [3] + [1] * 4  # prefill, decode steps, a chunk, more decode
    for q in steps:
        attn = random_attention(g, B, Hkv * G, q, st_.kept + q)
        st_.update(attn, n_kv_heads=Hkv)
        col = attn.sum(2).view(B, Hkv, G, -1).sum(2)
        for (b, h), nv in naive.items():
            nv.step(col[b, h].tolist())
            assert st_.positions[b, h].tolist() == nv.kept
            torch.testing.assert_close(
                st_.scores[b, h], torch.tensor([nv.score[j] for j in nv.kept])
            )
        assert st_.kept <= heavy + recent


def test_heavy_hitter_outside_the_recent_window_survives():
    # token 1 receives most of the attention of every row: it must survive though it is old
    st_ = H2OState(heavy=1, recent=2)
    n0 = 6
    attn = torch.full((1, 1, n0, n0), 0.0)
    for i in range(n0):
        attn[0, 0, i, : i + 1] = 0.1 / (i + 1)
        attn[0, 0, i, min(i, 1)] += 0.9
    st_.update(attn, n_kv_heads=1)
    assert st_.positions[0, 0].tolist() == [1, 4, 5]
    for _ in range(5):
        a = torch.full((1, 1, 1, st_.kept + 1), 0.02)
        a[0, 0, 0, 0] = 1 - 0.02 * st_.kept
        st_.update(a, n_kv_heads=1)
        assert st_.positions[0, 0, 0].item() == 1  # still the heavy hitter
        assert st_.positions[0, 0, -1].item() == st_.seen - 1


def test_gqa_sum_equals_summing_the_group_query_heads():
    g = torch.Generator().manual_seed(3)
    a = H2OState(heavy=2, recent=2, gqa_reduce="sum")
    b = H2OState(heavy=2, recent=2)
    for q in [6, 1, 1, 2, 1]:
        attn = random_attention(g, 1, 4, q, a.kept + q)  # 4 query heads, 2 KV heads
        a.update(attn, n_kv_heads=2)
        b.update(attn.view(1, 2, 2, q, -1).sum(2), n_kv_heads=2)  # pre-summed: one head per KV head
        assert torch.equal(a.positions, b.positions)
        torch.testing.assert_close(a.scores, b.scores)
    m = H2OState(heavy=2, recent=2, gqa_reduce="mean")
    g = torch.Generator().manual_seed(3)
    attn = random_attention(g, 1, 4, 6, 6)
    m.update(attn, n_kv_heads=2)
    s = H2OState(heavy=2, recent=2)
    s.update(attn, n_kv_heads=2)
    torch.testing.assert_close(m.scores * 2, s.scores)
    assert torch.equal(m.positions, s.positions)  # same ranking


def test_mean_mode_divides_by_rows_that_saw_the_token():
    attn = torch.tensor([[[[1.0, 0, 0], [0.5, 0.5, 0], [0.2, 0.2, 0.6]]]])
    st_ = H2OState(heavy=3, recent=0, score_mode="mean")
    st_.update(attn, n_kv_heads=1)
    torch.testing.assert_close(
        st_.ranking_scores()[0, 0], torch.tensor([1.7 / 3, 0.7 / 2, 0.6 / 1])
    )


def test_mean_mode_can_lose_a_rarely_but_strongly_attended_token():
    # token 0 gets the largest total mass (1.5) but spread over all 8 rows (mean 0.19); token 5
    # gets 0.9 from its 3 rows (mean 0.30): sum keeps 0, mean keeps 5
    rows = {0: {0: 1.0}, 1: {0: 0.5, 1: 0.5}, 2: {2: 1.0}, 3: {3: 1.0}, 4: {4: 1.0}}
    rows |= {5: {5: 0.3, 1: 0.7}, 6: {5: 0.3, 6: 0.7}, 7: {5: 0.3, 7: 0.7}}
    attn = torch.zeros(1, 1, 8, 8)
    for i, r in rows.items():
        for j, a in r.items():
            attn[0, 0, i, j] = a
    s, m = H2OState(heavy=1, recent=2), H2OState(heavy=1, recent=2, score_mode="mean")
    s.update(attn, n_kv_heads=1)
    m.update(attn, n_kv_heads=1)
    assert s.positions[0, 0].tolist() == [0, 6, 7]
    assert m.positions[0, 0].tolist() == [5, 6, 7]


def test_local_and_random_policies():
    g = torch.Generator().manual_seed(0)
    loc = H2OState(heavy=2, recent=3, policy="local")
    attn = random_attention(g, 1, 1, 9, 9)
    loc.update(attn, n_kv_heads=1)
    assert loc.positions[0, 0].tolist() == [4, 5, 6, 7, 8]
    r1 = H2OState(heavy=3, recent=2, policy="random", generator=torch.Generator().manual_seed(1))
    r2 = H2OState(heavy=3, recent=2, policy="random", generator=torch.Generator().manual_seed(2))
    attn = random_attention(g, 1, 1, 30, 30)
    r1.update(attn, n_kv_heads=1)
    r2.update(attn, n_kv_heads=1)
    assert r1.positions[0, 0, -2:].tolist() == [28, 29]
    assert r1.positions.tolist() != r2.positions.tolist()


def test_padding_is_evicted_first():
    st_ = H2OState(heavy=2, recent=1)
    attn = random_attention(torch.Generator().manual_seed(0), 1, 1, 5, 5)
    attn[..., :2] = 10.0  # padded tokens 0, 1 get (spurious) mass; they must still go first
    valid = torch.tensor([[False, False, True, True, True]])
    st_.update(attn, n_kv_heads=1, new_valid=valid)
    assert st_.positions[0, 0].tolist() == [2, 3, 4]
    assert st_.valid.all()


def test_ratio_budget_resolved_from_the_prompt():
    st_ = H2OState(ratio=(0.1, 0.1))
    assert st_.budget is None
    st_.update(random_attention(torch.Generator().manual_seed(0), 1, 1, 128, 128), n_kv_heads=1)
    assert (st_.heavy, st_.recent) == (13, 13)
    assert st_.kept == 26


def test_gather_keeps_the_chosen_rows():
    st_ = H2OState(heavy=1, recent=1)
    attn = torch.tensor([[[[1.0, 0, 0], [0.9, 0.1, 0], [0.8, 0.1, 0.1]]]])
    keep = st_.update(attn, n_kv_heads=1)
    k = torch.arange(3.0).view(1, 1, 3, 1).expand(1, 1, 3, 4)
    kk, vv = st_.gather(k, k + 10)
    assert kk[0, 0, :, 0].tolist() == [0.0, 2.0] and vv[0, 0, :, 0].tolist() == [10.0, 12.0]
    assert keep.tolist() == [[[0, 2]]]


def test_bad_arguments():
    with pytest.raises(ValueError, match="heavy"):
        H2OState(heavy=-1, recent=2)
    with pytest.raises(TypeError, match="heavy"):
        H2OState(heavy=1.5, recent=2)
    with pytest.raises(ValueError, match="recent"):
        H2OState(heavy=2)
    with pytest.raises(ValueError, match="not both"):
        H2OState(heavy=2, recent=2, ratio=(0.1, 0.1))
    with pytest.raises(ValueError, match="ratio"):
        H2OState(ratio=(0.1, 1.5))
    for bad in (0.2, True, "ab"):  # a scalar, a bool or a string where a pair is expected
        with pytest.raises(TypeError, match="ratio"):
            H2OState(ratio=bad)
    with pytest.raises(TypeError, match="ratio"):
        H2OState(ratio=(True, 0.1))
    with pytest.raises(ValueError, match="ratio"):
        H2OState(ratio=(0.1, float("nan")))
    with pytest.raises(ValueError, match="score_mode"):
        H2OState(heavy=2, recent=2, score_mode="max")
    with pytest.raises(ValueError, match="gqa_reduce"):
        H2OState(heavy=2, recent=2, gqa_reduce="max")
    with pytest.raises(ValueError, match="policy"):
        H2OState(heavy=2, recent=2, policy="lru")
    with pytest.raises(ValueError, match=">= 1"):
        H2OState(heavy=0, recent=0)
    with pytest.raises(TypeError, match="generator"):
        H2OState(heavy=1, recent=1, generator=3)
    st_ = H2OState(heavy=2, recent=2)
    with pytest.raises(ValueError, match="attn"):
        st_.update(torch.ones(3, 3), n_kv_heads=1)
    with pytest.raises(ValueError, match="n_kv_heads"):
        st_.update(torch.ones(1, 4, 2, 2), n_kv_heads=3)
    with pytest.raises(ValueError, match="attn must be finite"):
        st_.update(torch.full((1, 1, 2, 2), float("nan")), n_kv_heads=1)
    st_.update(torch.ones(1, 1, 2, 2) / 2, n_kv_heads=1)
    with pytest.raises(ValueError, match="kept"):
        st_.update(torch.ones(1, 1, 1, 7), n_kv_heads=1)
    with pytest.raises(RuntimeError, match="before"):
        H2OState(heavy=1, recent=1).gather(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2))


def test_ratio_budgets_are_resolved_per_row_with_left_padding():
    st_ = H2OState(ratio=(0.25, 0.25))
    valid = torch.ones(2, 8, dtype=torch.bool)
    valid[1, :4] = False  # row 1: 4 padding tokens, then 4 tokens
    attn = random_attention(torch.Generator().manual_seed(0), 2, 1, 8, 8)
    st_.update(attn, n_kv_heads=1, new_valid=valid)
    assert st_.row_budgets == [(2, 2), (1, 1)] and (st_.heavy, st_.recent) == (2, 2)
    assert st_.kept == 4
    assert st_.positions[1, 0, :2].tolist() == [-1, -1]  # masked fillers
    assert st_.valid[1, 0].tolist() == [False, False, True, True]
    assert st_.positions[1, 0, -1].item() == 7 and st_.positions[0, 0, -2:].tolist() == [6, 7]
    a1 = random_attention(torch.Generator().manual_seed(1), 2, 1, 1, 5)
    st_.update(a1, n_kv_heads=1)
    assert st_.valid[1, 0].sum() == 2 and st_.valid[0, 0].sum() == 4
