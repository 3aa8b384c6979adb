"""The typed syntax tree: frozen attrs classes, no behaviour.

Every node's first field is its source span. Effect, condition, rule and amount nodes carry a
``PHRASES`` tuple: the phrase patterns (section 3 of LANGUAGE.md) that build them. A pattern is
words and typed slots, ``"lose {n:amount} time"``; ``build.py`` matches lines against them, so the
vocabulary lives here, next to the nodes it makes. Names are the rulebook's verbs and nouns.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Optional, Union

import attrs

from .diagnostics import Span


# --- node families --------------------------------------------------------------------------
class Node:
    """Base of every content node (a frozen attrs class whose first field is its span).

    The families below are sealed: every member is declared in this module, so that one registry
    (``members``) knows them all and each consumer can be checked for completeness (a function
    per node, found by name: ``exec_<snake>``, ``eval_<snake>``, ``_render_<snake>`` …)."""

    __slots__ = ()
    span: Span  # every node's first field (declared on each class; here for the type checker)

    def __repr__(self) -> str:
        """attrs' own form, ``Kind(span=…, field=…)``, written once here instead of made for each
        node class (``repr=False`` on each): the ~200 classes load a quarter faster."""
        cls = type(self)
        fields = ", ".join([f"{a.name}={getattr(self, a.name)!r}" for a in cls.__attrs_attrs__])  # type: ignore[attr-defined]  # every node class is an attrs class
        return f"{cls.__qualname__}({fields})"

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.__module__ != __name__:
            raise TypeError(f"{cls.__name__}: node families are sealed; declare content nodes in dsl/nodes.py")


class Effect(Node):
    """An effect line: resolved once, top to bottom (C2.3)."""

    __slots__ = ()


class Control(Effect):
    """An effect line that holds blocks of effects (``if``, ``repeat``, ``choose`` …)."""

    __slots__ = ()


class Condition(Node):
    """A yes/no question about the game (``if``, ``win when``, action and link conditions)."""

    __slots__ = ()


class Amount(Node):
    """A number worked out when its effect resolves (a literal number is a plain ``int``)."""

    __slots__ = ()


class Place(Node):
    """A location worked out when its effect resolves (a location id or a special name such as
    ``here`` is a plain ``str``)."""

    __slots__ = ()


class Event(Node):
    """Something that happens in the game, which triggers and replacements name."""

    __slots__ = ()


class Piece(Node):
    """What an event happens to: the Final Girl, a killer body, a victim, a minion (of a kind)."""

    __slots__ = ()


class Rule(Node):
    """A static rule (``rule …``): queried while its source is in play; every rule has ``cond``
    (``rule … while CONDITION``; None: always in force)."""

    __slots__ = ()
    if TYPE_CHECKING:
        cond: Optional[Condition]


class Decl(Node):
    """A declaration or a part of one (a card, a killer, a location, a trigger …)."""

    __slots__ = ()


FAMILIES: tuple[type, ...] = (Effect, Condition, Amount, Place, Event, Piece, Rule, Decl)


def snake(name: str) -> str:
    """``GainTime`` -> ``gain_time``: the suffix of the functions found by name for a node class."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def members(family: type) -> tuple[type, ...]:
    """The node classes of a family, in declaration order (abstract bases left out)."""
    return tuple(c for c in globals().values()
                 if isinstance(c, type) and issubclass(c, family) and attrs.has(c))


def functions(family: type, namespace: dict[str, Any], prefix: str) -> dict[type, Callable[..., Any]]:
    """The functions ``<prefix><snake name>`` of a namespace for the members of a family, by class."""
    out: dict[type, Callable[..., Any]] = {}
    for cls in members(family):
        fn = namespace.get(prefix + snake(cls.__name__))
        if callable(fn):
            out[cls] = fn
    return out


def missing(family: type, namespace: dict[str, Any], prefix: str) -> list[str]:
    """The members of a family without a ``<prefix><snake name>`` function in a namespace."""
    have = functions(family, namespace, prefix)
    return [c.__name__ for c in members(family) if c not in have]


# --- walking the tree: the one walker every consumer uses -------------------------------------
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """A node class's fields, span left out (looked up once: walking the tree asks for them often)."""
    got = _FIELD_NAMES.get(cls)
    if got is None:
        got = _FIELD_NAMES[cls] = tuple(f.name for f in attrs.fields(cls) if f.name != "span")
    return got


def fields(node: Any) -> Iterator[tuple[str, Any]]:
    """(name, value) of a node's fields, span left out."""
    for name in _field_names(type(node)):
        yield name, getattr(node, name)


def defaults(cls: type) -> dict[str, Any]:
    """The default values of a node class's fields that have one."""
    return {f.name: f.default for f in attrs.fields(cls) if f.default is not attrs.NOTHING}


def _nodes_in(value: Any) -> Iterator[Any]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, tuple):
        for v in value:
            yield from _nodes_in(v)


def _add_nodes(value: Any, out: list[Any]) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for v in value:
            _add_nodes(v, out)


def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for name in _field_names(type(node)):
        _add_nodes(getattr(node, name), out)
    return out


def children(node: Any) -> Iterator[Any]:
    """The nodes directly inside a node (in field order; tuples, nested ones too, flattened)."""
    return iter(_children(node))


def walk(root: Any) -> Iterator[Any]:
    """Every node of a tree, the root first, depth first in field order (a tuple of nodes is a
    forest). A node shared by several parents is visited under each."""
    todo = list(_nodes_in(root))[::-1]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(reversed(_children(node)))


_ALL_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN = (str, int, bool, float, type(None), frozenset)


def moved_down(value: Any, lines: int) -> Any:
    """A built value (nodes, and the references and diagnostics that come with them) with every span
    moved down by ``lines`` lines: an editor's file built a declaration at a time, when lines added
    above a declaration move it (dsl/editing.py)."""
    t = type(value)
    if t in _PLAIN:
        return value
    if t is Span:
        return Span(value.path, value.line + lines, value.col, value.end_line + lines, value.end_col)
    if t is tuple:
        return tuple([moved_down(v, lines) for v in value])
    if t is list:
        return [moved_down(v, lines) for v in value]
    names = _ALL_FIELDS.get(t)
    if names is None:
        if not attrs.has(t):
            return value
        names = _ALL_FIELDS[t] = tuple(f.name for f in attrs.fields(t))
    return t(**{k: moved_down(getattr(value, k), lines) for k in names})


# --- amounts: numbers worked out as their effect resolves (grammar: amount) -----------------------
Loc = Union[str, "Place"]  # a location id, a special name (here, fg, it, killer-location, …) or a place node
Num = Union[int, "Amount"]  # a number, or an amount node worked out as the effect resolves

COUNTABLES = ("victims", "dead", "rescued", "minions", "killers", "enemies", "exits", "items", "spent",
              "tokens", "collected", "cards", "minion")


@attrs.frozen(repr=False)
class Count(Amount):
    """``count WHAT [at PLACE]``: victims (on the board), the dead, the rescued, minions (of every
    kind, or ``count KIND`` of one), killer bodies, enemies (both), exits, items held, tokens spent
    (inside a spend block), ``tokens T`` on the board, ``collected T`` by the Final Girl,
    ``cards in DECK`` still in a named deck. ``at PLACE`` counts only what stands there."""

    span: Span
    what: str  # one of COUNTABLES
    kind: str = ""  # the minion kind, token type or deck id, for those that take one
    where: Loc = ""  # "" = the whole board


@attrs.frozen(repr=False)
class Quantity(Amount):
    """The current value of a number of the game: fear, time, health (the Final Girl's), bloodlust
    (the level, from 1), ``killer health`` (the body an event or trigger is about, else the killer)."""

    span: Span
    what: str  # fear | time | health | bloodlust | killer-health


@attrs.frozen(repr=False)
class That(Amount):
    """The number of the event being answered: the damage, the time, the bloodlust… (``when`` and
    ``instead of`` blocks; 0 elsewhere)."""

    span: Span


@attrs.frozen(repr=False)
class LevelStat(Amount):
    """A number printed on the current bloodlust level (``level move 1 damage 1 spawn 2``):
    ``bloodlust move``, ``bloodlust damage``, or any other it prints; 0 where it prints none (K6.3)."""

    span: Span
    stat: str


@attrs.frozen(repr=False)
class Distance(Amount):
    """``distance from PLACE to PLACE``: the fewest moves along the paths the Final Girl may use."""

    span: Span
    a: Loc
    b: Loc


@attrs.frozen(repr=False)
class Arith(Amount):
    """``A plus B``, ``A minus B`` (never below 0: amounts count things)."""

    span: Span
    op: str  # plus | minus
    a: Num
    b: Num


@attrs.frozen(repr=False)
class MinMax(Amount):
    """``min of A and B``, ``max of A and B``."""

    span: Span
    fn: str  # min | max
    a: Num
    b: Num


# --- places: a location picked as the effect resolves (grammar: place, selector) ----------------
@attrs.frozen(repr=False)
class Locations(Decl):
    """The set a selector picks from: ``any`` location, ``exit``, ``search``, a TAG, ``adjacent to
    PLACE``, ``within N of PLACE`` (along the paths the Final Girl may use)."""

    span: Span
    kind: str  # any | exit | search | tag | adjacent | within
    tag: str = ""
    near: Loc = ""
    n: Num = 0


@attrs.frozen(repr=False)
class Holding(Decl):
    """``with victims`` / ``with minions`` / ``with killer`` / ``with enemies`` / ``with token T``:
    only the locations holding such a piece."""

    span: Span
    what: str  # victims | minions | killer | enemies | token
    token: str = ""


@attrs.frozen(repr=False)
class Pick(Decl):
    """How a selector picks among what is left: ``nearest to PLACE``, ``farthest from PLACE``,
    ``with most X`` / ``with fewest X`` (an amount, or what a countable counts at each candidate),
    ``random``, ``chosen`` by the player. Later picks break the ties of earlier ones; board order last."""

    span: Span
    how: str  # nearest | farthest | most | fewest | random | chosen
    place: Loc = ""
    n: Num = 0


@attrs.frozen(repr=False)
class Selector(Place):
    """``(LOCATIONS [with …] [where CONDITION] [PICK [then PICK]…] [except PLACE])``: a location chosen
    when its effect resolves; inside ``where`` and the picks ``it`` is the candidate. In ``spawn N …``
    it is chosen again for each piece; ``for each`` goes over every candidate, in board order."""

    span: Span
    among: Locations
    holding: tuple[Holding, ...] = ()
    where: Optional[Condition] = None
    picks: tuple[Pick, ...] = ()
    skip: Loc = ""


# --- effects --------------------------------------------------------------------------------
@attrs.frozen(repr=False)
class GainTime(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("gain {n:amount} time",)


@attrs.frozen(repr=False)
class LoseTime(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("lose {n:amount} time",)


@attrs.frozen(repr=False)
class Heal(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("heal {n:amount}",)


@attrs.frozen(repr=False)
class LoseHealth(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("lose {n:amount} health",)


@attrs.frozen(repr=False)
class RaiseFear(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("raise fear {n:amount}",)


@attrs.frozen(repr=False)
class LowerFear(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("lower fear {n:amount}",)


@attrs.frozen(repr=False)
class MoveUpTo(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("move up to {n:amount}",)


@attrs.frozen(repr=False)
class DealDamage(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("deal {n:amount} damage",)


@attrs.frozen(repr=False)
class PreventDamage(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("prevent {n:amount} damage",)


@attrs.frozen(repr=False)
class SearchTake(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("search take {n:amount}",)


@attrs.frozen(repr=False)
class SearchLook(Effect):
    span: Span
    n: Num
    keep: Num
    PHRASES: ClassVar = ("search look {n:amount} keep {keep:amount}",)


@attrs.frozen(repr=False)
class EndActionPhase(Effect):
    span: Span
    PHRASES: ClassVar = ("end action phase",)


@attrs.frozen(repr=False)
class DrawEvent(Effect):
    span: Span
    PHRASES: ClassVar = ("draw event",)


@attrs.frozen(repr=False)
class GainCard(Effect):
    """``gain card CARD``: a copy of an action card set aside (``start aside``) into her hand (V3)."""

    span: Span
    card: str
    PHRASES: ClassVar = ("gain card {card:card}",)


@attrs.frozen(repr=False)
class RemoveCard(Effect):
    """``remove card CARD``: a copy of an action card leaves the game, from her hand, her cards
    spent this round or the market, in that order (it never comes back)."""

    span: Span
    card: str
    PHRASES: ClassVar = ("remove card {card:card}",)


@attrs.frozen(repr=False)
class GainItem(Effect):
    span: Span
    item: str
    PHRASES: ClassVar = ("gain item {item:item}",)


@attrs.frozen(repr=False)
class DiscardItem(Effect):
    span: Span
    item: str
    PHRASES: ClassVar = ("discard item {item:item}",)


@attrs.frozen(repr=False)
class RaiseBloodlust(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("raise bloodlust {n:amount}",)


@attrs.frozen(repr=False)
class LowerBloodlust(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("lower bloodlust {n:amount}",)


@attrs.frozen(repr=False)
class Hunt(Effect):
    """An enemy action (C9): target type, number of moves, number of attacks."""

    span: Span
    who: str  # killer | minions | enemies
    target: str  # fg | victims | fg-or-victims
    moves: Num
    attacks: Num
    PHRASES: ClassVar = (
        "{who:killer} hunts {target:target} moves {moves:amount} attacks {attacks:amount}",
        "{who:minions} hunt {target:target} moves {moves:amount} attacks {attacks:amount}",
        "{who:enemies} hunt {target:target} moves {moves:amount} attacks {attacks:amount}",
    )


@attrs.frozen(repr=False)
class KillVictims(Effect):
    span: Span
    n: Num
    loc: Loc
    PHRASES: ClassVar = ("kill {n:amount} victims at {loc:loc}",)


@attrs.frozen(repr=False)
class PlaceVictims(Effect):
    span: Span
    n: Num
    loc: Loc
    PHRASES: ClassVar = ("place {n:amount} victims at {loc:loc}",)


@attrs.frozen(repr=False)
class SpawnMinions(Effect):
    span: Span
    n: Num
    minion: str
    loc: Loc
    PHRASES: ClassVar = ("spawn {n:amount} {minion:minion} at {loc:loc}",)


@attrs.frozen(repr=False)
class MoveKillerTo(Effect):
    span: Span
    loc: Loc
    PHRASES: ClassVar = ("move killer to {loc:loc}",)


@attrs.frozen(repr=False)
class HealKiller(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("heal killer {n:amount}",)


@attrs.frozen(repr=False)
class DamageKiller(Effect):
    span: Span
    n: Num
    PHRASES: ClassVar = ("damage killer {n:amount}",)


@attrs.frozen(repr=False)
class RevealDarkPower(Effect):
    span: Span
    PHRASES: ClassVar = ("reveal dark power",)


@attrs.frozen(repr=False)
class RevealFinale(Effect):
    span: Span
    PHRASES: ClassVar = ("reveal finale",)


@attrs.frozen(repr=False)
class SetMode(Effect):
    span: Span
    mode: str
    PHRASES: ClassVar = ("set mode {mode:mode}",)


@attrs.frozen(repr=False)
class SetFlag(Effect):
    span: Span
    flag: str
    PHRASES: ClassVar = ("set flag {flag:name}",)


@attrs.frozen(repr=False)
class ClearFlag(Effect):
    span: Span
    flag: str
    PHRASES: ClassVar = ("clear flag {flag:name}",)


@attrs.frozen(repr=False)
class OpenPath(Effect):
    """``open path A B``: a path closed (declared ``closed``, or by ``close path``) opens for every
    mover; ``for fg`` / ``for victims`` / ``for enemies``: for those only (S1.4)."""

    span: Span
    a: Loc
    b: Loc
    who: str = ""  # "" everyone | fg | victims | enemies
    PHRASES: ClassVar = ("open path {a:loc} {b:loc}", "open path {a:loc} {b:loc} for {who:fg}",
                         "open path {a:loc} {b:loc} for {who:victims}", "open path {a:loc} {b:loc} for {who:enemies}")


@attrs.frozen(repr=False)
class PanicAt(Effect):
    span: Span
    loc: Loc
    PHRASES: ClassVar = ("panic at {loc:loc}",)


@attrs.frozen(repr=False)
class CollectToken(Effect):
    """The Final Girl takes a token of this type from LOC into her collection."""

    span: Span
    token: str
    loc: Loc
    PHRASES: ClassVar = ("collect token {token:token} at {loc:loc}",)


@attrs.frozen(repr=False)
class PlaceToken(Effect):
    """A token of this type, drawn at random from its supply, is put at LOC."""

    span: Span
    token: str
    loc: Loc
    PHRASES: ClassVar = ("place token {token:token} at {loc:loc}",)


@attrs.frozen(repr=False)
class DrawCard(Effect):
    """Draw the top card of a named deck: resolve its effect; a ``keep`` card stays in play. ``at
    PLACE``: the card resolves at that place (``here`` and ``it`` in its effects are it, K2.4)."""

    span: Span
    deck: str
    loc: Loc = ""  # "" = at no place of its own: 'here' is hers
    PHRASES: ClassVar = ("draw card {deck:deck}", "draw card {deck:deck} at {loc:loc}")


@attrs.frozen(repr=False)
class AddStatus(Effect):
    span: Span
    status: str
    who: str = "one"  # killer | enemies (all at LOC) | one (an enemy at LOC, the player's choice)
    loc: Loc = ""  # the location ("" for the killer)
    PHRASES: ClassVar = (
        "add status {status:name} to {who:killer}",
        "add status {status:name} to {who:enemies} at {loc:loc}",
        "add status {status:name} to an enemy at {loc:loc}",
    )


@attrs.frozen(repr=False)
class ClearStatus(Effect):
    span: Span
    status: str
    PHRASES: ClassVar = ("clear status {status:name}",)


@attrs.frozen(repr=False)
class TurnVictims(Effect):
    """Victims become minions of a kind: not a death (K5.5); spawns beyond the limit are ignored. Of
    a victim kind (issue #16 item 3): victims of no kind there become victims of that kind (K2.1)."""

    span: Span
    n: Num
    loc: Loc
    minion: str
    PHRASES: ClassVar = ("turn {n:amount} victims at {loc:loc} into {minion:kind}",)


@attrs.frozen(repr=False)
class TurnMinions(Effect):
    """Minions of a kind become victims again (K5.6); victims of a victim kind become victims of no
    kind again (K2.6)."""

    span: Span
    n: Num
    minion: str
    loc: Loc
    PHRASES: ClassVar = ("turn {n:amount} {minion:kind} at {loc:loc} into victims",)


# --- control lines (built from blocks, not phrases) -----------------------------------------
@attrs.frozen(repr=False)
class If(Control):
    span: Span
    cond: Condition
    then: tuple[Effect, ...]
    otherwise: tuple[Effect, ...] = ()


@attrs.frozen(repr=False)
class ModeBlock(Control):
    span: Span
    mode: str
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Repeat(Control):
    span: Span
    n: Num
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class ChooseOption(Decl):
    span: Span
    label: str
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Choose(Control):
    span: Span
    options: tuple[ChooseOption, ...]


@attrs.frozen(repr=False)
class RollRow(Decl):
    span: Span
    faces: tuple[int, ...]
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Roll(Control):
    span: Span
    rows: tuple[RollRow, ...]


@attrs.frozen(repr=False)
class SpendTokens(Control):
    """The player picks LOW..HIGH of her collected tokens of a type; they return to the supply and
    the block resolves with them (``each KIND { … }``, ``spent at least N``, ``spent covers …``)."""

    span: Span
    token: str
    low: int
    high: int
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Each(Control):
    """Inside a spend block: once per spent token of this kind."""

    span: Span
    kind: str
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class KillMinions(Effect):
    """Kill N minions of a kind at a location (no bloodlust, C15). Under ``rule killing MINION may
    damage killers`` the player may instead deal N damage to a killer there (K6.7). Of a victim kind:
    N victims of that kind there die, as ``kill N victims`` kills (C9.7: bloodlust rises; a
    replacement of their death answers each, K2.4, K2.6)."""

    span: Span
    n: Num
    minion: str
    loc: Loc
    PHRASES: ClassVar = ("kill {n:amount} {minion:kind} at {loc:loc}",)


@attrs.frozen(repr=False)
class FormKillers(Effect):
    """Every location holding at least N minions of a kind turns them into one new killer body,
    with health equal to their number and no last-breath token (K6.6); fires ``when killer forms``."""

    span: Span
    n: int
    minion: str
    PHRASES: ClassVar = ("turn groups of {n:int} {minion:minion} into killers",)


@attrs.frozen(repr=False)
class ForEach(Control):
    """``for each SELECTOR { … }``: the block once for each location of a selector (its set, its
    ``with`` and ``where`` parts, less its ``except``), in board order; ``it`` is that location.
    ``for each N of SELECTOR { … }``: for N different locations of it, each picked by the
    selector's picks among those not picked yet (``random``: N different random ones; none: the
    first N in board order); fewer if it has fewer."""

    span: Span
    among: Selector
    body: tuple[Effect, ...]
    count: Num = 0  # N of 'for each N of …'; 0: every location


# --- killer bodies and presence (K2.7–K2.9, K3, K1.6) ---------------------------
@attrs.frozen(repr=False)
class AllKillers(Control):
    """``all killers { … }``: the block once for each living killer body on the board, top to
    bottom, with ``the killer`` meaning that body (K3.3)."""

    span: Span
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class SwitchActive(Effect):
    """The active marker moves up or down the list of bodies, skipping the dead, wrapping (K3.2)."""

    span: Span
    way: str  # up | down
    PHRASES: ClassVar = ("active killer moves {way:way}",)


@attrs.frozen(repr=False)
class MakeActive(Effect):
    span: Span
    body: str
    PHRASES: ClassVar = ("killer {body:body} becomes active",)


@attrs.frozen(repr=False)
class KillerVanishes(Effect):
    """The body leaves the board (it stays in the game); in a Killer phase that phase ends at once (K1.6)."""

    span: Span
    body: str = ""  # "" = the killer
    PHRASES: ClassVar = ("killer vanishes", "killer {body:body} vanishes")


@attrs.frozen(repr=False)
class KillerAppears(Effect):
    """A body off the board (vanished, or never yet on it) is placed at a location."""

    span: Span
    loc: Loc
    body: str = ""
    PHRASES: ClassVar = ("killer appears at {loc:loc}", "killer {body:body} appears at {loc:loc}")


@attrs.frozen(repr=False)
class EndThisPhase(Effect):
    span: Span
    PHRASES: ClassVar = ("end this phase",)


@attrs.frozen(repr=False)
class SetModeNow(Effect):
    """A mode switch in force at once (``set mode`` waits for the next Killer phase, K4.1)."""

    span: Span
    mode: str
    PHRASES: ClassVar = ("set mode {mode:mode} now",)


@attrs.frozen(repr=False)
class SetKillerHealth(Effect):
    span: Span
    n: Num
    body: str = ""
    PHRASES: ClassVar = ("set killer health {n:amount}", "set killer {body:body} health {n:amount}")


@attrs.frozen(repr=False)
class SetKillerMaxHealth(Effect):
    """A body's maximum health (what healing restores it to, K1.5); its health is not changed."""

    span: Span
    n: Num
    body: str = ""
    PHRASES: ClassVar = ("set killer max health {n:amount}", "set killer {body:body} max health {n:amount}")


@attrs.frozen(repr=False)
class DefeatKiller(Effect):
    """The body is defeated outright: no last breath is flipped."""

    span: Span
    body: str = ""
    PHRASES: ClassVar = ("defeat killer", "defeat killer {body:body}")


@attrs.frozen(repr=False)
class EndGame(Effect):
    """The game ends at once: ``win`` the Final Girl wins, ``lose`` she loses (S1.8: a suicide)."""

    span: Span
    side: str  # win | lose
    reason: str
    PHRASES: ClassVar = ("end game {side:side} {reason:string}",)


EFFECT_NODES: tuple[type, ...] = (
    GainTime, LoseTime, Heal, LoseHealth, RaiseFear, LowerFear, MoveUpTo, DealDamage,
    PreventDamage, SearchTake, SearchLook, EndActionPhase, DrawEvent, GainItem, DiscardItem,
    RaiseBloodlust, LowerBloodlust, Hunt, KillVictims, PlaceVictims, SpawnMinions, MoveKillerTo,
    HealKiller, DamageKiller, RevealDarkPower, RevealFinale, SetMode, SetFlag, ClearFlag,
    OpenPath, PanicAt, CollectToken, PlaceToken, DrawCard, AddStatus, ClearStatus, TurnVictims, TurnMinions,
    KillMinions, FormKillers, SwitchActive, MakeActive, KillerVanishes, KillerAppears, EndThisPhase, SetModeNow,
    SetKillerMaxHealth, SetKillerHealth, DefeatKiller, EndGame,
)
CONTROL_NODES: tuple[type, ...] = (If, ModeBlock, Repeat, Choose, Roll, SpendTokens, Each, ForEach, AllKillers)


# --- conditions (grammar: condition) --------------------------------------------------------------
@attrs.frozen(repr=False)
class AllOf(Condition):
    """``all { A; B; … }``: every one holds."""

    span: Span
    conds: tuple[Condition, ...]


@attrs.frozen(repr=False)
class AnyOf(Condition):
    """``any { A; B; … }``: at least one holds."""

    span: Span
    conds: tuple[Condition, ...]


@attrs.frozen(repr=False)
class Not(Condition):
    span: Span
    cond: Condition


@attrs.frozen(repr=False)
class Compare(Condition):
    """``AMOUNT at least AMOUNT`` (``at most``, ``is``, ``more than``, ``less than``)."""

    span: Span
    left: Num
    op: str  # at-least | at-most | is | more-than | less-than
    right: Num


@attrs.frozen(repr=False)
class FgAt(Condition):
    span: Span
    loc: Loc


@attrs.frozen(repr=False)
class FgAtTag(Condition):
    span: Span
    tag: str


@attrs.frozen(repr=False)
class VictimsAt(Condition):
    span: Span
    loc: Loc


@attrs.frozen(repr=False)
class KillerAt(Condition):
    span: Span
    loc: Loc
    body: str = ""  # "" = any body


@attrs.frozen(repr=False)
class KillerIs(Condition):
    """``killer [BODY] is on the board`` / ``off the board`` / ``active`` / ``set aside``."""

    span: Span
    what: str  # on-board | off-board | active | aside
    body: str = ""  # "" = the killer


@attrs.frozen(repr=False)
class MinionsAt(Condition):
    span: Span
    loc: Loc


@attrs.frozen(repr=False)
class TokenAt(Condition):
    """``token T at PLACE``; ``token T KIND at PLACE`` (a face-up one of the kind: a face-down token's
    kind is read by nothing); ``token T face down at PLACE`` / ``face up`` (issue #33 item 4)."""

    span: Span
    token: str
    loc: Loc
    kind: str = ""  # "" = any kind
    face: str = ""  # "" = either face | up | down


@attrs.frozen(repr=False)
class FlagSet(Condition):
    span: Span
    flag: str


@attrs.frozen(repr=False)
class InMode(Condition):
    span: Span
    mode: str


@attrs.frozen(repr=False)
class HasItem(Condition):
    span: Span
    item: str


@attrs.frozen(repr=False)
class SpentCovers(Condition):
    """The spent tokens include one of each listed kind (a ``wild`` kind stands in for any)."""

    span: Span
    kinds: tuple[str, ...]


@attrs.frozen(repr=False)
class PlaceIs(Condition):
    """``PLACE is exit`` / ``PLACE is search``."""

    span: Span
    place: Loc
    kind: str  # exit | search


@attrs.frozen(repr=False)
class HasTag(Condition):
    """``PLACE has tag TAG``."""

    span: Span
    place: Loc
    tag: str


@attrs.frozen(repr=False)
class BoardHasTag(Condition):
    """``board has tag TAG``: some location of the map the game is played on has the tag (K2.1)."""

    span: Span
    tag: str


@attrs.frozen(repr=False)
class SamePlace(Condition):
    """``PLACE is PLACE``: the two name one location."""

    span: Span
    a: Loc
    b: Loc


@attrs.frozen(repr=False)
class Within(Condition):
    """``fg within N of PLACE`` / ``killer within N of PLACE``: at most N moves away along the
    paths that piece may use (the killer: any living body on the board)."""

    span: Span
    mover: str  # fg | killer
    n: Num
    place: Loc


@attrs.frozen(repr=False)
class CauseIs(Condition):
    """``the cause is a kill`` (``the killer``, ``a minion``, ``another cause``): why the event being
    answered happened (bloodlust rises: from a victim's death, by a killer body, by a minion, or
    not from a death)."""

    span: Span
    cause: str  # kill | killer | minion | other


@attrs.frozen(repr=False)
class CausedBy(Condition):
    """``the cause is card ID`` (``item ID``, ``action ID``, ``event ID``, ``terror ID``): inside an
    answer to an event, whether the effect that made it happen is that card's, item's, action's,
    event's or terror card's (S1.8: the airlock's double death; K1.7: a scan's). Outside one, or for
    an event the core rules made (a phase's step, an enemy's turn), it holds for none."""

    span: Span
    what: str  # card | item | action | event | terror | deck (any card of the deck, K1.7)
    id: str


# --- statics ("rule …") ---------------------------------------------------------------------
@attrs.frozen(repr=False)
class DiceModifier(Rule):
    span: Span
    n: int
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("dice {n:int}",)


@attrs.frozen(repr=False)
class AllModes(Rule):
    span: Span
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("all modes",)


@attrs.frozen(repr=False)
class FollowerLimit(Rule):
    span: Span
    n: int
    tag: str
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("followers at most {n:int} across {tag:pathtag}",)


@attrs.frozen(repr=False)
class EnemiesCannotCross(Rule):
    span: Span
    tag: str
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("enemies cannot cross {tag:pathtag}",)


@attrs.frozen(repr=False)
class DamageTaken(Rule):
    span: Span
    n: int
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("damage taken {n:int}",)


@attrs.frozen(repr=False)
class OnlyActiveActs(Rule):
    """With several bodies, only the active one moves and attacks, and ``the killer`` is it (K3.2)."""

    span: Span
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("only the active killer acts",)


@attrs.frozen(repr=False)
class NoHealthCap(Rule):
    """The killer's health has no maximum (K5.1)."""

    span: Span
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("no health cap",)


@attrs.frozen(repr=False)
class StatusStopsMoves(Rule):
    """Enemies with this status do not move (they still attack), e.g. a daze (S5.5)."""

    span: Span
    status: str
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("enemies with status {status:name} do not move",)


@attrs.frozen(repr=False)
class ExtraMoves(Rule):
    """Hunting enemies make N more moves than their action says (``killer hunts … moves 1`` with
    ``rule killer moves 1 more`` makes 2); the card's own number is left as it reads."""

    span: Span
    who: str  # killer | minions | enemies
    n: int
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("{who:killer} moves {n:int} more", "{who:minions} move {n:int} more",
                         "{who:enemies} move {n:int} more")


@attrs.frozen(repr=False)
class ExtraAttacks(Rule):
    """Hunting enemies make N more attacks than their action says (``rule killer attacks 1 more``)."""

    span: Span
    who: str  # killer | minions | enemies
    n: int
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("{who:killer} attacks {n:int} more", "{who:minions} attack {n:int} more",
                         "{who:enemies} attack {n:int} more")


@attrs.frozen(repr=False)
class KillersAbsorb(Rule):
    """Whenever a killer body shares a location with minions of this kind, they are removed and the
    body gains 1 health for each (K6.7); bodies never absorb each other."""

    span: Span
    minion: str
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("killers absorb {minion:minion}",)


@attrs.frozen(repr=False)
class KillsMayHitKillers(Rule):
    """``kill N MINION at LOC`` may be resolved as N damage to a killer at LOC instead (K6.7)."""

    span: Span
    minion: str
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("killing {minion:minion} may damage killers",)


RULE_NODES: tuple[type, ...] = (DiceModifier, AllModes, FollowerLimit, EnemiesCannotCross, DamageTaken, NoHealthCap,
                                StatusStopsMoves, ExtraMoves, ExtraAttacks, KillersAbsorb, KillsMayHitKillers,
                                OnlyActiveActs)


# --- pieces (grammar: piece) ---------------------------------------------------------------------
@attrs.frozen(repr=False)
class PieceRef(Piece):
    """``fg``, ``the killer`` (any killer body), ``a victim``, ``a minion`` (any kind) or ``a KIND``,
    ``an enemy`` (a minion or a killer body)."""

    span: Span
    kind: str  # fg | killer | victim | minion | enemy
    minion: str = ""  # the kind of minion, for kind minion
    body: str = ""  # one declared killer body, for kind killer ("" = any)


# --- events (grammar: event): what triggers, replacements and modifications answer ----------------
@attrs.frozen(repr=False)
class PieceEvent(Event):
    """``PIECE takes damage`` / ``loses health`` / ``would be defeated`` / ``dies`` / ``kills`` /
    ``forms`` / ``moves`` / ``gains time`` / ``loses time`` / ``enters PLACE`` / ``leaves [PLACE]`` /
    ``crosses TAG``. Its number (``that``) is the damage, health or time; ``it`` is where it happens."""

    span: Span
    piece: PieceRef
    what: str  # takes-damage | loses-health | would-be-defeated | dies | kills | forms | moves | gains-time |
    #            loses-time | enters | leaves | crosses | appears | vanishes
    place: Loc = ""  # enters / leaves: the location or set ("" for leaves: anywhere)
    tag: str = ""  # crosses: the path tag


# the pieces each event of a piece happens to: (those a trigger answers it for, those a replacement
# or a modification can change it for, before it happens). The engine makes every one of them
# (tests/test_events.py plays each); the builder refuses the others (E215). "victim" includes the
# victim kinds, "minion" the minion kinds.
_EVERY_PIECE = frozenset({"fg", "killer", "minion", "victim", "conveyance"})
PIECE_EVENT_PIECES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "takes-damage": (frozenset({"fg", "killer", "minion"}), frozenset({"fg", "killer"})),
    "loses-health": (frozenset({"fg", "killer", "minion"}), frozenset({"fg", "killer"})),
    "would-be-defeated": (frozenset(), frozenset({"fg", "killer"})),
    "dies": (frozenset({"victim", "minion", "killer"}), frozenset({"victim"})),
    "kills": (frozenset({"killer", "minion"}), frozenset()),
    "forms": (frozenset({"killer"}), frozenset()),
    "gains-time": (frozenset({"fg"}), frozenset({"fg"})),
    "loses-time": (frozenset({"fg"}), frozenset({"fg"})),
    "appears": (frozenset({"killer"}), frozenset({"killer"})),
    "vanishes": (frozenset({"killer"}), frozenset({"killer"})),
    **{what: (_EVERY_PIECE, _EVERY_PIECE) for what in ("moves", "enters", "leaves", "crosses")},
}


def pieces_of(ref: PieceRef) -> frozenset[str]:
    """The kinds of piece a piece reference may be: fg, killer, minion, victim, conveyance."""
    if ref.kind == "enemy":
        return frozenset({"killer", "minion"})
    if ref.kind == "minion" and ref.minion:  # a kind of minion or of victim, or a conveyance (their ids differ)
        return frozenset({"minion", "victim", "conveyance"})
    return frozenset({ref.kind})


@attrs.frozen(repr=False)
class PhaseEvent(Event):
    """``start of PHASE`` / ``end of PHASE`` (``at start of killer { … }``); ``PHASE phase``, the
    whole phase, for ``instead of killer phase { … }`` (the block is the phase)."""

    span: Span
    edge: str  # start | end | whole
    phase: str


@attrs.frozen(repr=False)
class BloodlustRises(Event):
    """``bloodlust rises [from a kill | from the killer | from a minion | from another cause]``:
    its number is the rise."""

    span: Span
    cause: str = ""  # "" any | kill | killer | minion | other


@attrs.frozen(repr=False)
class FearChanges(Event):
    """``fear rises`` / ``fear falls``: its number is the change."""

    span: Span
    how: str  # rises | falls


@attrs.frozen(repr=False)
class TokenEvent(Event):
    """``token T is placed`` / ``removed`` / ``spent``."""

    span: Span
    token: str
    how: str  # placed | removed | spent | revealed


@attrs.frozen(repr=False)
class ItemEvent(Event):
    """``item ID is gained`` / ``used`` / ``discarded``; ``an item is …`` for any."""

    span: Span
    item: str  # "" = any item
    how: str  # gained | used | discarded


@attrs.frozen(repr=False)
class CardEvent(Event):
    """``card is drawn`` / ``card is revealed`` (any card: a terror card, an event, a finale …);
    ``card DECK is drawn`` for a card of a named deck."""

    span: Span
    how: str  # drawn | revealed
    deck: str = ""  # "" = any card


@attrs.frozen(repr=False)
class OwnEvent(Event):
    """``revealed`` (a finale or a dark power, as it is revealed), ``drawn`` (an event card, as it is
    drawn), ``gained`` (an item, as the Final Girl gains it): the card the line stands on."""

    span: Span
    how: str  # revealed | drawn | gained


@attrs.frozen(repr=False)
class GameStarts(Event):
    """``game starts``: at setup, before the first Action phase."""

    span: Span


# --- triggers, replacements, modifications, state-based checks -----------------------------
@attrs.frozen(repr=False)
class Trigger(Decl):
    """``when EVENT [if CONDITION] { … }`` (``at start of PHASE { … }``): after the event."""

    span: Span
    event: Event
    cond: Optional[Condition]
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Replacement(Decl):
    """``instead of EVENT [if CONDITION] { … }``: the event does not happen; the block does."""

    span: Span
    event: Event
    cond: Optional[Condition]
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Modification(Decl):
    """``reduce EVENT by N`` / ``increase EVENT by N`` / ``limit EVENT to at most N`` (``at least``) /
    ``prevent EVENT``, each ``[while CONDITION]``: changes the event's number before it happens."""

    span: Span
    event: Event
    how: str  # reduce | increase | at-most | at-least | prevent
    n: Num
    cond: Optional[Condition]


@attrs.frozen(repr=False)
class EndCondition(Decl):
    span: Span
    side: str  # win | lose
    cond: Condition
    reason: str = ""  # said when the game ends this way ("" = a generic text)


@attrs.frozen(repr=False)
class Abilities(Decl):
    """Everything a source contributes while it is in play."""

    triggers: tuple[Trigger, ...] = ()
    replacements: tuple[Replacement, ...] = ()
    rules: tuple[Rule, ...] = ()
    ends: tuple[EndCondition, ...] = ()
    modifications: tuple[Modification, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.triggers or self.replacements or self.rules or self.ends or self.modifications)


NO_ABILITIES = Abilities()


# --- declarations ---------------------------------------------------------------------------
@attrs.frozen(repr=False)
class Outcome(Decl):
    span: Span
    min_successes: int  # fail 0, success 1, great 2, best 3
    effects: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Card(Decl):
    span: Span
    id: str
    name: str
    kind: str  # action | reaction | reroll
    cost: int
    copies: int
    start_in_hand: bool
    dice: int
    outcomes: tuple[Outcome, ...]
    reroll: str  # "" | "fails" | "<n>"
    owner: str = ""
    usable: Optional[Condition] = None  # usable while CONDITION: played only while it holds (K1.7)
    start_aside: bool = False  # 'start aside': out of the market and the hand until 'gain card' (V3)


@attrs.frozen(repr=False)
class Weapon(Decl):
    span: Span
    hands: int
    range: int
    bonus: int


@attrs.frozen(repr=False)
class ItemUse(Decl):
    span: Span
    time: int
    effects: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Item(Decl):
    span: Span
    id: str
    name: str
    weapon: Optional[Weapon]
    uses: int  # 0 = unlimited
    use: Optional[ItemUse]
    keep: bool
    abilities: Abilities
    owner: str = ""
    # item and card zones (issue #16 item 6)
    copies: int = 1  # copies of the card in the game
    start: str = ""  # where it starts: "" the item piles (C18.4) | table | aside | held | pile | on-piles (K2.2)
    pile: str = ""  # start pile PILE: the named pile it starts in (S3.1)
    returns: bool = False  # returns to the table when discarded, fresh (S3.3–S3.4)
    keep_cond: Optional[Condition] = None  # cannot be discarded while CONDITION ("keep" alone: always)
    usable: Optional[Condition] = None  # usable while CONDITION: its use is offered only while it holds (K2.5)
    hand_only: bool = False  # 'hand only': held in hand, one hand (a weapon: its own), never in the backpack (S1.7)
    # what becomes of the tokens on a card of it that is discarded (S1.3, open; issue #33 item 3):
    # "" the supply (the default) | discard (the token discard) | stay (on the card: back to the table with it)
    discarded_tokens: str = ""
    # counted starts: 'start held 1', 'start table 2' … (zone, copies), each zone once; the copies
    # left over are dealt into the item piles (C18.4), as an item without a 'start' line is (S1.1)
    starts: tuple[tuple[str, int], ...] = ()


@attrs.frozen(repr=False)
class FinalGirl(Decl):
    span: Span
    id: str
    name: str
    health: int
    rescues: int
    slots: tuple[tuple, ...]
    flipped_reward: tuple[Effect, ...]
    flipped: Abilities
    signature: str


@attrs.frozen(repr=False)
class BloodlustLevel(Decl):
    span: Span
    move: int
    damage: int
    effects: tuple[Effect, ...]
    stats: tuple[tuple[str, int], ...] = ()  # other numbers the level prints: (("spawn", 2),) (K6.3)


@attrs.frozen(repr=False)
class Finale(Decl):
    span: Span
    id: str
    name: str
    legendary: bool
    back: tuple[Effect, ...]
    on_reveal: tuple[Effect, ...]
    face: tuple[Effect, ...]
    abilities: Abilities


@attrs.frozen(repr=False)
class DarkPower(Decl):
    span: Span
    id: str
    name: str
    legendary: bool
    on_reveal: tuple[Effect, ...]
    abilities: Abilities


@attrs.frozen(repr=False)
class Terror(Decl):
    span: Span
    id: str
    name: str
    effects: tuple[Effect, ...]
    secondary_health: int  # 0 = not a secondary dark power
    abilities: Abilities
    owner: str = ""


@attrs.frozen(repr=False)
class Minion(Decl):
    span: Span
    id: str
    name: str
    health: int
    move: int
    damage: int
    limit: int
    together: bool = False  # those in one location attack as one, damage = their number × damage (K6.5)
    victims_first: bool = False  # victims at its location are attacked before the Final Girl (K6.5)
    wanders: bool = False  # with no target within its move range, it wanders once after moving (K6.4)


@attrs.frozen(repr=False)
class Killer(Decl):
    span: Span
    id: str
    name: str
    health: int
    fear: int
    modes: tuple[str, ...]
    bloodlust: tuple[BloodlustLevel, ...]
    at_max: tuple[Effect, ...]
    finales: tuple[Finale, ...]
    dark_powers: tuple[DarkPower, ...]
    terror: tuple[Terror, ...]
    minions: tuple[Minion, ...]
    abilities: Abilities
    tokens: tuple[Token, ...] = ()
    actions: tuple[Action, ...] = ()
    decks: tuple[Deck, ...] = ()
    on_start: tuple[Effect, ...] = ()
    cards: tuple[Card, ...] = ()
    board: bool = True  # False: no killer board, no body on the board at setup (K6.1)
    bodies: tuple[Body, ...] = ()  # declared bodies (K2.7, K3.1); none: one body, the killer's own
    items: tuple[Item, ...] = ()  # its item cards (K2.2), placed by their 'start'
    recipes: tuple[Recipe, ...] = ()
    piles: tuple[ItemPile, ...] = ()
    groups: tuple[RuleGroup, ...] = ()  # named groups of its lines (``rules ID { … }``), also in ``abilities``
    tracks: tuple[Track, ...] = ()  # counters and tracks with spaces (K1.2, S2.4)
    holdings: tuple[HoldingArea, ...] = ()  # holding areas for victims off the board (S2.3)
    victim_kinds: tuple[VictimKind, ...] = ()  # kinds of victims it may make (K2.1, K2.4)
    dark: bool = True  # False: 'no dark power' (K2.7): none is drawn at setup, none is ever revealed


@attrs.frozen(repr=False)
class Body(Decl):
    """``body ID { name "…"; health N [; off board] [; formed] }``: one killer body. ``off board``:
    not on the board at setup (it appears by an effect); ``formed``: the template of bodies formed
    in play from minions (K6.6: no last-breath token, named "NAME 1", "NAME 2" …)."""

    span: Span
    id: str
    name: str
    health: int
    off_board: bool = False
    formed: bool = False


@attrs.frozen(repr=False)
class Token(Decl):
    """A type of token: its kinds (faces), which kind is wild, and the supply on the table."""

    span: Span
    id: str
    name: str
    kinds: tuple[str, ...]
    wild: str
    supply: tuple[tuple[str, int], ...]


@attrs.frozen(repr=False)
class Action(Decl):
    """Something the Final Girl may do in the Action phase where a condition holds (S1.2, S3.3, S5.2)."""

    span: Span
    id: str
    name: str
    cond: Optional[Condition]
    time: int
    free: bool
    effects: tuple[Effect, ...]
    usable: Optional[Condition] = None  # usable while CONDITION (the same as its 'if'; both must hold)


@attrs.frozen(repr=False)
class DeckCard(Decl):
    span: Span
    id: str
    name: str
    effects: tuple[Effect, ...]
    keep: bool
    abilities: Abilities
    copies: int = 1
    number: int = 0  # the number printed on it, read by the amount 'card number' (K1.6); 0 = none
    after: str = ""  # what becomes of it once resolved: "" its deck's rule | discard | return | remove
    halves: tuple[CardHalf, ...] = ()  # two-sided cards: the half its deck reads resolves too (K1.6)
    start: str = ""  # "" in its deck | aside (out until 'shuffle card … into …') | table (in play, like kept)
    body: str = ""  # 'body BODY': the killer body the card names (a deck of bodies, K2.7); "" = none
    minion: str = ""  # 'minion MINION': the minion kind it names (a deck of minion kinds); "" = none


@attrs.frozen(repr=False)
class Deck(Decl):
    """A named deck of cards drawn by ``draw card DECK`` (side effects, highs, …)."""

    span: Span
    id: str
    name: str
    cards: tuple[DeckCard, ...]
    reshuffle: bool = False  # reshuffle when empty: its discards become the deck again (K1.6)
    after: str = "discard"  # what becomes of a card once resolved: discard | return (shuffled in) | remove
    halves: tuple[DeckHalf, ...] = ()  # the halves its cards have, and when each is read (K1.5–K1.6)


@attrs.frozen(repr=False)
class Location(Decl):
    span: Span
    id: str
    name: str
    tags: tuple[str, ...]
    search: bool
    exit: bool
    exit_when: Optional[Condition] = None  # exit while CONDITION: an exit only while it holds
    numbers: tuple[tuple[str, int], ...] = ()  # number NAME N: read by the amount 'number NAME of PLACE'
    at: Optional[tuple[int, int]] = None  # at X Y: where a front end draws it (0..MAX_COORD each; y grows downward)


@attrs.frozen(repr=False)
class Path(Decl):
    span: Span
    a: str
    a_panic: tuple[int, ...]
    b: str
    b_panic: tuple[int, ...]
    tags: tuple[str, ...]
    closed: bool


@attrs.frozen(repr=False)
class Link(Decl):
    """Extra moves among all locations with a tag while a condition holds (S4.3)."""

    span: Span
    tag: str
    cond: Optional[Condition]
    followers: int  # -1 = as usual


@attrs.frozen(repr=False)
class SetupCard(Decl):
    span: Span
    id: str
    killer_at: str
    fg_at: str
    victims: tuple[tuple[str, int], ...]
    tokens: tuple[tuple[str, str], ...] = ()  # (token type, location): one random token from the supply each
    tokens_down: tuple[tuple[str, str], ...] = ()  # 'tokens T face down at …': the same, face down (issue #33)


@attrs.frozen(repr=False)
class EventCard(Decl):
    span: Span
    id: str
    name: str
    lasting: bool
    effects: tuple[Effect, ...]
    abilities: Abilities


@attrs.frozen(repr=False)
class Scenario(Decl):
    span: Span
    id: str
    name: str
    tags: tuple[str, ...]
    locations: tuple[Location, ...]
    paths: tuple[Path, ...]
    links: tuple[Link, ...]
    setups: tuple[SetupCard, ...]
    items: tuple[Item, ...]
    events: tuple[EventCard, ...]
    terror: tuple[Terror, ...]
    abilities: Abilities
    tokens: tuple[Token, ...] = ()
    actions: tuple[Action, ...] = ()
    decks: tuple[Deck, ...] = ()
    on_start: tuple[Effect, ...] = ()
    cards: tuple[Card, ...] = ()
    board: bool = True  # False: no killer board, no body on the board at setup (K6.1)
    body: str = ""  # the name of the killer bodies formed during the game (K6.6); "" = the killer's name
    recipes: tuple[Recipe, ...] = ()
    piles: tuple[ItemPile, ...] = ()
    groups: tuple[RuleGroup, ...] = ()  # named groups of its lines (``rules ID { … }``), also in abilities/links
    tracks: tuple[Track, ...] = ()  # counters and tracks with spaces (K1.2, S2.4)
    holdings: tuple[HoldingArea, ...] = ()  # holding areas for victims off the board (S2.3)
    victim_kinds: tuple[VictimKind, ...] = ()  # kinds of victims it may make (K2.1, K2.4)
    conveyances: tuple[Conveyance, ...] = ()  # pieces that travel with her (V4–V9, S1.7)
    default: bool = False  # ``default``: the scenario a game plays when none is named (games.defaults)


@attrs.frozen(repr=False)
class Zone(Decl):
    span: Span
    low: int
    high: int
    dice: int


@attrs.frozen(repr=False)
class Side(Decl):
    span: Span
    id: str
    time_reset: int
    time_min: int
    time_max: int
    fear_min: int
    fear_max: int
    zones: tuple[Zone, ...]


@attrs.frozen(repr=False)
class PlayerBoard(Decl):
    span: Span
    id: str
    sides: tuple[Side, ...]
    last_breath: tuple[int, ...]
    hand_limit: int
    victim_supply: int = 30  # the victim tokens of a game (C5.7: the open default, 30)
    # C9.8 (a project default): what an enemy does when every target of its action is out of its
    # reach: "fg" (an action aimed at victims aims at the Final Girl, if she is in reach) or "stay"
    out_of_reach: str = "stay"


@attrs.frozen(repr=False)
class Pack(Decl):
    """A content pack: the folder it stands in (``pack.fg``), who made it and what it builds on."""

    span: Span
    id: str
    name: str
    version: str
    credit: str
    depends: tuple[str, ...]


# --- modules (LANGUAGE.md section 10) ---------------------------------------------------------
@attrs.frozen(repr=False)
class RuleGroup(Decl):
    """``rules ID { … }`` in a scenario or a killer: some of its lines (rules, triggers,
    replacements, modifications, win and lose lines, a scenario's links) under an id, so that a
    module can replace or remove them. The lines are in play as the host's own: the builder puts
    the same nodes in the host's ``abilities`` (and ``links``) too."""

    span: Span
    id: str
    abilities: Abilities
    links: tuple[Link, ...] = ()


@attrs.frozen(repr=False)
class ModuleChange(Decl):
    """``replace KIND ID { … }`` (``new``: the declaration that takes its place, with the same id)
    or ``remove KIND ID`` / ``remove card ID from DECK`` (taken out of the game at setup)."""

    span: Span
    how: str  # replace | remove
    kind: str  # item | card | action | event | terror | token | deck | setup | rules | finale | dark_power | minion
    id: str
    new: Optional[Decl] = None
    deck: str = ""  # remove card ID from DECK: a card of a named deck


@attrs.frozen(repr=False)
class ModuleSection(Decl):
    """``for scenario ID … { … }`` / ``for every scenario { … }`` (``killer`` alike): what a module
    adds to those hosts (``adds``: a partial host holding the lines added) and what it replaces and
    removes in them."""

    span: Span
    host: str  # scenario | killer
    targets: tuple[str, ...]  # () = every scenario (killer)
    adds: Union[Scenario, Killer]
    changes: tuple[ModuleChange, ...]


@attrs.frozen(repr=False)
class Module(Decl):
    """``module ID { … }``: content switched on for a game by name (``--module ID``); off otherwise."""

    span: Span
    id: str
    name: str
    about: str  # what it is, in a sentence ("" = not said)
    cards: tuple[Card, ...]  # action cards added to the market
    items: tuple[Item, ...]  # items added to the game (not to the piles)
    changes: tuple[ModuleChange, ...]  # replace card/item, remove card/item, in every game it is in
    sections: tuple[ModuleSection, ...]


# declared at the top of a file
TOP_LEVEL: tuple[type, ...] = (Card, Item, FinalGirl, Killer, Scenario, PlayerBoard, Minion, Pack, Module)


# --- item and card zones (issue #16 item 6): tables, set-aside cards, named piles, recipes, decks ----
ZONES = ("table", "aside")  # where a card may lie out of play: face up on the table, or set aside


@attrs.frozen(repr=False)
class TakeItem(Effect):
    """``take item ID from table`` / ``from aside``: she gains a copy lying there; none there, nothing
    happens (S1.2, S3.3)."""

    span: Span
    item: str
    zone: str  # table | aside
    PHRASES: ClassVar = ("take item {item:item} from {zone:zone}",)


@attrs.frozen(repr=False)
class PutItemOnTable(Effect):
    """``put item ID on table``: a copy she holds goes to the table; not a discard (S1.7)."""

    span: Span
    item: str
    PHRASES: ClassVar = ("put item {item:item} on table",)


@attrs.frozen(repr=False)
class SetAsideItem(Effect):
    """``set aside item ID``: a copy she holds (else one on the table) is set aside; not a discard."""

    span: Span
    item: str
    PHRASES: ClassVar = ("set aside item {item:item}",)


@attrs.frozen(repr=False)
class DiscardChosenItem(Effect):
    """``discard an item``: the player picks one she holds that can be discarded (S1.3)."""

    span: Span
    PHRASES: ClassVar = ("discard an item",)


@attrs.frozen(repr=False)
class DiscardRandomItem(Effect):
    """``discard a random item``: one she holds that can be discarded, at random (S1.3)."""

    span: Span
    PHRASES: ClassVar = ("discard a random item",)


@attrs.frozen(repr=False)
class ShuffleCardInto(Effect):
    """``shuffle card CARD into DECK``: that card of the deck, set aside, discarded or kept, goes back
    into its deck, which is shuffled."""

    span: Span
    card: str
    deck: str
    PHRASES: ClassVar = ("shuffle card {card:name} into {deck:deck}",)


EFFECT_NODES = EFFECT_NODES + (TakeItem, PutItemOnTable, SetAsideItem, DiscardChosenItem, DiscardRandomItem,
                               ShuffleCardInto)


@attrs.frozen(repr=False)
class ItemIn(Condition):
    """``item ID on table`` / ``item ID on piles`` / ``item ID aside``: a copy of the item lies there
    (``on piles``: face up on top of an item pile, K2.2)."""

    span: Span
    item: str
    zone: str  # table | piles | aside


@attrs.frozen(repr=False)
class CardNumber(Amount):
    """``card number``: the number printed on the deck card being resolved, else on the last card
    drawn from a named deck (its half's number, if the half prints one); 0 if none (K1.6)."""

    span: Span


@attrs.frozen(repr=False)
class ItemPile(Decl):
    """``pile ID { name "…"; row N }``: a named pile of item cards (the items that ``start pile ID``),
    shuffled at setup; with ``row N`` its top N are laid face up on the table (S3.1)."""

    span: Span
    id: str
    name: str
    row: int = 0


@attrs.frozen(repr=False)
class Recipe(Decl):
    """``recipe ID { needs ITEM …; time N; makes ITEM }``: in the Action phase, while she holds the
    items it needs and the item it makes lies on the table, she may discard those, spend the time and
    take the item (S3.4)."""

    span: Span
    id: str
    name: str
    needs: tuple[str, ...]
    time: int
    makes: str
    usable: Optional[Condition] = None  # usable while CONDITION


@attrs.frozen(repr=False)
class DeckHalf(Decl):
    """``half NAME [while CONDITION]`` on a deck: a half its cards may have; the first whose condition
    holds is read, else the first without one (K1.5–K1.6)."""

    span: Span
    name: str
    cond: Optional[Condition] = None


@attrs.frozen(repr=False)
class CardHalf(Decl):
    """``half NAME { effect { … }; number N }`` on a deck card: resolved after the card's own effect
    when its deck reads that half."""

    span: Span
    name: str
    effects: tuple[Effect, ...]
    number: int = 0  # 0 = the card's own number


# --- counters and tracks, holding areas, delayed effects, a board that changes (issue #16) --------
# Slot kinds that take one literal word, the word being the value (``for {who:fg}``).
LITERAL_SLOTS = ("killer", "minions", "enemies", "fg", "victims", "followers")
MOVERS = ("fg", "victims", "enemies")  # who a path may be closed or opened for


@attrs.frozen(repr=False)
class TrackStep(Decl):
    """``at N { … }`` in a track: resolves each time the marker moves up onto or past space N."""

    span: Span
    at: int
    effects: tuple[Effect, ...]


@attrs.frozen(repr=False)
class Track(Decl):
    """A named counter or track of spaces LOW..HIGH with a marker (K1.2 stages, S2.4 spaces a piece
    moves along), declared in a killer or a scenario: ``track ID { name "…"; spaces 0 to 3; start 0;
    space 3 "Label"; at 3 { … } }``."""

    span: Span
    id: str
    name: str
    low: int
    high: int
    start: int
    labels: tuple[tuple[int, str], ...]  # (space, its name) for the log and the card text
    steps: tuple[TrackStep, ...]


@attrs.frozen(repr=False)
class HoldingArea(Decl):
    """A named place off the board where victims wait, with a capacity (S2.3): held victims are not
    on the board, so enemies never target, attack or kill them."""

    span: Span
    id: str
    name: str
    capacity: int


@attrs.frozen(repr=False)
class TrackValue(Amount):
    """``track T``: the space the track's marker stands on."""

    span: Span
    track: str


@attrs.frozen(repr=False)
class HeldVictims(Amount):
    """``count victims on H``: the victims held on a holding area."""

    span: Span
    holding: str


@attrs.frozen(repr=False)
class LocationNumber(Amount):
    """``number NAME of PLACE``: a number the location declares (``number cost 3``); 0 where it has none."""

    span: Span
    name: str
    place: Loc


@attrs.frozen(repr=False)
class InPhase(Condition):
    """``phase PHASE``: the game is in that phase now."""

    span: Span
    phase: str


@attrs.frozen(repr=False)
class TrackReaches(Event):
    """``track T reaches N``: the track's marker moves up onto or past space N; ``that`` is the
    space it reached."""

    span: Span
    track: str
    n: Num


@attrs.frozen(repr=False)
class AdvanceTrack(Effect):
    """Move a track's marker N spaces up (no further than its last space); the ``at`` steps it
    reaches or passes resolve, lowest first (K1.2, S2.4)."""

    span: Span
    track: str
    n: Num
    PHRASES: ClassVar = ("advance track {track:track} {n:amount}",)


@attrs.frozen(repr=False)
class RetreatTrack(Effect):
    """Move a track's marker N spaces down (no further than its first space)."""

    span: Span
    track: str
    n: Num
    PHRASES: ClassVar = ("retreat track {track:track} {n:amount}",)


@attrs.frozen(repr=False)
class SetTrack(Effect):
    """Put a track's marker on space N (within the track); moving up, the steps passed resolve."""

    span: Span
    track: str
    n: Num
    PHRASES: ClassVar = ("set track {track:track} to {n:amount}",)


@attrs.frozen(repr=False)
class LoadVictims(Effect):
    """N victims at PLACE leave the board onto a holding area (as many as are there and as it has
    room for) (S2.3)."""

    span: Span
    n: Num
    loc: Loc
    holding: str
    PHRASES: ClassVar = ("load {n:amount} victims at {loc:loc} onto {holding:holding}",)


@attrs.frozen(repr=False)
class LoadVictimsUpTo(Effect):
    """The player loads 0 to N victims at PLACE onto a holding area (S2.3)."""

    span: Span
    n: Num
    loc: Loc
    holding: str
    PHRASES: ClassVar = ("load up to {n:amount} victims at {loc:loc} onto {holding:holding}",)


@attrs.frozen(repr=False)
class RescueHeld(Effect):
    """The victims held on a holding area (or N of them) are rescued: each fills a slot of the Final
    Girl card and gives its reward (C5.4–C5.6, S2.5)."""

    span: Span
    holding: str
    n: Num = -1  # -1: every victim held
    PHRASES: ClassVar = ("rescue victims from {holding:holding}", "rescue {n:amount} victims from {holding:holding}")


@attrs.frozen(repr=False)
class UnloadVictims(Effect):
    """N victims held on a holding area go back onto the board at PLACE."""

    span: Span
    n: Num
    holding: str
    loc: Loc
    PHRASES: ClassVar = ("unload {n:amount} victims from {holding:holding} at {loc:loc}",)


@attrs.frozen(repr=False)
class ClosePath(Effect):
    """``close path A B``: nobody may move along the path between A and B until it is opened; ``for
    fg`` / ``for victims`` (following her or fleeing in a panic) / ``for enemies``: those only (S1.4)."""

    span: Span
    a: Loc
    b: Loc
    who: str = ""  # "" everyone | fg | victims | enemies
    PHRASES: ClassVar = ("close path {a:loc} {b:loc}", "close path {a:loc} {b:loc} for {who:fg}",
                         "close path {a:loc} {b:loc} for {who:victims}",
                         "close path {a:loc} {b:loc} for {who:enemies}")


@attrs.frozen(repr=False)
class MoveVictims(Effect):
    """``move N victims from A to B``: up to N victims at A go to B, however far. ``as followers``:
    only as victims follow the Final Girl (C5.3): along one path open to victims, no more than the
    path lets follow, never into a killer's location."""

    span: Span
    n: Num
    src: Loc
    dst: Loc
    follow: str = ""  # "" | followers
    PHRASES: ClassVar = ("move {n:amount} victims from {src:loc} to {dst:loc}",
                         "move {n:amount} victims from {src:loc} to {dst:loc} as {follow:followers}")


@attrs.frozen(repr=False)
class DelayedTrigger(Control):
    """``at start of next PHASE { … }`` (``at end of next PHASE``) inside an effect: the block is kept
    in the game and resolves once, when that phase next starts (ends) (S2.5)."""

    span: Span
    edge: str  # start | end
    phase: str
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class VictimsHidden(Rule):
    """``rule victims at PLACE cannot be targeted``: enemies neither target nor attack the victims
    there (a selector: at any of its locations) while the rule is in force; effects still reach them."""

    span: Span
    loc: Loc
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("victims at {loc:loc} cannot be targeted",)


@attrs.frozen(repr=False)
class VictimsCannotEscape(Rule):
    """``rule victims at PLACE cannot escape``: victims there do not escape on foot (C5.4) while the
    rule is in force: no escape is offered there; the place is still an exit for everything else
    (selectors, counts), and victims held off the board are rescued as ever."""

    span: Span
    loc: Loc
    cond: Optional[Condition] = None  # rule … while CONDITION: in force only while it holds
    PHRASES: ClassVar = ("victims at {loc:loc} cannot escape",)


EFFECT_NODES = EFFECT_NODES + (AdvanceTrack, RetreatTrack, SetTrack, LoadVictims, LoadVictimsUpTo, RescueHeld,
                               UnloadVictims, ClosePath, MoveVictims)
CONTROL_NODES = CONTROL_NODES + (DelayedTrigger,)
RULE_NODES = RULE_NODES + (VictimsHidden, VictimsCannotEscape)


# --- victim kinds, statuses on every piece, tokens everywhere (issue #16 items 3–5) ----------------
# Who a victim kind may be shielded from (``not targeted by …``): every killer body, every minion,
# every enemy, one body (``killer:BODY``) or one kind of minion (``minion:KIND``).
SHIELDS = ("killers", "minions", "enemies")


@attrs.frozen(repr=False)
class VictimKind(Decl):
    """``victim ID { name "…"; cannot be rescued; always panics; not targeted by …; hidden }``: a
    kind of victim (K2.1, K2.4). A victim of a kind is still a victim (it follows, panics, dies and
    counts as one) except where its flags say otherwise: it cannot escape at an exit; it panics in
    every Panic phase, with a death that round or not, an enemy there or not (C10); the enemies it
    is shielded from never target nor kill it (C9); its kind is not said (log, screen, choices)
    until it is revealed."""

    span: Span
    id: str
    name: str
    unrescuable: bool = False
    panics: bool = False
    untargeted: tuple[str, ...] = ()  # killers | minions | enemies | killer:BODY | minion:KIND
    hidden: bool = False


@attrs.frozen(repr=False)
class TurnRandomVictims(Effect):
    """``turn N random victims into KIND``: N victims of no kind, anywhere on the board, picked at
    random, become victims of a kind (K2.1), or minions of a kind (not a death, as ``turn N victims
    at PLACE into MINION``). Fewer there: all of them."""

    span: Span
    n: Num
    kind: str
    PHRASES: ClassVar = ("turn {n:amount} random victims into {kind:kind}",)


@attrs.frozen(repr=False)
class ReplaceVictim(Effect):
    """``replace KIND at PLACE with killer BODY``: a victim of that kind there leaves the board (not a
    death) and the body appears where it stood (K2.7); ``with a killer``: the first body off the
    board. No such victim there: nothing happens."""

    span: Span
    kind: str
    loc: Loc
    body: str = ""  # "" = the first living body off the board
    PHRASES: ClassVar = ("replace {kind:victimkind} at {loc:loc} with a killer",
                         "replace {kind:victimkind} at {loc:loc} with killer {body:body}")


@attrs.frozen(repr=False)
class RevealVictims(Effect):
    """``reveal victims at PLACE``: the hidden kinds of the victims there are said from now on."""

    span: Span
    loc: Loc
    PHRASES: ClassVar = ("reveal victims at {loc:loc}",)


@attrs.frozen(repr=False)
class KindAt(Condition):
    """``KIND at PLACE``: a victim of that kind, or a minion of that kind, stands there; a conveyance
    (``ID at PLACE``): it stands there."""

    span: Span
    kind: str
    loc: Loc


PIECE_SETS = ("pieces", "victims", "enemies", "minions", "killers", "fg", "it")


@attrs.frozen(repr=False)
class PieceSet(Decl):
    """Pieces an effect or a ``for each`` goes over: ``pieces`` (the Final Girl, victims, minions and
    killer bodies on the board), ``victims``, ``enemies``, ``minions``, ``killers``, ``fg`` or ``it``
    (the piece of a ``for each``); ``at PLACE`` / ``at tag TAG``: only those standing there;
    ``where CONDITION``: only those it holds for, ``it`` being the piece."""

    span: Span
    what: str  # one of PIECE_SETS
    loc: Loc = ""
    tag: str = ""
    where: Optional[Condition] = None


@attrs.frozen(repr=False)
class ForEachPiece(Control):
    """``for each victim at tag outdoor where … { … }``: the block once for each piece of the set, in
    order (the Final Girl, victims by location, minions, killer bodies top to bottom); inside it
    ``it`` is the piece (``it has status S``, ``add status S to it``) and, as a place, where it
    stands (``fg at it``, ``it has tag T``). A piece gone before its turn is skipped."""

    span: Span
    among: PieceSet
    body: tuple[Effect, ...]


@attrs.frozen(repr=False)
class AddStatusTo(Effect):
    """``add status S to it`` / ``to fg`` / ``to (victims at PLACE)`` …: every piece of the set gains
    the status (S2.6)."""

    span: Span
    status: str
    pieces: PieceSet
    PHRASES: ClassVar = ("add status {status:name} to {pieces:pieces}",)


@attrs.frozen(repr=False)
class ClearStatusFrom(Effect):
    """``clear status S from it`` / ``from (pieces at tag indoor)`` …: the pieces of the set lose it."""

    span: Span
    status: str
    pieces: PieceSet
    PHRASES: ClassVar = ("clear status {status:name} from {pieces:pieces}",)


@attrs.frozen(repr=False)
class DamagePieces(Effect):
    """``damage it N`` / ``damage (minions at here) N``: each piece of the set loses N health: the
    Final Girl as ``lose N health``; a victim, who has 1 health, dies (S2.6); a minion is killed at
    0 (no bloodlust); a killer body as ``damage killer N``."""

    span: Span
    pieces: PieceSet
    n: Num
    PHRASES: ClassVar = ("damage {pieces:pieces} {n:amount}",)


@attrs.frozen(repr=False)
class KillPieces(Effect):
    """``kill it`` / ``kill (victims at tag outdoor)``: a victim dies (C9.7), a minion is killed, a
    killer body is defeated outright; the Final Girl is left alone (``lose N health`` hurts her)."""

    span: Span
    pieces: PieceSet
    PHRASES: ClassVar = ("kill {pieces:pieces}",)


@attrs.frozen(repr=False)
class HasStatus(Condition):
    """``it has status S`` (the piece of a ``for each``), ``fg has status S``, ``killer [BODY] has
    status S``."""

    span: Span
    who: str  # it | fg | killer
    status: str
    body: str = ""


# Where tokens lie (S1, K1.7, S5): ``at PLACE`` on the board, her ``collection``, on the ``items``
# she holds (as a source), on ``item ID``, on ``card CARD`` (a deck card), on ``it`` (the piece of a
# ``for each``; outside one, the location ``it``), in the ``supply`` or the ``discard``.
HOLDERS = ("at", "collection", "items", "item", "card", "supply", "discard")


@attrs.frozen(repr=False)
class TokenHolder(Decl):
    span: Span
    kind: str  # one of HOLDERS
    name: str = ""  # the item or card id
    loc: Loc = ""  # for kind "at"


@attrs.frozen(repr=False)
class GainTokens(Effect):
    """``gain N token T [KIND] at PLACE`` / ``on HOLDER`` ``[face up|face down]``: N tokens of the type
    (of that kind, if named) from the supply, at random, onto the holder (none left: fewer)."""

    span: Span
    n: Num
    token: str
    kind: str
    to: TokenHolder
    face: str = ""  # "" as the holder shows them (face up) | up | down


@attrs.frozen(repr=False)
class RemoveTokens(Effect):
    """``remove N token T [KIND] from HOLDER``: back to the supply, shuffled in (S1.6)."""

    span: Span
    n: Num
    token: str
    kind: str
    src: TokenHolder


@attrs.frozen(repr=False)
class MoveTokens(Effect):
    """``move N token T [KIND] from HOLDER to HOLDER``: from one holder to another, face as they were."""

    span: Span
    n: Num
    token: str
    kind: str
    src: TokenHolder
    to: TokenHolder


@attrs.frozen(repr=False)
class SpendTo(Control):
    """``spend N token T [KIND] from HOLDER to supply | to discard | onto HOLDER [{ … }]``: she pays N
    tokens; placed on a card or the board they stay there (S1.3: they never come back unless an
    effect moves them). The block resolves only if she had them; else nothing is spent."""

    span: Span
    n: Num
    token: str
    kind: str
    src: TokenHolder
    to: TokenHolder
    body: tuple[Effect, ...] = ()


@attrs.frozen(repr=False)
class TokenCount(Amount):
    """``count tokens T on HOLDER`` (``in supply``): the tokens of a type lying there; ``count tokens T
    KIND at|on HOLDER`` the face-up ones of a kind, ``… T face down at|on HOLDER`` (issue #33 item 4)."""

    span: Span
    token: str
    on: TokenHolder
    kind: str = ""  # "" = any kind
    face: str = ""  # "" = either face | up | down


@attrs.frozen(repr=False)
class TokenOn(Condition):
    """``token T on HOLDER``: at least one token of the type lies there (``token T KIND on HOLDER``: a
    face-up one of the kind; ``token T face down on HOLDER``)."""

    span: Span
    token: str
    on: TokenHolder
    kind: str = ""  # "" = any kind
    face: str = ""  # "" = either face | up | down


@attrs.frozen(repr=False)
class RevealTokens(Effect):
    """``reveal tokens T at PLACE`` / ``on HOLDER``: the face-down tokens of the type there turn face up,
    their kinds said (issue #33 item 4)."""

    span: Span
    token: str
    at: TokenHolder


# --- a place handed to a drawn card, drawn identities, catching up with a track (issue #33 items 7-8) ---
@attrs.frozen(repr=False)
class DrawnKillerAppears(Effect):
    """``a random killer appears at PLACE``: a living body off the board, picked at random, is placed
    there. ``a killer drawn from DECK appears at PLACE``: the top card of a deck of bodies is drawn;
    the body it names appears there, then the card resolves at that place with ``the killer`` that
    body (K2.7: the body card a test result turns up)."""

    span: Span
    loc: Loc
    deck: str = ""  # "" = a body picked at random
    PHRASES: ClassVar = ("a random killer appears at {loc:loc}",
                         "a killer drawn from {deck:bodydeck} appears at {loc:loc}")


@attrs.frozen(repr=False)
class ReplaceVictimDrawn(Effect):
    """``replace KIND at PLACE with a random killer`` / ``… with a killer drawn from DECK``: as
    ``replace KIND at PLACE with a killer`` (K2.7), the body that takes the victim's place picked at
    random among those off the board, or named by the top card of a deck of bodies (which then
    resolves at that place)."""

    span: Span
    kind: str
    loc: Loc
    deck: str = ""  # "" = a body picked at random
    PHRASES: ClassVar = ("replace {kind:victimkind} at {loc:loc} with a random killer",
                         "replace {kind:victimkind} at {loc:loc} with a killer drawn from {deck:bodydeck}")


@attrs.frozen(repr=False)
class SpawnDrawn(Effect):
    """``spawn N minions of a random kind at PLACE``: N minions of one kind, picked at random among the
    kinds with a token left; ``… of a kind drawn from DECK at PLACE``: of the kind the top card of a
    deck of minion kinds names (the card then resolves at that place). The place is picked once."""

    span: Span
    n: Num
    loc: Loc
    deck: str = ""  # "" = a kind picked at random
    PHRASES: ClassVar = ("spawn {n:amount} minions of a random kind at {loc:loc}",
                         "spawn {n:amount} minions of a kind drawn from {deck:miniondeck} at {loc:loc}")


@attrs.frozen(repr=False)
class CatchUp(Effect):
    """``killer catches up with bloodlust``: the one-time effects of the bloodlust levels above the
    first, up to the level the marker stands on, resolve again, lowest first, with ``the killer``
    that body (K2.7: a body that comes late). ``… with track TRACK``: the ``at N`` steps of a
    track above its start space, up to the space its marker stands on. The marker does not move."""

    span: Span
    body: str = ""  # "" = the killer (the body an event or a drawn card is about)
    track: str = ""  # "" = the bloodlust track
    PHRASES: ClassVar = ("killer catches up with bloodlust", "killer {body:body} catches up with bloodlust",
                         "killer catches up with track {track:track}",
                         "killer {body:body} catches up with track {track:track}")


EFFECT_NODES = EFFECT_NODES + (TurnRandomVictims, ReplaceVictim, RevealVictims, AddStatusTo, ClearStatusFrom,
                               DamagePieces, KillPieces)


# --- pieces that travel with her (issue #33 item 2; V4–V9, S1.7) -----------------------------------
ON_FOOT = -1  # Conveyance.riders: victims follow her as they would on foot (C5.3)
ANY_RIDERS = -2  # Conveyance.riders: every victim there may ride along
TAKEN = ("chosen", "always")  # Conveyance.taken: she chooses at each move to take it | it goes whenever it may


@attrs.frozen(repr=False)
class Conveyance(Decl):
    """``conveyance ID { name "…"; start at LOC; goes when taken | goes always; enters tag TAG…;
    never crosses PATHTAG…; victims ride N | victims ride any | victims follow on foot; needs item ID }``:
    a piece that travels with the Final Girl (a vehicle, a cart, a boat: content names it). When she
    moves away from where it stands, holding the item it needs, it goes with her, always or when she
    takes it, to a location with one of the tags it may enter (any location without ``enters``) and
    along no path with a tag it never crosses; otherwise it stays. Victims follow her as on foot, or
    ride with it up to a number whatever the path lets follow (C5.3 otherwise)."""

    span: Span
    id: str
    name: str
    start: str = ""  # the location it starts at ("" = off the board until 'move ID to PLACE')
    taken: str = "chosen"  # one of TAKEN
    enters: tuple[str, ...] = ()  # location tags it may enter (one of them is enough); none: every location
    never_crosses: tuple[str, ...] = ()  # path tags it never goes along
    riders: int = ON_FOOT  # victims that come along as she moves with it: ON_FOOT, ANY_RIDERS or up to N
    needs: tuple[str, ...] = ()  # the items she must hold (in hand or backpack) to take it (() = none)


@attrs.frozen(repr=False)
class MoveConveyance(Effect):
    """``move ID to PLACE``: the conveyance goes there at once, along no path (from off the board
    too): it answers ``moves``, ``leaves`` and ``enters`` as any piece moved by an effect."""

    span: Span
    conveyance: str
    loc: Loc
    PHRASES: ClassVar = ("move {conveyance:conveyance} to {loc:loc}",)


# every effect and rule class with phrases is matched: one the lists above do not name is added at
# their end (the lists only order the phrases tried first; a form cannot be left out of them)
EFFECT_NODES = EFFECT_NODES + tuple(c for c in members(Effect) if "PHRASES" in vars(c) and c not in EFFECT_NODES)
RULE_NODES = RULE_NODES + tuple(c for c in members(Rule) if "PHRASES" in vars(c) and c not in RULE_NODES)
