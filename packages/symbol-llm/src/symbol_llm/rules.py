"""The rule base: symbols (body-part state phrases) and conjunctive rules over them.

A :class:`Rule` reads ``IF premises[0] AND premises[1] AND ... THEN activity``; an activity's
rules are read as a disjunction. A :class:`RuleBase` holds the symbol table shared by all rules.
It is plain data: build it from an LLM (:func:`symbol_llm.generate_rules`), from a hand-made
``{activity: [[premise, ...], ...]}`` mapping (:meth:`RuleBase.from_dict`), or from JSON.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._checks import describe

__all__ = ["Rule", "RuleBase", "RuleMatrix"]


def _check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    if not value.strip():
        raise ValueError(f"{name} must not be empty or blank, got {value!r}")
    return value


def _check_texts(values: Any, name: str, *, allow_empty: bool = False) -> tuple[str, ...]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of str, got {describe(values)}")
    out = tuple(values)
    for i, v in enumerate(out):
        _check_text(v, f"{name}[{i}]")
    if not out and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    return out


@dataclass(frozen=True)
class Rule:
    """``IF premises THEN activity``.

    ``premises``: the symbols of the conjunction (non-empty, no repeats). ``entailment``: the
    LLM's entailment trajectory, ``entailment[k]`` the mean parsed probability that the activity
    holds given the first ``k + 1`` premises (empty for hand-made rules).
    """

    activity: str
    premises: tuple[str, ...]
    entailment: tuple[float, ...] = ()

    def __post_init__(self):
        _check_text(self.activity, "activity")
        premises = _check_texts(self.premises, "premises")
        if len(set(premises)) != len(premises):
            raise ValueError(f"premises must not repeat a symbol, got {list(premises)}")
        if isinstance(self.entailment, str | bytes) or not isinstance(self.entailment, Iterable):
            raise TypeError(
                f"entailment must be a sequence of floats, got {describe(self.entailment)}"
            )
        ent = []
        for e in self.entailment:
            if isinstance(e, bool) or not isinstance(e, int | float | np.floating | np.integer):
                raise TypeError(f"entailment must hold numbers, got {describe(e)}")
            e = float(e)
            if not (0.0 <= e <= 1.0):
                raise ValueError(f"entailment values must lie in [0, 1], got {e}")
            ent.append(e)
        object.__setattr__(self, "premises", premises)
        object.__setattr__(self, "entailment", tuple(ent))

    def __str__(self) -> str:
        return "IF " + " AND ".join(self.premises) + f" THEN {self.activity}"


class RuleMatrix(NamedTuple):
    """``matrix[r, s]``: symbol ``s`` is a premise of rule ``r`` (bool, (n_rules, n_symbols));
    ``rule_activity[r]``: the index of rule ``r``'s activity in the ``activities`` given."""

    matrix: np.ndarray
    rule_activity: np.ndarray


@dataclass(frozen=True)
class RuleBase:
    """A symbol table and the rules over it.

    ``symbols``: distinct symbol phrases (their order is the column order of
    :meth:`to_matrix` and of a symbol checker's probabilities); ``rules``: :class:`Rule`
    objects whose premises are all in ``symbols``.
    """

    symbols: tuple[str, ...]
    rules: tuple[Rule, ...]

    def __post_init__(self):
        symbols = _check_texts(self.symbols, "symbols", allow_empty=True)
        if len(set(symbols)) != len(symbols):
            dup = next(s for s in symbols if symbols.count(s) > 1)
            raise ValueError(f"symbols must be distinct, got {dup!r} twice")
        if isinstance(self.rules, str | bytes) or not isinstance(self.rules, Iterable):
            raise TypeError(f"rules must be a sequence of Rule, got {describe(self.rules)}")
        rules = tuple(self.rules)
        known = set(symbols)
        for i, r in enumerate(rules):
            if not isinstance(r, Rule):
                raise TypeError(f"rules[{i}] must be a Rule, got {describe(r)}")
            missing = [p for p in r.premises if p not in known]
            if missing:
                raise ValueError(f"rules[{i}] has premises not in symbols: {missing}")
        object.__setattr__(self, "symbols", symbols)
        object.__setattr__(self, "rules", rules)

    # -- views ------------------------------------------------------------------------------
    @property
    def index(self) -> dict[str, int]:
        """Symbol -> column index."""
        return {s: i for i, s in enumerate(self.symbols)}

    @property
    def activities(self) -> tuple[str, ...]:
        """The activities that have rules, in order of first appearance."""
        return tuple(dict.fromkeys(r.activity for r in self.rules))

    def rules_for(self, activity: str) -> tuple[Rule, ...]:
        """The rules whose conclusion is ``activity`` (possibly none)."""
        _check_text(activity, "activity")
        return tuple(r for r in self.rules if r.activity == activity)

    def to_matrix(self, activities: Sequence[str] | None = None) -> RuleMatrix:
        """The (n_rules, n_symbols) bool premise matrix and each rule's activity index.

        ``activities`` fixes the activity order (default: :attr:`activities`); every rule's
        activity must be in it (``ValueError`` otherwise: nothing is dropped silently).
        Feed the result to :func:`symbol_llm.activity_scores` with
        ``n_activities=len(activities)``.
        """
        acts = self.activities if activities is None else _check_texts(activities, "activities")
        if len(set(acts)) != len(acts):
            raise ValueError(f"activities must be distinct, got {list(acts)}")
        pos = {a: i for i, a in enumerate(acts)}
        unknown = sorted({r.activity for r in self.rules} - set(pos))
        if unknown:
            raise ValueError(f"activities lacks the rules' activities {unknown}")
        col = self.index
        m = np.zeros((len(self.rules), len(self.symbols)), dtype=bool)
        for i, r in enumerate(self.rules):
            m[i, [col[p] for p in r.premises]] = True
        ra = np.array([pos[r.activity] for r in self.rules], dtype=np.int64)
        return RuleMatrix(m, ra)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_rules(cls, rules: Iterable[Rule]) -> RuleBase:
        """A rule base whose symbol table is every premise of ``rules``, in first-seen order."""
        rules = tuple(rules)
        for i, r in enumerate(rules):
            if not isinstance(r, Rule):
                raise TypeError(f"rules[{i}] must be a Rule, got {describe(r)}")
        symbols = tuple(dict.fromkeys(p for r in rules for p in r.premises))
        return cls(symbols, rules)

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Sequence[Sequence[str]]]) -> RuleBase:
        """A hand-made rule base: ``{activity: [[premise, ...], ...]}`` (HAKE-style rule sets)."""
        if not isinstance(mapping, Mapping):
            raise TypeError(f"mapping must be a dict of activity -> rules, got {describe(mapping)}")
        rules = []
        for act, premise_lists in mapping.items():
            if isinstance(premise_lists, str | bytes) or not isinstance(premise_lists, Iterable):
                raise TypeError(f"mapping[{act!r}] must be a list of premise lists")
            for premises in premise_lists:
                rules.append(Rule(act, tuple(_check_texts(premises, f"mapping[{act!r}]"))))
        return cls.from_rules(rules)

    def merge(self, *others: RuleBase) -> RuleBase:
        """This rule base and ``others`` in one: symbols united in first-seen order, rules
        concatenated (exact duplicate rules kept once)."""
        for i, o in enumerate(others):
            if not isinstance(o, RuleBase):
                raise TypeError(f"others[{i}] must be a RuleBase, got {describe(o)}")
        symbols = tuple(dict.fromkeys(s for rb in (self, *others) for s in rb.symbols))
        rules = tuple(dict.fromkeys(r for rb in (self, *others) for r in rb.rules))
        return RuleBase(symbols, rules)

    # -- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "symbols": list(self.symbols),
            "rules": [
                {
                    "activity": r.activity,
                    "premises": list(r.premises),
                    "entailment": list(r.entailment),
                }
                for r in self.rules
            ],
        }

    @classmethod
    def from_json_dict(cls, obj: Mapping[str, Any]) -> RuleBase:
        if not isinstance(obj, Mapping) or "symbols" not in obj or "rules" not in obj:
            raise ValueError("obj must be a mapping with 'symbols' and 'rules'")
        rules = []
        for i, r in enumerate(obj["rules"]):
            if not isinstance(r, Mapping) or "activity" not in r or "premises" not in r:
                raise ValueError(f"rules[{i}] must have 'activity' and 'premises'")
            ent = r.get("entailment", [])
            rules.append(Rule(r["activity"], tuple(r["premises"]), tuple(ent)))
        return cls(tuple(obj["symbols"]), tuple(rules))

    def save(self, path: str | os.PathLike) -> None:
        """Write the rule base as JSON (human-editable)."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)

    @classmethod
    def load(cls, path: str | os.PathLike) -> RuleBase:
        """Read a rule base written by :meth:`save` (or by hand in the same format)."""
        with open(path, encoding="utf-8") as f:
            try:
                obj = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: line {e.lineno}: not valid JSON ({e.msg})") from None
        try:
            return cls.from_json_dict(obj)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: {e}") from None
