"""Prompt building, completion parsing and the LLM rewriter against hand-written references."""

from collections import Counter

import laclip
import numpy as np
import pytest

PAIRS = [(f"source caption {i}", f"target caption {i}") for i in range(16)]


def test_prompt_is_exactly_the_issue_format():
    p = laclip.build_icl_prompt("a dog on a beach", PAIRS, k=3, rng=0)
    parts = p.split("\n\n")
    assert len(parts) == 5
    assert parts[0] == "write image captions differently,"
    assert parts[-1] == "a dog on a beach =>"
    shown = [tuple(x.split(" => ")) for x in parts[1:4]]
    assert len(set(shown)) == 3 and all(s in PAIRS for s in shown)
    # the same draw as numpy's choice without replacement on the same seed
    idx = np.random.default_rng(0).choice(16, size=3, replace=False)
    want = "\n\n".join(
        ["write image captions differently,"]
        + [f"{PAIRS[i][0]} => {PAIRS[i][1]}" for i in idx]
        + ["a dog on a beach =>"]
    )
    assert p == want


@pytest.mark.parametrize("k", [1, 2, 5, 16])
def test_k_distinct_pairs_and_uniform_choice(k):
    gen = np.random.default_rng(1)
    counts = Counter()
    n = 400
    for _ in range(n):
        parts = laclip.build_icl_prompt("x y", PAIRS, k=k, rng=gen).split("\n\n")[1:-1]
        assert len(parts) == k == len(set(parts))
        counts.update(parts)
    # each pair appears with probability k/16: binomial tolerance of 5 sd
    p = k / 16
    sd = np.sqrt(n * p * (1 - p)) if p < 1 else 0.0
    for c in counts.values():
        assert abs(c - n * p) <= 5 * sd + 1e-9
    assert len(counts) == 16


def test_duplicate_pairs_count_once():
    pairs = [("a b", "c d")] * 5 + [("e f", "g h")]
    p = laclip.build_icl_prompt("cap", pairs, k=2, rng=3)
    assert p.count("a b => c d") == 1 and p.count("e f => g h") == 1
    with pytest.raises(ValueError, match="k"):
        laclip.build_icl_prompt("cap", pairs, k=3)


def test_rng_reproducible_and_generator_advances():
    a = laclip.build_icl_prompt("cap", PAIRS, rng=7)
    assert a == laclip.build_icl_prompt("cap", PAIRS, rng=7)
    g = np.random.default_rng(7)
    draws = {laclip.build_icl_prompt("cap", PAIRS, rng=g) for _ in range(10)}
    assert len(draws) > 1


@pytest.mark.parametrize(
    ("completion", "want"),
    [
        (" a puppy runs along the shore\n\nnext caption => more", "a puppy runs along the shore"),
        ("a puppy\n", "a puppy"),
        ("\n\n  two cats sleeping  \nmore", "two cats sleeping"),
        ("", ""),
        ("   \n  ", ""),
    ],
)
def test_parse_rewrite_first_line(completion, want):
    assert laclip.parse_rewrite(completion) == want


def test_parse_rewrite_removes_echoed_prompt():
    prompt = laclip.build_icl_prompt("a red car", PAIRS, rng=0)
    completion = prompt + " a crimson automobile parked\n\nsomething => else"
    assert laclip.parse_rewrite(completion, prompt=prompt) == "a crimson automobile parked"
    # without the prompt the first line is the instruction: the echo must be named to be removed
    assert laclip.parse_rewrite(completion) == "write image captions differently,"
    # a decoder may add leading whitespace before the echo
    assert laclip.parse_rewrite("\n " + completion, prompt=prompt) == "a crimson automobile parked"
    # a completion without the echo is parsed as is
    assert laclip.parse_rewrite(" a crimson car", prompt=prompt) == "a crimson car"


class EchoLLM:
    """A fake LLM: echoes the prompt, then upper-cases the caption to rewrite (plus noise)."""

    def __init__(self):
        self.calls = []

    def __call__(self, prompts):
        self.calls.append(list(prompts))
        out = []
        for p in prompts:
            cap = p.rsplit("\n\n", 1)[1].removesuffix(" =>")
            out.append(p + " " + cap.upper() + "\n\nignored => line")
        return out


def test_llm_rewriter_end_to_end():
    llm = EchoLLM()
    rw = laclip.LLMRewriter(llm, PAIRS, k=3, rng=0)
    caps = ["a dog on a beach", "two cats", "a red car"]
    assert rw.rewrite(caps) == ["A DOG ON A BEACH", "TWO CATS", "A RED CAR"]
    assert len(llm.calls) == 1 and len(llm.calls[0]) == 3
    # the prompts are build_icl_prompt's with the rewriter's generator, in order
    g = np.random.default_rng(0)
    assert llm.calls[0] == [laclip.build_icl_prompt(c, PAIRS, k=3, rng=g) for c in caps]
    assert rw.rewrite([]) == []


def test_llm_rewriter_checks_generate_output():
    rw = laclip.LLMRewriter(lambda ps: ps[:-1], PAIRS)
    with pytest.raises(ValueError, match="generate"):
        rw.rewrite(["a b", "c d"])
    rw = laclip.LLMRewriter(lambda ps: [1 for _ in ps], PAIRS)
    with pytest.raises(TypeError, match="generate"):
        rw.rewrite(["a b"])
