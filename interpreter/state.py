"""The game state: one frozen attrs class of tuples, frozensets and small records.

``slots=False`` so that a transition can copy ``__dict__`` (~0.5 µs) instead of calling
``attrs.evolve`` (~3 µs); nothing in a state is ever mutated after it is built. Static facts
(the loaded content, the compiled board) live in ``Game``, shared by every state of a game.
A state paused at a choice also carries the checkpoint it resumes from and the answers given
since (engine/driver.py), so a game can be saved in the middle of a card.

``GameState``'s fields are the one declaration of what a game's state holds: the engine's working
copy (engine/working.py) is derived from them (``python -m lastbreath.interpreter.fieldgen``; a test
fails when the two differ), and saves (serialize.py) read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Optional, TypeVar

import attrs

_T = TypeVar("_T")

if TYPE_CHECKING:
    from .engine.game import Game


@attrs.frozen(slots=False)
class Option:
    """One answer to a choice: a stable key and a label for people."""

    key: str
    label: str


@attrs.frozen(slots=False)
class Choice:
    """A decision the player must take: its kind, a prompt and the options offered."""

    kind: str
    prompt: str
    options: tuple[Option, ...]

    def keys(self) -> list[str]:
        return [o.key for o in self.options]


class Event(NamedTuple):
    """Something that happened, with the docs/rules.md id behind it and what caused it.

    A named tuple: events are made at every step, and a tuple is the cheapest immutable record.

    ``data``, for the tools that count (simulate, fuzz, report), so that they never read ``text``:

    - ``target``: the candidates, (location, distance, victims) each (explain.py);
    - ``phase`` "round N: Action phase": (round, bloodlust level 1-based, her health, fear, time);
    - ``bloodlust`` rises or falls: (the new level, 1-based); the top effect resolving: ();
    - ``victims``, ``minion``, ``victim-leaves``: (victims added to those in play,) when the count
      changes (placed: +N; turned into a minion or replaced by a killer body: -1; turned back: +1);
    - ``death``: (the location where the victim died,);
    - ``damage``: ("fg" or "killer", the damage taken); ``health`` a killer's healing: ("killer", its health);
    - ``buy`` and ``play``: (the card id,); ``use``: (the item id,); ``end``: (the winner,), and its
      ``source`` the content line that ended the game ("" when the core rules alone did).
    """

    kind: str
    text: str
    rule: str = ""
    source: str = ""  # file:line:col of the content that caused it; "" for the core rules alone
    data: tuple = ()  # structured detail for tools: see below

    def render(self) -> str:
        tail = f" [{self.rule}]" if self.rule else ""
        return f"{self.text}{tail}"


def evolved(obj: _T, **changes: object) -> _T:
    """A copy of a piece's record (KillerState, MinionState, …) with some fields changed, made without
    the frozen class's field-by-field ``__init__``: the same value (these classes have no validators
    or converters), at a third of the cost; pieces change at every enemy move."""
    d = obj.__dict__.copy()
    d.update(changes)
    new = _new_object(type(obj))
    _set_dict(new, "__dict__", d)
    return new


def state_of(d: dict[str, Any]) -> GameState:
    """A GameState whose fields are the dict ``d`` itself (the caller hands it over: no copy, no
    check). The engine's working copy becomes a state this way at every checkpoint."""
    s = _new_object(GameState)
    _set_dict(s, "__dict__", d)
    return s


_new_object = object.__new__
_set_dict = object.__setattr__  # a frozen class refuses ``s.__dict__ = d``; object's own setter does not


@attrs.frozen(slots=False)
class KillerState:
    id: str
    loc: int  # -1 = off the board
    health: int
    breath: int  # 2 black token, 1 white token, 0 gone (defeated)
    breath_value: int  # what the black token shows on its back (hidden)
    alive: bool = True
    status: frozenset[str] = frozenset()  # e.g. a daze (S5.5)
    label: str = ""  # a body formed during the game ("Mob 2", K6.6): no last-breath token; "" = the killer's board
    body: str = ""  # the declared body it is (K2.7, K3.1); "" = the killer's own single body
    aside: bool = False  # its last breath is gone while others remain: out of this phase (K2.9, K3.6)
    max_health: int = 0  # what healing restores it to; 0 = its declared health (K1.5 sets it)


@attrs.frozen(slots=False)
class MinionState:
    kind: str
    loc: int
    health: int
    status: frozenset[str] = frozenset()
    uid: int = 0  # stable identity on the board (1, 2, …), so a minion keeps its turn when another dies


@attrs.frozen(slots=False)
class MarkedVictim:
    """A victim that is not plain: of a kind (K2.1), with statuses (S2.6), or carrying tokens (its uid
    names it as their holder). It is counted in ``GameState.victims`` like any victim; plain victims
    are that count and nothing more, so a game without kinds or statuses keeps none of these."""

    uid: int  # stable identity (1, 2, …; never reused)
    loc: int
    kind: str = ""  # a victim kind of the content; "" = none
    status: frozenset[str] = frozenset()
    revealed: bool = False  # a hidden kind is said once revealed


@attrs.frozen(slots=False)
class HeldItem:
    id: str
    uses: int  # uses left; 0 for items without uses
    copy: int = 0  # which card it is, for an item whose cards carry tokens apart (S1.3; 0: not numbered)


@attrs.frozen(slots=False, eq=False)
class GameState:
    """Everything that changes during a game. Build new states with ``engine`` only."""

    game: Game  # static, shared by every state of the game
    seed: int
    rng: int  # draws made so far
    round: int
    phase: str  # action | planning | killer | panic | upkeep | over
    sub: int  # progress inside the phase
    result: str  # "" while playing, else "fg" or "killer"
    end_reason: str
    # the Final Girl
    fg_loc: int
    fg_health: int
    fg_breath: int
    fg_breath_value: int
    fear: int
    time: int
    hand: tuple[str, ...]
    spent: tuple[str, ...]
    market: tuple[str, ...]
    held: tuple[HeldItem, ...]  # in hand (weapons)
    pack: tuple[HeldItem, ...]  # backpack
    rescued: int
    slots: tuple[bool, ...]
    flipped: bool
    skip_action: bool
    action_over: bool
    # the board
    victims: tuple[int, ...]
    killers: tuple[KillerState, ...]
    minions: tuple[MinionState, ...]
    bloodlust: int  # 0-based level
    lust_fired: frozenset[int]
    dead: int
    deaths_round: int
    # cards
    terror: tuple[str, ...]
    finale: str
    finale_revealed: bool
    dark_power: str
    dark_revealed: bool
    secondary: str
    secondary_health: int
    events: tuple[str, ...]
    events_active: tuple[str, ...]
    piles: tuple[tuple[tuple[str, bool], ...], ...]  # per search location: (item, face up), top first
    breath_bag: tuple[int, ...]
    setup_card: str
    # named facts
    mode: str  # the mode set by effects
    mode_active: str  # the mode in force this Killer phase (K4.1: switches wait for the next one)
    flags: frozenset[str]
    opened: frozenset[int]  # indices of closed paths that were opened
    # tokens and decks declared by the content
    tokens: tuple[tuple[str, str, int], ...] = ()  # on the board: (token type, kind, location)
    supply: tuple[tuple[str, str], ...] = ()  # face down on the table, in random order: (token type, kind)
    collected: tuple[tuple[str, str], ...] = ()  # held by the Final Girl
    token_discard: tuple[tuple[str, str], ...] = ()  # spent tokens, back to the supply once it runs dry (S5.3)
    decks: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (deck id, cards left, top first)
    kept: tuple[str, ...] = ()  # "deck/card" kept in front of the Final Girl (their rules are in play)
    minion_seq: int = 0  # the last minion uid given out
    active: int = 0  # the active killer body, an index into killers (K3.2)
    dice: tuple[int, ...] = ()  # forced faces: the next dice rolled show these, before the generator is drawn
    # victim kinds, statuses on every piece, tokens everywhere (issue #16 items 3-5; engine/pieces.py)
    marked: tuple[MarkedVictim, ...] = ()  # the victims that are not plain (each also in ``victims``)
    victim_seq: int = 0  # the last uid given to a marked victim
    victims_taken: int = 0  # victims taken from the supply so far, setup's too (C5.7: left = supply - taken)
    # the victims that came into play: those of the setup card (or a position), plus those content
    # placed or turned back from minions, less those it turned into minions or replaced by a killer
    # body; the victims on the board, held, dead and rescued never add up to more (validate.py)
    victims_in: int = 0
    fg_status: frozenset[str] = frozenset()  # the Final Girl's statuses (S2.6)
    # tokens on items, cards, pieces: (holder, type, kind, face up)
    token_on: tuple[tuple[str, str, str, bool], ...] = ()
    # the sources with modifications in play, in the order they came into play (LANGUAGE.md 5:
    # modifications apply in that order); keys like 'item:ID', 'event:ID', 'dark:ID'
    arrivals: tuple[str, ...] = ()
    # item and card zones (issue #16 item 6)
    table: tuple[str, ...] = ()  # items face up on the table, to be taken or made (S1.1, S3.1–S3.4)
    aside: tuple[str, ...] = ()  # items set aside, out of play until an effect takes them
    item_piles: tuple[tuple[str, tuple[str, ...]], ...] = ()  # named piles: (pile id, items face down, top first)
    on_piles: tuple[tuple[int, str], ...] = ()  # items face up on an item pile: (pile index, item) (K2.2)
    deck_discards: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (deck id, its resolved cards, oldest first)
    cards_aside: tuple[str, ...] = ()  # "deck/card" set aside, out of their deck
    card_number: int = 0  # the number on the deck card being resolved or last drawn (K1.6)
    # counters and tracks, holding areas, delayed effects, closed paths (engine/tracks.py)
    tracks: tuple[tuple[str, int], ...] = ()  # (track id, the space its marker stands on), in Game.tracks order
    holding: tuple[tuple[str, int], ...] = ()  # (holding area id, victims held there), in Game.holdings order
    delayed: tuple[tuple[int, int, int], ...] = ()  # kept for a coming phase: (index in Game.delayed, 'it', 'that')
    barred: tuple[tuple[int, str], ...] = ()  # (path index, fg | victims | enemies) closed for them by effects; sorted
    cards_gone: tuple[str, ...] = ()  # action cards removed from the game ('remove card'); never back
    # pieces that travel with her (issue #33 item 2): where each of Game.conveyances stands, -1 off the
    # board; () in a game whose scenario declares none
    conveyances: tuple[int, ...] = ()
    # tokens that belong to one item card, tokens face down on the board (issue #33 items 3-4; engine/copies.py)
    item_seq: int = 0  # the last number given to a card of an item whose cards carry tokens apart ('item:ID#N')
    tokens_down: tuple[tuple[str, str, int], ...] = ()  # face down on the board: (token type, kind, location)
    # pending work
    choice: Optional[Choice] = None
    answers: tuple[str, ...] = ()
    checkpoint: Optional[GameState] = None
    events_seen: int = 0

    @property
    def over(self) -> bool:
        return bool(self.result)

    @property
    def killer(self) -> KillerState:
        return self.killers[0]
