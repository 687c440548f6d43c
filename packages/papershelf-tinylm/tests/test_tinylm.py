"""papershelf-tinylm: tokenizer round trip, cache keys, safetensors round trip, training works."""

import json
import math

import numpy as np
import pytest
import torch

import papershelf_tinylm as tl


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERSHELF_TINYLM_CACHE", str(tmp_path / "cache"))


def test_tokenizer_round_trip_and_specials():
    tok = tl.ByteTokenizer()
    text = "def f(x):\n    return 'héllo' + \"\\n\"  # ünïcode ✓"
    ids = tok.encode(text)
    assert ids[0] == tl.BOS_ID and all(0 <= i < 256 for i in ids[1:])
    assert ids[1:] == list(text.encode("utf-8"))
    assert tok.decode(ids) == text
    assert tok.decode([tl.BOS_ID, 104, tl.EOS_ID], skip_special_tokens=False) == "<bos>h<eos>"
    batch = tok(["ab", "abcd"], return_tensors="np")
    assert batch["input_ids"].shape == (2, 5)
    assert batch["input_ids"][0, 0] == tl.PAD_ID and batch["attention_mask"][0].tolist() == [
        0,
        0,
        1,
        1,
        1,
    ]
    assert tok.batch_decode(batch["input_ids"]) == ["ab", "abcd"]
    pt = tok("x", return_tensors="pt")["input_ids"]
    assert isinstance(pt, torch.Tensor) and pt.tolist() == [[tl.BOS_ID, 120]]
    assert len(tok) == tl.VOCAB_SIZE == tok.vocab_size


def test_tokenizer_bad_input():
    with pytest.raises(TypeError, match="text"):
        tl.encode(b"bytes")
    with pytest.raises(ValueError, match="ids"):
        tl.decode([1000])
    with pytest.raises(ValueError, match="return_tensors"):
        tl.ByteTokenizer()("a", return_tensors="tf")


def test_corpus_is_deterministic_and_split_is_disjoint():
    train, held = tl.corpus("train"), tl.corpus("heldout")
    assert len(train) > 500_000 and len(held) > 50_000
    assert train[:2000].tobytes() not in held.tobytes()
    assert tl.corpus_digest() == tl.corpus_digest()
    a = tl.lm_batch(np.random.default_rng(3), 4, 32)
    b = tl.lm_batch(np.random.default_rng(3), 4, 32)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 32) and (a[:, 0] == tl.BOS_ID).all()
    with pytest.raises(ValueError, match="split"):
        tl.corpus("test")


def test_header_recall_batch_layout():
    x = tl.header_recall_batch(np.random.default_rng(0), 3, 96, key_len=6)
    assert x.shape == (3, 96)
    for row in x:
        text = tl.decode(row)
        assert text.startswith("# key: ")
        key = text[7:13]
        assert text.endswith(f"\n# key? {key}\n")
    with pytest.raises(ValueError, match="seq_len"):
        tl.header_recall_batch(np.random.default_rng(0), 1, 10)


def test_content_key_is_deterministic_and_sensitive():
    s = tl.model_spec("micro-target", seed=0)
    assert tl.content_key(s) == tl.content_key(tl.model_spec("micro-target", seed=0))
    assert tl.content_key(s) == tl.content_key(json.loads(json.dumps(s)))  # key order irrelevant
    others = [
        tl.model_spec("micro-target", seed=1),
        tl.model_spec("micro-draft", seed=0),
        tl.model_spec("micro-target", seed=0, task="header_recall"),
        tl.model_spec("micro-target", seed=0, num_hidden_layers=3),
        tl.model_spec(
            "micro-target", seed=0, train=tl.TrainSpec(steps=61, batch_size=8, seq_len=64)
        ),
    ]
    keys = {tl.content_key(o) for o in others} | {tl.content_key(s)}
    assert len(keys) == len(others) + 1
    assert len(tl.content_key(s)) == 64


def test_bad_arguments():
    with pytest.raises(ValueError, match="config_name"):
        tl.model_spec("huge")
    with pytest.raises(ValueError, match="seed"):
        tl.model_spec("draft", seed=-1)
    with pytest.raises(ValueError, match="task"):
        tl.model_spec("draft", task="qa")
    with pytest.raises(ValueError, match="steps"):
        tl.TrainSpec(steps=0)
    with pytest.raises(ValueError, match="lr"):
        tl.TrainSpec(lr=float("nan"))
    with pytest.raises(ValueError, match="vocab_size"):
        tl.model_config("draft", vocab_size=300)
    with pytest.raises(ValueError, match="data_key"):
        tl.train_model("micro-draft", batch_fn=tl.lm_batch)


TINY = tl.TrainSpec(steps=40, batch_size=8, seq_len=64, lr=5e-3, warmup=4)


def test_training_is_seed_deterministic_and_cached(tmp_path):
    a = tl.train_model("micro-draft", seed=5, train=TINY, cache=False)
    b = tl.train_model("micro-draft", seed=5, train=TINY, cache=False)
    c = tl.train_model("micro-draft", seed=6, train=TINY, cache=False)
    for (n, pa), pb in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(pa, pb), n
    assert not torch.equal(a.lm_head.weight, c.lm_head.weight)
    assert not tl.is_cached("micro-draft", seed=5, train=TINY)
    d = tl.train_model("micro-draft", seed=5, train=TINY)  # trains and writes the cache
    assert tl.is_cached("micro-draft", seed=5, train=TINY)
    files = sorted(p.name for p in next(tl.cache_dir().iterdir()).iterdir())
    assert files == ["config.json", "model.safetensors", "spec.json"]  # no pickle anywhere
    e = tl.train_model("micro-draft", seed=5, train=TINY)  # loads
    for pd, pe in zip(d.state_dict().values(), e.state_dict().values()):
        assert torch.equal(pd, pe)


def test_save_load_round_trip_gives_identical_logits(tmp_path):
    m = tl.train_model(
        "micro-target", train=tl.TrainSpec(steps=2, batch_size=2, seq_len=16), cache=False
    )
    path = tl.save_model(m, tmp_path / "m")
    m2 = tl.load_saved(path)
    for (n, p), p2 in zip(m.state_dict().items(), m2.state_dict().values()):
        assert torch.equal(p, p2), n
    x = torch.tensor([tl.encode("import os\n", add_bos=True)])
    with torch.no_grad():
        torch.testing.assert_close(m(x).logits, m2(x).logits, rtol=0, atol=0)
    with pytest.raises(FileNotFoundError):
        tl.load_saved(tmp_path / "missing")


def test_trained_target_beats_uniform_and_draft_on_heldout():
    # same data, same steps: 2 layers x 64 wide vs 1 layer x 32 wide
    target = tl.train_model("micro-target", seed=0, cache=False)
    draft = tl.train_model("micro-draft", seed=0, cache=False)
    lt, ld = tl.heldout_loss(target), tl.heldout_loss(draft)
    assert lt < ld < math.log(256)
    assert lt < 0.75 * math.log(256)


def test_custom_batch_fn_hook():
    calls = []

    def constant(rng, b, t):
        calls.append((b, t))
        return np.full((b, t), 65, dtype=np.int64)

    spec = tl.TrainSpec(steps=25, batch_size=2, seq_len=8, lr=1e-2, warmup=1)
    m = tl.train_model("micro-draft", train=spec, batch_fn=constant, data_key="all-A", cache=False)
    assert calls == [(2, 8)] * 25
    with torch.no_grad():
        probs = m(torch.tensor([[65, 65, 65]])).logits[0, -1].softmax(-1)
    assert probs[65] > 0.5  # it learned that "A" follows "A"
    bad = tl.TrainSpec(steps=1, batch_size=2, seq_len=8)
    with pytest.raises(ValueError, match="batch_fn"):
        tl.train_model(
            "micro-draft",
            train=bad,
            batch_fn=lambda r, b, t: np.zeros((1, 1)),
            data_key="x",
            cache=False,
        )


@pytest.mark.slow
def test_real_pair_quality():
    target, draft, tok = tl.load_pair(seed=0)
    lt, ld = tl.heldout_loss(target), tl.heldout_loss(draft)
    assert lt < ld < math.log(256)
    assert target.config.num_hidden_layers == 4 and draft.config.num_hidden_layers == 1
