"""A word-level Hugging Face tokenizer built from a list of texts (toy tasks, tests, no downloads)."""

from __future__ import annotations

from typing import Any

from ._checks import check_bool, check_int, check_probability
from ._validation import check_texts, check_tokenizer

__all__ = ["SPECIAL_TOKENS", "roberta_config", "word_tokenizer"]

#: id 0..3 of every :func:`word_tokenizer`
SPECIAL_TOKENS = ("<pad>", "<unk>", "<s>", "</s>")


def word_tokenizer(texts: Any, *, lowercase: bool = True) -> Any:
    """A ``PreTrainedTokenizerFast`` whose vocabulary is the words of ``texts`` (split on
    whitespace and punctuation) after the special tokens ``<pad> <unk> <s> </s>`` (ids 0-3).

    Pairs are encoded with RoBERTa's template, ``<s> A </s></s> B </s>`` (all token type 0), a
    single text as ``<s> A </s>``; unknown words map to ``<unk>``.
    """
    texts = check_texts(texts, "texts")
    lowercase = check_bool(lowercase, "lowercase")
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    pre = pre_tokenizers.Whitespace()
    vocab = {tok: i for i, tok in enumerate(SPECIAL_TOKENS)}
    for text in texts:
        for word, _ in pre.pre_tokenize_str(text.lower() if lowercase else text):
            vocab.setdefault(word, len(vocab))
    tok = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    if lowercase:
        tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 2), ("</s>", 3)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        model_max_length=10**6,
    )


def roberta_config(
    tokenizer: Any,
    *,
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 2,
    max_length: int = 64,
    dropout: float = 0.0,
) -> Any:
    """A ``RobertaConfig`` (the paper's architecture, at any size) that fits ``tokenizer``: its
    vocabulary size and pad/BOS/EOS ids, position embeddings for ``max_length`` tokens (RoBERTa
    numbers positions from ``pad_token_id + 1``), one token type (RoBERTa's pair template),
    feed-forward width ``4 * hidden_size`` and ``dropout`` on hidden states and attention."""
    from transformers import RobertaConfig

    check_tokenizer(tokenizer, "tokenizer")
    pad = getattr(tokenizer, "pad_token_id", None)
    if pad is None or not hasattr(tokenizer, "__len__"):
        raise ValueError("tokenizer must have a pad token and a length (a Hugging Face tokenizer)")
    hidden_size = check_int(hidden_size, "hidden_size", minimum=1)
    num_layers = check_int(num_layers, "num_layers", minimum=1)
    num_heads = check_int(num_heads, "num_heads", minimum=1)
    if hidden_size % num_heads:
        raise ValueError(f"num_heads must divide hidden_size ({hidden_size}), got {num_heads}")
    max_length = check_int(max_length, "max_length", minimum=1)
    dropout = check_probability(dropout, "dropout", allow_one=False)
    bos = getattr(tokenizer, "bos_token_id", None)
    eos = getattr(tokenizer, "eos_token_id", None)
    return RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        intermediate_size=4 * hidden_size,
        max_position_embeddings=max_length + pad + 1,
        type_vocab_size=1,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
        pad_token_id=pad,
        bos_token_id=bos if bos is not None else pad,
        eos_token_id=eos if eos is not None else pad,
    )
