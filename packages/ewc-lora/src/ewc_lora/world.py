"""GridHome: a small symbolic household world, a self-contained stand-in for VirtualHome.

Rooms hold furniture: containers (fridge, cabinet, drawer, ...: open/close, objects go *in*
them), surfaces (table, counter, bed, ...: objects go *on* them) and devices (tv, lamp, ...:
switch on/off). Grabbable objects lie in or on a receptacle or in the agent's hands (two at
most). Actions and their preconditions:

- ``("walk", room)``: another room;
- ``("grab", obj)``: a free hand, the object in this room, its container open;
- ``("put", obj, receptacle)``: holding it, the receptacle in this room and open;
- ``("open"|"close", container)``: in this room, closed / open;
- ``("switch_on"|"switch_off", device)``: in this room, off / on.

Goals are tuples of predicates: ``("in", obj, container)``, ``("on", obj, surface)``,
``("switched_on", device)``, ``("switched_off", device)``, ``("open", container)``,
``("closed", container)``, ``("holding", obj)``, ``("agent_in", room)``; strings such as
``"apple in fridge"``, ``"tv on"`` or ``"fridge open"`` are parsed into them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._checks import check_float, check_int, check_rng, describe

__all__ = [
    "GridHome",
    "Plan",
    "Trajectory",
    "format_action",
    "mcts_plan",
    "random_explore",
]

# room -> (containers, surfaces, devices)
_FURNITURE: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "kitchen": (("fridge", "cabinet"), ("counter",), ("stove",)),
    "living_room": ((), ("table", "shelf"), ("tv",)),
    "bedroom": (("drawer",), ("bed",), ("lamp",)),
    "bathroom": (("washer",), ("sink",), ("fan",)),
    "office": (("box",), ("desk",), ("computer",)),
}
_ROOMS = tuple(_FURNITURE)
_OBJECTS = (
    "apple", "cup", "book", "remote", "plate", "shirt", "key", "phone",
    "pen", "towel", "banana", "glass",
)  # fmt: skip
_HANDS = 2
_HELD = -1

# a state: (agent room index, held object indices (sorted tuple), receptacle index of each
# object (_HELD when held), open flag of each container, on flag of each device)
State = tuple


def format_action(action: Sequence[str]) -> str:
    """``("put", "apple", "fridge")`` -> ``"put apple fridge"``."""
    return " ".join(action)


class GridHome:
    """A household of ``n_rooms`` rooms (kitchen, living_room, bedroom, bathroom, office) and
    ``n_objects`` grabbable objects placed at random (``rng``) in or on the receptacles;
    containers start closed, devices off, the agent in the first room.

    ``state`` is the current state (``reset``/``step`` change it); ``transition(state,
    action)``, ``legal_actions(state)`` and ``satisfied(goal, state)`` are pure, for planners.
    """

    def __init__(self, *, n_rooms: int = 3, n_objects: int = 8, rng: Any = None) -> None:
        n_rooms = check_int(n_rooms, "n_rooms", minimum=1, maximum=len(_ROOMS))
        n_objects = check_int(n_objects, "n_objects", minimum=1, maximum=len(_OBJECTS))
        gen = check_rng(rng)
        self.rooms = _ROOMS[:n_rooms]
        self.containers = tuple(c for r in self.rooms for c in _FURNITURE[r][0])
        self.surfaces = tuple(s for r in self.rooms for s in _FURNITURE[r][1])
        self.devices = tuple(d for r in self.rooms for d in _FURNITURE[r][2])
        self.receptacles = self.containers + self.surfaces
        self.objects = _OBJECTS[:n_objects]
        self.room_of = {
            f: r for r in self.rooms for group in _FURNITURE[r] for f in group
        }  # furniture -> room
        self._room = {r: i for i, r in enumerate(self.rooms)}
        self._obj = {o: i for i, o in enumerate(self.objects)}
        self._rec = {r: i for i, r in enumerate(self.receptacles)}
        self._cont = {c: i for i, c in enumerate(self.containers)}
        self._dev = {d: i for i, d in enumerate(self.devices)}
        self._rec_room = tuple(self._room[self.room_of[r]] for r in self.receptacles)
        self._dev_room = tuple(self._room[self.room_of[d]] for d in self.devices)
        self._rec_cont = tuple(
            self._cont.get(r, -1) for r in self.receptacles
        )  # container index or -1 (a surface)
        locations = tuple(int(i) for i in gen.integers(0, len(self.receptacles), n_objects))
        self.initial_state: State = (
            0,
            (),
            locations,
            (False,) * len(self.containers),
            (False,) * len(self.devices),
        )
        self.state: State = self.initial_state

    # ------------------------------------------------------------------ state and actions
    def reset(self) -> State:
        """Back to the initial state; returns it."""
        self.state = self.initial_state
        return self.state

    def copy(self) -> GridHome:
        other = object.__new__(GridHome)
        other.__dict__.update(self.__dict__)
        return other

    def _check_state(self, state: Any) -> State:
        if state is None:
            return self.state
        if not (isinstance(state, tuple) and len(state) == 5):
            raise TypeError(f"state must be a GridHome state tuple, got {describe(state)}")
        return state

    def agent_room(self, state: State | None = None) -> str:
        return self.rooms[self._check_state(state)[0]]

    def held(self, state: State | None = None) -> tuple[str, ...]:
        return tuple(self.objects[i] for i in self._check_state(state)[1])

    def location(self, obj: str, state: State | None = None) -> tuple[str, str | None]:
        """``("in", container)``, ``("on", surface)`` or ``("held", None)``."""
        state = self._check_state(state)
        if obj not in self._obj:
            raise ValueError(f"obj must be one of {list(self.objects)}, got {obj!r}")
        rec = state[2][self._obj[obj]]
        if rec == _HELD:
            return ("held", None)
        name = self.receptacles[rec]
        return ("in" if self._rec_cont[rec] >= 0 else "on", name)

    def _violation(self, state: State, action: Any) -> str | None:
        """Why ``action`` is illegal in ``state`` (None when legal)."""
        if not (
            isinstance(action, tuple | list) and action and all(isinstance(a, str) for a in action)
        ):
            return f"must be a tuple of strings such as ('walk', 'kitchen'), got {describe(action)}"
        verb, args = action[0], tuple(action[1:])
        room, held, loc, opened, on = state
        arity = {
            "walk": 1,
            "grab": 1,
            "put": 2,
            "open": 1,
            "close": 1,
            "switch_on": 1,
            "switch_off": 1,
        }
        if verb not in arity:
            return f"has an unknown verb {verb!r} (verbs: {sorted(arity)})"
        if len(args) != arity[verb]:
            return f"{verb} takes {arity[verb]} argument(s), got {len(args)}"
        if verb == "walk":
            if args[0] not in self._room:
                return f"walks to an unknown room {args[0]!r}"
            return "walks to the room the agent is in" if self._room[args[0]] == room else None
        if verb in ("grab", "put"):
            if args[0] not in self._obj:
                return f"names an unknown object {args[0]!r}"
            o = self._obj[args[0]]
            if verb == "grab":
                if loc[o] == _HELD:
                    return f"grabs {args[0]}, which is held already"
                if len(held) >= _HANDS:
                    return "grabs with both hands full"
                if self._rec_room[loc[o]] != room:
                    return f"grabs {args[0]}, which is not in this room"
                c = self._rec_cont[loc[o]]
                if c >= 0 and not opened[c]:
                    return f"grabs {args[0]} from the closed {self.containers[c]}"
                return None
            if args[1] not in self._rec:
                return f"puts on an unknown receptacle {args[1]!r}"
            r = self._rec[args[1]]
            if loc[o] != _HELD:
                return f"puts {args[0]}, which is not held"
            if self._rec_room[r] != room:
                return f"puts on {args[1]}, which is not in this room"
            c = self._rec_cont[r]
            return f"puts into the closed {args[1]}" if c >= 0 and not opened[c] else None
        if verb in ("open", "close"):
            if args[0] not in self._cont:
                return f"opens or closes {args[0]!r}, which is not a container"
            c = self._cont[args[0]]
            if self._rec_room[self._rec[args[0]]] != room:
                return f"{verb}s {args[0]}, which is not in this room"
            if opened[c] == (verb == "open"):
                return f"{verb}s {args[0]}, which is {'open' if opened[c] else 'closed'} already"
            return None
        if args[0] not in self._dev:
            return f"switches {args[0]!r}, which is not a device"
        d = self._dev[args[0]]
        if self._dev_room[d] != room:
            return f"switches {args[0]}, which is not in this room"
        if on[d] == (verb == "switch_on"):
            return f"switches {args[0]} {'on' if on[d] else 'off'}, which it is already"
        return None

    def is_legal(self, action: Any, state: State | None = None) -> bool:
        return self._violation(self._check_state(state), action) is None

    def _apply(self, state: State, action: tuple[str, ...]) -> State:
        room, held, loc, opened, on = state
        verb = action[0]
        if verb == "walk":
            return (self._room[action[1]], held, loc, opened, on)
        if verb == "grab":
            o = self._obj[action[1]]
            loc = loc[:o] + (_HELD,) + loc[o + 1 :]
            return (room, tuple(sorted(held + (o,))), loc, opened, on)
        if verb == "put":
            o = self._obj[action[1]]
            loc = loc[:o] + (self._rec[action[2]],) + loc[o + 1 :]
            return (room, tuple(h for h in held if h != o), loc, opened, on)
        if verb in ("open", "close"):
            c = self._cont[action[1]]
            opened = opened[:c] + (verb == "open",) + opened[c + 1 :]
            return (room, held, loc, opened, on)
        d = self._dev[action[1]]
        on = on[:d] + (verb == "switch_on",) + on[d + 1 :]
        return (room, held, loc, opened, on)

    def transition(self, state: State, action: Sequence[str]) -> State:
        """The state after ``action`` (pure); a ValueError naming ``action`` if a precondition
        fails."""
        state = self._check_state(state)
        if not (isinstance(action, tuple | list) and all(isinstance(a, str) for a in action)):
            raise TypeError(
                f"action must be a tuple of strings such as ('walk', 'kitchen'), got {describe(action)}"
            )
        why = self._violation(state, action)
        if why is not None:
            raise ValueError(f"action {format_action(action)!r} {why}")
        return self._apply(state, tuple(action))

    def step(self, action: Sequence[str]) -> State:
        """Apply ``action`` to the current state (ValueError on a precondition violation)."""
        self.state = self.transition(self.state, action)
        return self.state

    def legal_actions(
        self, state: State | None = None, *, useful: frozenset[str] | None = None
    ) -> list[tuple[str, ...]]:
        """Every legal action in ``state``; with ``useful``, only actions on those entities
        (walks always)."""
        state = self._check_state(state)
        room, held, loc, opened, on = state
        keep = (lambda name: True) if useful is None else (lambda name: name in useful)
        acts: list[tuple[str, ...]] = [("walk", r) for i, r in enumerate(self.rooms) if i != room]
        here_rec = [i for i, rr in enumerate(self._rec_room) if rr == room]
        for i in here_rec:
            c = self._rec_cont[i]
            if c >= 0 and keep(self.receptacles[i]):
                acts.append(("close" if opened[c] else "open", self.receptacles[i]))
        for d, dr in enumerate(self._dev_room):
            if dr == room and keep(self.devices[d]):
                acts.append(("switch_off" if on[d] else "switch_on", self.devices[d]))
        if len(held) < _HANDS:
            for o, r in enumerate(loc):
                if r != _HELD and self._rec_room[r] == room and keep(self.objects[o]):
                    c = self._rec_cont[r]
                    if c < 0 or opened[c]:
                        acts.append(("grab", self.objects[o]))
        for o in held:
            if not keep(self.objects[o]):
                continue
            for i in here_rec:
                c = self._rec_cont[i]
                if (c < 0 or opened[c]) and keep(self.receptacles[i]):
                    acts.append(("put", self.objects[o], self.receptacles[i]))
        return acts

    # ------------------------------------------------------------------ goals
    def parse_goal(self, goal: Any) -> tuple[tuple[str, ...], ...]:
        """Goal predicates as tuples (strings such as ``"apple in fridge"`` parsed); a
        ValueError naming ``goal`` for unknown entities or predicates."""
        if isinstance(goal, str) or (
            isinstance(goal, tuple) and goal and isinstance(goal[0], str) and goal[0] in _PREDICATES
        ):
            goal = [goal]
        if not isinstance(goal, Sequence) or isinstance(goal, str):
            raise TypeError(f"goal must be a sequence of predicates, got {describe(goal)}")
        if not goal:
            raise ValueError("goal must have at least one predicate")
        out = []
        for g in goal:
            p = self._parse_predicate(g)
            if p not in out:
                out.append(p)
        return tuple(out)

    def _parse_predicate(self, g: Any) -> tuple[str, ...]:
        if isinstance(g, str):
            words = g.replace(",", " ").split()
            if len(words) == 3 and words[1] in ("in", "on"):
                p = (words[1], words[0], words[2])
            elif len(words) == 2 and words[1] in ("on", "off") and words[0] in self._dev:
                p = ("switched_" + words[1], words[0])
            elif len(words) == 2 and words[1] in ("open", "closed"):
                p = (words[1], words[0])
            elif len(words) == 2 and words[0] in ("holding", "agent_in"):
                p = (words[0], words[1])
            else:
                raise ValueError(
                    f"goal predicate {g!r} is not understood (e.g. 'apple in fridge', 'tv on')"
                )
        elif isinstance(g, tuple | list) and g and all(isinstance(x, str) for x in g):
            p = tuple(g)
        else:
            raise TypeError(
                f"goal predicates must be strings or tuples of strings, got {describe(g)}"
            )
        kinds = {
            "in": (self._obj, self._cont),
            "on": (self._obj, {s: 0 for s in self.surfaces}),
            "switched_on": (self._dev,),
            "switched_off": (self._dev,),
            "open": (self._cont,),
            "closed": (self._cont,),
            "holding": (self._obj,),
            "agent_in": (self._room,),
        }
        if p[0] not in kinds or len(p) != len(kinds[p[0]]) + 1:
            raise ValueError(f"goal predicate {g!r} is unknown (predicates: {sorted(kinds)})")
        for name, table in zip(p[1:], kinds[p[0]], strict=True):
            if name not in table:
                raise ValueError(f"goal predicate {g!r} names {name!r}, which is not in this home")
        return p

    def holds(self, predicate: tuple[str, ...], state: State | None = None) -> bool:
        state = self._check_state(state)
        room, held, loc, opened, on = state
        kind = predicate[0]
        if kind in ("in", "on"):
            return loc[self._obj[predicate[1]]] == self._rec[predicate[2]]
        if kind in ("switched_on", "switched_off"):
            return on[self._dev[predicate[1]]] == (kind == "switched_on")
        if kind in ("open", "closed"):
            return opened[self._cont[predicate[1]]] == (kind == "open")
        if kind == "holding":
            return loc[self._obj[predicate[1]]] == _HELD
        return room == self._room[predicate[1]]

    def satisfied(self, goal: Any, state: State | None = None) -> bool:
        """Whether every predicate of ``goal`` holds in ``state`` (default: the current one)."""
        goal = self.parse_goal(goal)
        state = self._check_state(state)
        return all(self.holds(p, state) for p in goal)

    def sample_goal(self, *, n_predicates: int = 2, rng: Any = None) -> tuple[tuple[str, ...], ...]:
        """A random goal of ``n_predicates`` predicates, none true in the initial state: at most
        two object placements ("apple in fridge", "cup on table"), the rest devices switched on
        ("tv on") or containers left open."""
        n_predicates = check_int(n_predicates, "n_predicates", minimum=1, maximum=4)
        gen = check_rng(rng)
        s0 = self.initial_state
        goal: list[tuple[str, ...]] = []
        n_place = min(int(gen.integers(1, 3)), n_predicates, len(self.objects), 2)
        for o in gen.permutation(len(self.objects))[:n_place]:
            options = [i for i in range(len(self.receptacles)) if i != s0[2][o]]
            r = self.receptacles[options[int(gen.integers(len(options)))]]
            goal.append(("in" if r in self._cont else "on", self.objects[o], r))
        extra = [("switched_on", d) for d in self.devices] + [("open", c) for c in self.containers]
        for i in gen.permutation(len(extra)):
            if len(goal) >= n_predicates:
                break
            goal.append(extra[i])
        return tuple(goal)

    def describe(self, state: State | None = None) -> str:
        """The state as short sentences."""
        state = self._check_state(state)
        parts = [f"you are in the {self.agent_room(state)}"]
        held = self.held(state)
        parts.append("you hold " + (" and ".join(held) if held else "nothing"))
        for o in self.objects:
            rel, rec = self.location(o, state)
            if rel != "held":
                parts.append(f"the {o} is {rel} the {rec}")
        for c, is_open in zip(self.containers, state[3], strict=True):
            parts.append(f"the {c} is {'open' if is_open else 'closed'}")
        for d, is_on in zip(self.devices, state[4], strict=True):
            parts.append(f"the {d} is {'on' if is_on else 'off'}")
        return ". ".join(parts) + "."

    def __repr__(self) -> str:
        return f"GridHome(rooms={list(self.rooms)}, objects={list(self.objects)})"


_PREDICATES = ("in", "on", "switched_on", "switched_off", "open", "closed", "holding", "agent_in")


# ---------------------------------------------------------------------- planning


@dataclass(frozen=True)
class Plan:
    """``mcts_plan``'s result: the actions from the start state, whether they reach the goal,
    the goal (parsed) and the state they end in."""

    actions: tuple[tuple[str, ...], ...]
    success: bool
    goal: tuple[tuple[str, ...], ...]
    final_state: tuple

    @property
    def steps(self) -> list[str]:
        """The actions as strings (``"open fridge"``)."""
        return [format_action(a) for a in self.actions]


@dataclass(frozen=True)
class Trajectory:
    """``random_explore``'s result: the actions taken, the states visited (``len(actions) + 1``,
    the start first) and, when a goal was given, whether it was reached (it stops there)."""

    actions: tuple[tuple[str, ...], ...]
    states: tuple[tuple, ...]
    success: bool | None


def _useful(env: GridHome, goal: tuple[tuple[str, ...], ...], state: State) -> frozenset[str]:
    """The paper's "useful objects only": the goal's entities and the containers that hold the
    goal's objects now."""
    names = {n for p in goal for n in p[1:]}
    for p in goal:
        if p[0] in ("in", "on", "holding"):
            rec = state[2][env._obj[p[1]]]
            if rec != _HELD:
                names.add(env.receptacles[rec])
    return frozenset(names)


def _progress(env: GridHome, goal: tuple[tuple[str, ...], ...], state: State) -> float:
    """Fraction of goal predicates that hold, with half credit for holding an object that still
    has to be placed."""
    score = 0.0
    for p in goal:
        if env.holds(p, state):
            score += 1.0
        elif p[0] in ("in", "on") and state[2][env._obj[p[1]]] == _HELD:
            score += 0.5
    return score / len(goal)


class _Node:
    __slots__ = ("action", "children", "n", "parent", "state", "untried", "w")

    def __init__(self, state, action, parent, untried):
        self.state, self.action, self.parent, self.untried = state, action, parent, untried
        self.children: list[_Node] = []
        self.n = 0
        self.w = 0.0


def _drop_idle_walks(room: str, actions: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """A walk followed directly by another walk does nothing: drop it, and drop both when the
    second walks back to where the first started (``room``: the agent's room at the start)."""
    out: list[tuple[str, ...]] = []
    before: list[str] = []  # the agent's room before each kept action
    for a in actions:
        if a[0] == "walk" and out and out[-1][0] == "walk":
            out.pop()
            room = before.pop()
            if a[1] == room:
                continue
        before.append(room)
        out.append(a)
        if a[0] == "walk":
            room = a[1]
    return out


def mcts_plan(
    env: GridHome,
    goal: Any,
    *,
    n_simulations: int = 200,
    c_uct: float = 1.4,
    max_depth: int = 20,
    prune: bool = True,
    rng: Any = None,
) -> Plan:
    """Plan from ``env.state`` to ``goal`` with Monte Carlo tree search (UCT).

    At each step the search runs ``n_simulations`` simulations from the current state (UCT
    selection with constant ``c_uct``, expansion of one untried action, a random rollout to the
    step budget); a simulation that reaches the goal ends the search with its actions, otherwise
    the most visited action is taken. Reward: 1 (discounted 0.98 per step) when every predicate
    holds, else the fraction of predicates that hold. ``prune`` keeps actions on the goal's
    entities only (the paper's "useful objects"). ``env`` is not changed; at most ``max_depth``
    actions.
    """
    if not isinstance(env, GridHome):
        raise TypeError(f"env must be a GridHome, got {describe(env)}")
    goal = env.parse_goal(goal)
    n_simulations = check_int(n_simulations, "n_simulations", minimum=1)
    c_uct = check_float(c_uct, "c_uct", minimum=0.0)
    max_depth = check_int(max_depth, "max_depth", minimum=1)
    if not isinstance(prune, bool):
        raise TypeError(f"prune must be True or False, got {describe(prune)}")
    gen = check_rng(rng)
    state = env.state
    plan: list[tuple[str, ...]] = []

    def actions(s):
        return env.legal_actions(s, useful=_useful(env, goal, s) if prune else None)

    def done(s):
        return all(env.holds(p, s) for p in goal)

    while len(plan) < max_depth and not done(state):
        budget = max_depth - len(plan)
        root = _Node(state, None, None, actions(state))
        found: list[tuple[str, ...]] | None = None
        for _ in range(n_simulations):
            node, depth = root, 0
            while not node.untried and node.children and not done(node.state) and depth < budget:
                log_n = math.log(node.n)
                node = max(
                    node.children,
                    key=lambda c: c.w / c.n + c_uct * math.sqrt(log_n / c.n),
                )
                depth += 1
            if node.untried and not done(node.state) and depth < budget:
                a = node.untried.pop(int(gen.integers(len(node.untried))))
                s = env._apply(node.state, a)
                child = _Node(s, a, node, actions(s))
                node.children.append(child)
                node, depth = child, depth + 1
            s, rollout = node.state, []
            while not done(s) and depth + len(rollout) < budget:
                acts = actions(s)
                if not acts:
                    break
                a = acts[int(gen.integers(len(acts)))]
                s = env._apply(s, a)
                rollout.append(a)
            steps = depth + len(rollout)
            if done(s):
                reward = 0.98**steps
                path, walk = [], node
                while walk.parent is not None:
                    path.append(walk.action)
                    walk = walk.parent
                candidate = path[::-1] + rollout
                if found is None or len(candidate) < len(found):
                    found = candidate
            else:
                reward = 0.5 * _progress(env, goal, s)
            while node is not None:
                node.n += 1
                node.w += reward
                node = node.parent
        if found is not None:
            found = _drop_idle_walks(env.rooms[state[0]], found)
            for a in found:
                state = env._apply(state, a)
            plan.extend(found)
            break
        if not root.children:
            break
        best = max(root.children, key=lambda c: (c.n, c.w))
        plan.append(best.action)
        state = best.state
    return Plan(tuple(plan), done(state), goal, state)


def random_explore(env: GridHome, n_steps: int, *, goal: Any = None, rng: Any = None) -> Trajectory:
    """An agent that takes ``n_steps`` uniformly random legal actions from ``env.state`` (``env``
    is not changed); with ``goal`` it stops once the goal holds and reports ``success``."""
    if not isinstance(env, GridHome):
        raise TypeError(f"env must be a GridHome, got {describe(env)}")
    n_steps = check_int(n_steps, "n_steps", minimum=0)
    parsed = None if goal is None else env.parse_goal(goal)
    gen = check_rng(rng)
    state = env.state
    states, acts = [state], []
    reached = parsed is not None and all(env.holds(p, state) for p in parsed)
    for _ in range(n_steps):
        if reached:
            break
        legal = env.legal_actions(state)
        a = legal[int(gen.integers(len(legal)))]
        state = env._apply(state, a)
        acts.append(a)
        states.append(state)
        reached = parsed is not None and all(env.holds(p, state) for p in parsed)
    return Trajectory(tuple(acts), tuple(states), None if parsed is None else reached)
