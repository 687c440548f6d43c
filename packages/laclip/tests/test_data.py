"""TextAugmentedDataset: draw frequencies, the fallbacks, tokenizer and generator."""

from collections import Counter

import laclip
import numpy as np
import pytest
import torch


class Pairs(torch.utils.data.Dataset):
    def __init__(self, captions):
        self.captions = captions

    def __len__(self):
        return len(self.captions)

    def __getitem__(self, i):
        return torch.full((2,), float(i)), self.captions[i]


BASE = Pairs(["a small dog", "a big cat", "an old car"])
REWRITES = [
    ["one tiny puppy", "a little dog here", "small canine", "a dog that is small"],
    ["a large feline"],
    [],
]


def _freqs(ds, i, n):
    return Counter(ds[i][1] for _ in range(n))


def test_uniform_over_k_plus_one_texts():
    ds = laclip.TextAugmentedDataset(BASE, REWRITES, generator=torch.Generator().manual_seed(0))
    n = 50_000
    c = _freqs(ds, 0, n)
    texts = ["a small dog", *REWRITES[0]]
    assert set(c) == set(texts)
    for t in texts:
        assert abs(c[t] / n - 1 / 5) <= 0.01
    image, _ = ds[0]
    assert torch.equal(image, torch.zeros(2))


def test_no_rewrites_gives_caption_and_p_original():
    ds = laclip.TextAugmentedDataset(
        BASE, REWRITES, p_original=0.7, generator=torch.Generator().manual_seed(1)
    )
    assert {ds[2][1] for _ in range(50)} == {"an old car"}
    n = 20_000
    c = _freqs(ds, 0, n)
    # caption w.p. 0.7, each of 4 rewrites w.p. 0.3/4: 5-sd binomial tolerance
    for t, p in [("a small dog", 0.7), *[(r, 0.075) for r in REWRITES[0]]]:
        assert abs(c[t] - n * p) <= 5 * np.sqrt(n * p * (1 - p))
    only = laclip.TextAugmentedDataset(BASE, REWRITES, p_original=0.0)
    assert {only[1][1] for _ in range(50)} == {"a large feline"}
    orig = laclip.TextAugmentedDataset(BASE, REWRITES, p_original=1.0)
    assert {orig[0][1] for _ in range(50)} == {"a small dog"}


def test_short_rewrites_fall_back_to_the_caption():
    rewrites = [["dog", "", "two words"], ["x"], []]
    ds = laclip.TextAugmentedDataset(BASE, rewrites, generator=torch.Generator().manual_seed(2))
    n = 8000
    c = _freqs(ds, 0, n)
    assert set(c) == {"a small dog", "two words"}
    assert abs(c["two words"] / n - 0.25) < 0.03  # drawn 1/4; the 3/4 rest fall back
    assert {ds[1][1] for _ in range(30)} == {"a big cat"}
    ds3 = laclip.TextAugmentedDataset(BASE, rewrites, min_words=3)
    assert {ds3[0][1] for _ in range(100)} == {"a small dog"}
    ds0 = laclip.TextAugmentedDataset(BASE, rewrites, min_words=0, p_original=0.0)
    assert {ds0[1][1] for _ in range(30)} == {"x"}


def test_generator_reproducible_tokenizer_and_loader():
    def draws(seed):
        ds = laclip.TextAugmentedDataset(
            BASE, REWRITES, generator=torch.Generator().manual_seed(seed)
        )
        return [ds[0][1] for _ in range(30)]

    assert draws(5) == draws(5) != draws(6)
    tok = laclip.TextAugmentedDataset(BASE, REWRITES, tokenizer=lambda s: len(s.split()))
    assert tok[1][1] in (3, 3)  # "a big cat" / "a large feline"
    assert len(tok) == 3 and tok[-1][1] == 3
    loader = torch.utils.data.DataLoader(tok, batch_size=3)
    images, texts = next(iter(loader))
    assert images.shape == (3, 2) and texts.tolist()[2] == 3
    with pytest.raises(IndexError):
        tok[3]


def test_rewrites_must_be_index_aligned():
    with pytest.raises(ValueError, match="rewrites"):
        laclip.TextAugmentedDataset(BASE, REWRITES[:2])
    with pytest.raises(TypeError, match=r"rewrites\[1\]"):
        laclip.TextAugmentedDataset(BASE, [[], "a b", []])


def test_dataloader_workers_draw_independently():
    """Each worker refills its own block of uniforms from its own (per-worker seeded) RNG."""
    base = Pairs([f"caption number {i}" for i in range(40)])
    rewrites = [[f"rewrite {j} of {i}" for j in range(4)] for i in range(40)]
    ds = laclip.TextAugmentedDataset(base, rewrites)
    ds[0]  # fill the parent's block before the workers fork
    loader = torch.utils.data.DataLoader(ds, batch_size=20, num_workers=2)
    picks = []
    for _, texts in loader:
        picks.append([t.split()[1] if t.startswith("rewrite") else "c" for t in texts])
    assert picks[0] != picks[1]
