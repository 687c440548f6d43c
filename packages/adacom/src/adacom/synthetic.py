"""A synthetic code -> comment corpus with contradictory per-project conventions.

Functions are ``verb + Noun`` (``getUser``, ``loadConfig``, ...) with a body of shared filler
tokens and some identifiers of the project's own style; each project comments the same verb
its own way (A: ``"returns the user"``; B: ``"fetch user from cache"``; C: ``"user getter via
bridge"``), so similar code in different projects has contradictory comments. A style
identifier appears with probability ``cue`` each, and an identifier of another project's style
with probability ``noise``: the weaker the cues, the more a global model must compromise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._checks import check_int, check_probability, check_rng, describe

__all__ = ["PROJECTS", "Corpus", "make_corpus"]

VERBS = ("get", "load", "save", "delete", "update", "create", "find", "check")
NOUNS = (
    "user",
    "config",
    "file",
    "item",
    "order",
    "token",
    "record",
    "session",
    "image",
    "account",
    "message",
    "report",
)
_CONVENTION = {
    "A": (
        {
            "get": "returns",
            "load": "loads",
            "save": "stores",
            "delete": "removes",
            "update": "modifies",
            "create": "builds",
            "find": "locates",
            "check": "validates",
        },
        "{v} the {n}",
    ),
    "B": (
        {
            "get": "fetch",
            "load": "read",
            "save": "write",
            "delete": "drop",
            "update": "patch",
            "create": "make",
            "find": "search",
            "check": "test",
        },
        "{v} {n} from cache",
    ),
    "C": (
        {
            "get": "getter",
            "load": "loader",
            "save": "saver",
            "delete": "deleter",
            "update": "updater",
            "create": "factory",
            "find": "finder",
            "check": "checker",
        },
        "{n} {v} via bridge",
    ),
}
_STYLE = {
    "A": ("store", "lookup", "handler", "session_obj", "repo"),
    "B": ("cache", "registry", "pool", "fetch_entry", "backend"),
    "C": ("bridge", "channel", "emit", "ctx", "port"),
}
_FILLER = (
    "value",
    "result",
    "key",
    "data",
    "items",
    "args",
    "index",
    "count",
    "node",
    "tmp",
    "status",
    "flag",
    "buffer",
    "entry",
    "name",
)
PROJECTS = tuple(_CONVENTION)


@dataclass(frozen=True)
class Corpus:
    """Parallel tuples: ``codes[i]`` is commented ``comments[i]`` in project ``projects[i]``."""

    codes: tuple[str, ...]
    comments: tuple[str, ...]
    projects: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def subset(self, project: str) -> Corpus:
        """The items of one project."""
        keep = [i for i, p in enumerate(self.projects) if p == project]
        return Corpus(
            *(tuple(getattr(self, f)[i] for i in keep) for f in ("codes", "comments", "projects"))
        )


def make_corpus(
    counts: Mapping[str, int], *, cue: float = 0.5, noise: float = 0.15, rng=None
) -> Corpus:
    """``counts[project]`` items of each project (``"A"``, ``"B"``, ``"C"``), shuffled."""
    if not isinstance(counts, Mapping):
        raise TypeError(f"counts must be a mapping project -> count, got {describe(counts)}")
    if not counts:
        raise ValueError("counts must name at least one project")
    for p, n in counts.items():
        if p not in _CONVENTION:
            raise ValueError(f"counts: unknown project {p!r}, expected one of {list(PROJECTS)}")
        check_int(n, f"counts[{p!r}]", minimum=0)
    cue = check_probability(cue, "cue")
    noise = check_probability(noise, "noise")
    gen = check_rng(rng)
    items = []
    for p, n in counts.items():
        others = [q for q in PROJECTS if q != p]
        verbs, template = _CONVENTION[p]
        for _ in range(int(n)):
            v = VERBS[gen.integers(len(VERBS))]
            noun = NOUNS[gen.integers(len(NOUNS))]
            body = list(gen.choice(_FILLER, size=int(gen.integers(3, 7))))
            body += [s for s in _STYLE[p] if gen.random() < cue]
            for q in others:
                body += [s for s in _STYLE[q] if gen.random() < noise / len(_STYLE[q])]
            gen.shuffle(body)
            lines = [f"    {a} = {b}.{c}()" for a, b, c in zip(body[::3], body[1::3], body[2::3])]
            rest = body[len(lines) * 3 :]
            code = "\n".join(
                [
                    f"def {v}{noun.capitalize()}(self, key):",
                    *lines,
                    f"    return {' + '.join(rest) if rest else 'key'}",
                ]
            )
            items.append((code, template.format(v=verbs[v], n=noun), p))
    order = gen.permutation(len(items))
    return Corpus(*(tuple(items[i][j] for i in order) for j in range(3)))
