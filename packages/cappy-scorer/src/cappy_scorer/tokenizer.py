"""A word-level Hugging Face tokenizer built from a list of texts (toy tasks, tests, no downloads)."""

from __future__ import annotations

from typing import Any

from ._checks import check_bool
from ._validation import check_texts

__all__ = ["SPECIAL_TOKENS", "word_tokenizer"]

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
