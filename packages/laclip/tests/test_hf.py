"""HFGenerate on a real (tiny, random-init) transformers causal LM; skips without transformers."""

import laclip
import pytest
import torch
from laclip.hf import HFGenerate

pytest.importorskip("transformers")
from papershelf_harness.tiny_hf import tiny_causal_lm


class CharTokenizer:
    """A character tokenizer over a 64-id vocabulary (id 0: end of text)."""

    eos_token_id = 0
    pad_token_id = None
    CHARS = " abcdefghijklmnopqrstuvwxyz=>,.\n0123456789"

    def __call__(self, text, return_tensors="pt"):
        return {"input_ids": torch.tensor([[self.CHARS.index(c) + 1 for c in text]])}

    def decode(self, ids, skip_special_tokens=True):
        return "".join(
            self.CHARS[(int(i) - 1) % len(self.CHARS)]
            for i in ids
            if int(i) != 0 or not skip_special_tokens
        )


PAIRS = [("a dog", "one dog"), ("a cat", "the cat"), ("a car", "one car"), ("a man", "the man")]


def test_hf_generate_matches_model_generate_and_feeds_the_rewriter():
    model, tok = tiny_causal_lm("llama", vocab=64, seed=0), CharTokenizer()
    gen = HFGenerate(model, tok, max_new_tokens=12, max_prompt_tokens=30)
    prompt = laclip.build_icl_prompt("a bird", PAIRS, rng=0)
    torch.manual_seed(3)
    got = gen([prompt])
    # the reference: HF generate called by hand on the last 30 prompt tokens, same seed
    ids = tok(prompt)["input_ids"][:, -30:]
    torch.manual_seed(3)
    ref = model.generate(
        ids,
        attention_mask=torch.ones_like(ids),
        do_sample=True,
        temperature=0.9,
        top_p=0.95,
        max_new_tokens=12,
        pad_token_id=0,
    )
    assert got == [tok.decode(ref[0, 30:])]
    assert len(got[0]) <= 12
    torch.manual_seed(0)
    out = laclip.LLMRewriter(gen, PAIRS, rng=0).rewrite(["a bird", "a tree"])
    assert len(out) == 2 and all(isinstance(o, str) and "\n" not in o for o in out)


def test_hf_generate_bad_options():
    model, tok = tiny_causal_lm("llama", vocab=64), CharTokenizer()
    with pytest.raises(TypeError, match="model"):
        HFGenerate(object(), tok)
    with pytest.raises(TypeError, match="tokenizer"):
        HFGenerate(model, "tok")
    for name, bad in [
        ("temperature", 0.0),
        ("top_p", 1.5),
        ("max_new_tokens", 0),
        ("max_prompt_tokens", 0),
    ]:
        with pytest.raises(ValueError, match=name):
            HFGenerate(model, tok, **{name: bad})
    with pytest.raises(TypeError, match="prompts"):
        HFGenerate(model, tok)("a prompt")
