"""HFCommentGenerator on a real Hugging Face Llama (tiny, random-initialised, no downloads) with
papershelf-tinylm's byte tokenizer; run by tests_extras (skips without transformers)."""

import adacom
import pytest
import torch

transformers = pytest.importorskip("transformers")
tinylm = pytest.importorskip("papershelf_tinylm")
tiny_hf = pytest.importorskip("papershelf_harness.tiny_hf")

CODES = ["def getUser(self): return self.user", "def saveFile(p): write(p)"]
COMMENTS = ["returns the user", "stores the file"]


@pytest.fixture(scope="module")
def hf():
    torch.manual_seed(0)
    lm = tiny_hf.tiny_causal_lm("llama", n_layers=1, seed=0, vocab=tinylm.ByteTokenizer.vocab_size)
    return adacom.HFCommentGenerator(lm, tinylm.ByteTokenizer(), max_new_tokens=6)


def test_loss_is_the_masked_token_cross_entropy(hf):
    got = hf.loss(CODES, COMMENTS)
    assert got.shape == (2,) and got.requires_grad
    tok = hf.tokenizer
    for i, (code, comment) in enumerate(zip(CODES, COMMENTS)):
        prompt = tok.encode(hf.prompt.format(code=code))
        target = tok.encode(" " + comment, add_special_tokens=False) + [tok.eos_token_id]
        ids = torch.tensor([prompt + target])
        with torch.no_grad():
            logits = hf.model(input_ids=ids).logits[0]
        logp = torch.log_softmax(logits.float(), -1)
        nll = [-logp[len(prompt) - 1 + j, t] for j, t in enumerate(target)]
        torch.testing.assert_close(got[i].detach(), torch.stack(nll).mean(), rtol=1e-5, atol=1e-5)


def test_generate_is_greedy_text(hf):
    out = hf.generate(CODES)
    assert len(out) == 2 and all(isinstance(o, str) and "\n" not in o for o in out)
    assert out == hf.generate(CODES)


def test_adacom_adapts_and_restores_an_hf_model(hf):
    before = {k: v.clone() for k, v in hf.state_dict().items()}
    ada = adacom.Adacom(hf, CODES * 3, COMMENTS * 3, k=4, m=2, steps=3, lr=1e-2)
    _, info = ada.summarize("def getUser(self): return self.user")
    assert info["flagged"] and info["ce_support"][1] < info["ce_support"][0]
    after = hf.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
