"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import laclip
import numpy as np
import pytest
import torch
from hypothesis import strategies as st

from papershelf_harness import suite

PAIRS = [(f"src {i}", f"tgt {i}") for i in range(4)]
G = torch.Generator().manual_seed(0)
IMG = torch.randn(4, 3, generator=G)
TXT = torch.randn(4, 3, generator=G)
CLF = torch.randn(3, 5, generator=G)
LAB = torch.tensor([0, 1, 2, 4])


class Base(torch.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return torch.zeros(1), "a caption"


BASE = Base()
REW = [["a rewrite"], []]


def _t(v):
    """numpy numbers -> a tensor (torch arguments); anything else as it is."""
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return torch.from_numpy(v).float() if v.dtype.kind != "b" else torch.from_numpy(v)
    return v


def _enc(texts):
    return torch.ones(len(texts), 3)


BAD_CAPTION = ((None, TypeError), (3, TypeError), ("", ValueError), ("a\nb", ValueError))
BAD_PAIRS = (
    ("ab => cd", TypeError),
    (None, TypeError),
    ([], ValueError),
    ([("a",)], ValueError),
    ([("a", 1)], TypeError),
    ([("a", "")], ValueError),
    ([("a\nb", "c")], ValueError),
    ([3], TypeError),
)
BAD_TEXTS = (("a b", TypeError), (None, TypeError), ([1], TypeError), ({"a": 1}, TypeError))
BAD_SCALE = (
    (0.0, ValueError),
    (-1.0, ValueError),
    (float("nan"), ValueError),
    (float("inf"), ValueError),
    ("1", TypeError),
    (True, TypeError),
    (torch.tensor(-1.0), ValueError),
    (torch.tensor([1.0, 2.0]), ValueError),
    (torch.tensor(float("nan")), ValueError),
)


def _tad(**kw):
    opts = {"base": BASE, "rewrites": REW} | kw
    return laclip.TextAugmentedDataset(opts.pop("base"), opts.pop("rewrites"), **opts)


CASES = [
    # rewriting
    suite.Values(
        "build_icl_prompt.caption",
        "caption",
        lambda v: laclip.build_icl_prompt(v, PAIRS),
        BAD_CAPTION,
    ),
    suite.Values(
        "build_icl_prompt.pairs", "pairs", lambda v: laclip.build_icl_prompt("a b", v), BAD_PAIRS
    ),
    suite.keyword(suite.Int, laclip.build_icl_prompt, "k", "a b", PAIRS, minimum=1, maximum=4),
    suite.keyword(suite.Rng, laclip.build_icl_prompt, "rng", "a b", PAIRS),
    suite.Values(
        "parse_rewrite.completion",
        "completion",
        laclip.parse_rewrite,
        ((None, TypeError), (1, TypeError), (b"x", TypeError)),
    ),
    suite.keyword(
        suite.Values, laclip.parse_rewrite, "prompt", "x", bad=((1, TypeError), (b"x", TypeError))
    ),
    suite.Values(
        "LLMRewriter.generate",
        "generate",
        lambda v: laclip.LLMRewriter(v, PAIRS),
        ((None, TypeError), ("llm", TypeError)),
    ),
    suite.Values("LLMRewriter.pairs", "pairs", lambda v: laclip.LLMRewriter(list, v), BAD_PAIRS),
    suite.keyword(suite.Int, laclip.LLMRewriter, "k", list, PAIRS, minimum=1, maximum=4),
    suite.keyword(suite.Rng, laclip.LLMRewriter, "rng", list, PAIRS),
    suite.Values(
        "LLMRewriter.rewrite.captions",
        "captions",
        lambda v: laclip.LLMRewriter(list, PAIRS).rewrite(v),
        (*BAD_TEXTS, (["a\nb"], ValueError), ([""], ValueError)),
    ),
    # dataset
    suite.Values(
        "TextAugmentedDataset.base",
        "base",
        lambda v: _tad(base=v),
        ((None, TypeError), (3, TypeError)),
    ),
    suite.Values(
        "TextAugmentedDataset.rewrites",
        "rewrites",
        lambda v: _tad(rewrites=v),
        (
            ("ab", TypeError),
            (None, TypeError),
            ([["a"], "a b"], TypeError),
            ([["a"], [1]], TypeError),
        ),
    ),
    suite.Mismatch(
        "TextAugmentedDataset.rewrites(length)", "rewrites", lambda: _tad(rewrites=[["a"]] * 3)
    ),
    suite.keyword(
        suite.Number, _tad, "p_original", none_ok=True, id="TextAugmentedDataset.p_original"
    ),
    suite.keyword(
        suite.OutOfRange,
        _tad,
        "p_original",
        id="TextAugmentedDataset.p_original(range)",
        values=st.one_of(st.floats(1.0001, 1e6), st.floats(-1e6, -1e-4)),
    ),
    suite.keyword(suite.Int, _tad, "min_words", minimum=0, id="TextAugmentedDataset.min_words"),
    suite.keyword(
        suite.Values,
        _tad,
        "tokenizer",
        id="TextAugmentedDataset.tokenizer",
        bad=(("bpe", TypeError), (3, TypeError)),
    ),
    suite.keyword(
        suite.Values,
        _tad,
        "generator",
        id="TextAugmentedDataset.generator",
        bad=((0, TypeError), (np.random.default_rng(0), TypeError)),
    ),
    # loss and zero-shot
    suite.Array(
        "clip_loss.image_emb",
        "image_emb",
        lambda v: laclip.clip_loss(_t(v), TXT, 1.0),
        (4, 3),
        (2,),
    ),
    suite.Array(
        "clip_loss.text_emb", "text_emb", lambda v: laclip.clip_loss(IMG, _t(v), 1.0), (4, 3), (2,)
    ),
    suite.Mismatch(
        "clip_loss.text_emb(shape)", "text_emb", lambda: laclip.clip_loss(IMG, TXT[:3], 1.0)
    ),
    suite.Values(
        "clip_loss.logit_scale", "logit_scale", lambda v: laclip.clip_loss(IMG, TXT, v), BAD_SCALE
    ),
    suite.Values(
        "zero_shot_classifier.encode_text",
        "encode_text",
        lambda v: laclip.zero_shot_classifier(v, ["a"], ["{}"]),
        ((None, TypeError), ("enc", TypeError)),
    ),
    suite.Values(
        "zero_shot_classifier.classnames",
        "classnames",
        lambda v: laclip.zero_shot_classifier(_enc, v, ["{}"]),
        (*BAD_TEXTS, ([], ValueError)),
    ),
    suite.Values(
        "zero_shot_classifier.templates",
        "templates",
        lambda v: laclip.zero_shot_classifier(_enc, ["a"], v),
        (("{}", TypeError), ([], ValueError), ([3], TypeError), (["no slot"], ValueError)),
    ),
    suite.Values(
        "zero_shot_classifier.encode_text(output)",
        "encode_text",
        lambda v: laclip.zero_shot_classifier(v, ["a"], ["{}", "x {}"]),
        (
            (lambda t: torch.ones(1, 3), ValueError),
            (lambda t: torch.ones(2), ValueError),
            (lambda t: [[1.0]] * 2, TypeError),
        ),
    ),
    suite.Array(
        "zero_shot_accuracy.image_emb",
        "image_emb",
        lambda v: laclip.zero_shot_accuracy(_t(v), CLF, LAB),
        (4, 3),
        (2,),
    ),
    suite.Array(
        "zero_shot_accuracy.classifier",
        "classifier",
        lambda v: laclip.zero_shot_accuracy(IMG, _t(v), LAB),
        (3, 5),
        (2,),
    ),
    suite.Values(
        "zero_shot_accuracy.labels",
        "labels",
        lambda v: laclip.zero_shot_accuracy(IMG, CLF, v),
        (
            (torch.tensor([0.0, 1, 2, 3]), TypeError),
            (torch.tensor([0, 1, 2]), ValueError),
            (torch.tensor([0, 1, 2, 5]), ValueError),
            (torch.tensor([0, 1, 2, -1]), ValueError),
            ([0, 1, 2, 3], TypeError),
            (None, TypeError),
        ),
    ),
    suite.Mismatch(
        "zero_shot_accuracy.classifier(shape)",
        "classifier",
        lambda: laclip.zero_shot_accuracy(IMG, CLF.T, LAB),
    ),
    suite.keyword(
        suite.Int, laclip.zero_shot_accuracy, "top_k", IMG, CLF, LAB, minimum=1, maximum=5
    ),
]

globals().update(suite.bad_input_suite(CASES))


def test_dataset_checks_base_items():
    class Bad(Base):
        def __getitem__(self, i):
            return torch.zeros(1), 3

    ds = laclip.TextAugmentedDataset(Bad(), REW)
    with pytest.raises(TypeError, match="base"):
        ds[0]
    with pytest.raises(TypeError, match="index"):
        ds[0.5]
