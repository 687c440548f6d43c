"""Adacom: on-the-fly adaptation of code comment generators (NeurIPS 2023), design inferred."""

from importlib.metadata import version as _version

from .adapt import Adacom, group_by_agreement, restoring
from .detector import CompromiseDetector, compromise_labels
from .generators import CommentGenerator, GRUCommentGenerator, HFCommentGenerator, train_generator
from .metrics import auroc, bleu4, comment_words, contradiction, rouge_l, token_f1
from .retrieval import BM25Retriever, code_tokenize
from .synthetic import Corpus, make_corpus

__version__ = _version("adacom")

__all__ = [
    "__version__",
    "Adacom",
    "BM25Retriever",
    "CommentGenerator",
    "CompromiseDetector",
    "Corpus",
    "GRUCommentGenerator",
    "HFCommentGenerator",
    "auroc",
    "bleu4",
    "code_tokenize",
    "comment_words",
    "compromise_labels",
    "contradiction",
    "group_by_agreement",
    "make_corpus",
    "restoring",
    "rouge_l",
    "token_f1",
    "train_generator",
]
