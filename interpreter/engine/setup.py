"""Setting a game up (C18.3–C18.5, C16.2, C17.3, C14.2): the state before the first step.

``start`` lays out a game for a ``Game`` (its static tables) and a seed: the setup card, the
victims, the item piles with the signature item, the terror deck, the events, the finale and
the dark power, the last-breath tokens, the killer on the board, the token supplies and the
named decks; then runs on to the first choice.
"""

from __future__ import annotations

from typing import Any, Optional

from lastbreath.dsl.diagnostics import runtime_error
from lastbreath.dsl.limits import MAX_TOKENS_IN_PLAY

from ..state import Event, GameState, KillerState, state_of
from .draws import rand, shuffled
from .driver import advance
from .fields import set_dark_power, set_finale
from .game import Game
from .steps import Replay
from .telling import emit
from .tokens import place_token
from .working import Work
from .zones import deck_cards_at_setup, set_up_zones

PILE_SIZE = 4  # C18.4: piles of four items


def blank(game: Game, seed: int) -> GameState:
    """The state before setup: the Final Girl's numbers, the starting hand and the market (C3.9).
    The same for every seed but the seed: made once per Game, then copied."""
    if game.blank_fields is None:
        game.blank_fields = _blank(game, 0).__dict__
    d = game.blank_fields.copy()
    d["seed"] = seed
    return state_of(d)


def _blank(game: Game, seed: int) -> GameState:
    fg = game.fg
    cards = game.cards
    hand: list[str] = []
    market: list[str] = []
    for cid in sorted(cards):
        c = cards[cid]  # core cards, and the film cards of this killer and scenario (C3.9)
        if not c.start_aside:  # (set aside: out of play until an effect gains it, V3)
            (hand if c.start_in_hand else market).extend([cid] * c.copies)
    k = game.killer
    return GameState(
        game=game, seed=seed, rng=0, round=1, phase="setup", sub=0, result="", end_reason="",
        fg_loc=0, fg_health=fg.health, fg_breath=2, fg_breath_value=0, fear=k.fear,
        time=game.side.time_reset, hand=tuple(hand), spent=(), market=tuple(market), held=(), pack=(),
        rescued=0, slots=(False,) * max(fg.rescues, len(fg.slots)), flipped=False, skip_action=False,
        action_over=False, victims=(0,) * game.board.n, killers=(), minions=(), bloodlust=0,
        lust_fired=frozenset(), dead=0, deaths_round=0, terror=(), finale="", finale_revealed=False,
        dark_power="", dark_revealed=False, secondary="", secondary_health=0, events=(), events_active=(),
        piles=(), breath_bag=(), setup_card="", mode=k.modes[0] if k.modes else "",
        mode_active=k.modes[0] if k.modes else "", flags=frozenset(), opened=frozenset(),
    )


def start(game: Game, seed: int, kinds: Optional[frozenset[str]] = None) -> tuple[GameState, list[Event]]:
    """Set up a game by the rules and run to the first choice. ``kinds``: the kinds of event made
    and returned (None: all); the others are not made (the state is the same either way)."""
    board = game.board
    s, k, fg = game.scenario, game.killer, game.fg
    base = blank(game, seed)
    ctl = Replay((), 0, start=base)
    ctl.kinds = kinds
    w = Work(base, ctl)

    setup = s.setups[rand(w, len(s.setups))]  # C18.3 default: drawn at random
    w.setup_card = setup.id
    emit(w, "setup", f"setup card: {setup.id}", "C18.3")
    victims = [0] * board.n
    for loc, count in setup.victims:
        victims[board.index[loc]] += count
    w.victims = tuple(victims)
    w.victims_taken = sum(victims)  # C5.7: from the victim supply
    w.victims_in = sum(victims)
    w.fg_loc = board.index[setup.fg_at]
    # C18.4: shuffle the scenario's items, draw 11, add the signature item, shuffle, deal piles of 4
    plan = game.setup_lists
    if plan is None:
        plan = game.setup_lists = _setup_lists(game)
    piles = len(board.search_locs)
    pool = shuffled(w, plan[0])
    drawn = list(pool[: piles * PILE_SIZE - 1]) + ([fg.signature] if fg.signature else [])
    deck = shuffled(w, drawn)
    dealt = []  # piles of PILE_SIZE, the first card of each face up (loops: a generator is a call each)
    for p in range(piles):
        pile = []
        for j, c in enumerate(deck[p * PILE_SIZE:(p + 1) * PILE_SIZE]):
            pile.append((c, j == 0))
        dealt.append(tuple(pile))
    w.piles = tuple(dealt)
    # C18.5: the killer's and the scenario's terror cards shuffled together, 8 drawn
    terror = shuffled(w, plan[1])
    w.terror = terror[:8]
    w.events = shuffled(w, plan[2])
    # C17.3: a finale and a dark power drawn from the normal ones (+ the legendary when asked)
    fins, dps = plan[3], plan[4]
    set_finale(w, fins[rand(w, len(fins))])
    set_dark_power(w, dps[rand(w, len(dps))] if dps else "")
    # C14.2, C17.1: black last-breath tokens drawn face down
    bag = list(shuffled(w, game.player_board.last_breath))
    fg_token = bag.pop() if bag else 0
    k_token = bag.pop() if bag else 0
    w.fg_breath_value = fg_token
    start_at = board.index[setup.killer_at]
    declared = [b for b in k.bodies if not b.formed]
    if declared:  # K2.7, K3.1: each body its own health and black token; 'off board' ones wait off the map
        bodies = []
        for j, b in enumerate(declared):
            token = k_token if j == 0 else (bag.pop() if bag else 0)
            bodies.append(KillerState(k.id, -1 if b.off_board else start_at, b.health, 2, token, body=b.id))
        w.killers = tuple(bodies)
        w.active = next((j for j, b in enumerate(declared) if not b.off_board), 0)
    else:
        # K6.1: a killer with no board has nothing on the map at setup (its content places what it has)
        w.killers = (KillerState(k.id, start_at, k.health, 2, k_token),) if k.board else ()
    w.breath_bag = tuple(bag)
    # tokens: the supplies shuffled face down on the table; the setup card puts one at each of its places
    total = sum(count for t in game.tokens.values() for _kind, count in t.supply)
    if total > MAX_TOKENS_IN_PLAY:
        biggest = max(game.tokens.values(), key=lambda t: sum(c for _k, c in t.supply))
        raise runtime_error("E312", f"the token supplies hold {total} tokens, past the game's budget of "
                                    f"{MAX_TOKENS_IN_PLAY}", "fewer kinds, or smaller supplies", biggest.span)
    w.supply = shuffled(w, plan[5])
    for token, loc in setup.tokens:
        place_token(w, token, board.index[loc])
    for token, loc in setup.tokens_down:  # face down (issue #33 item 4)
        place_token(w, token, board.index[loc], True)
    set_up_zones(w)  # items and deck cards that start out of the piles and decks (issue #16 item 6)
    w.decks = tuple((d.id, shuffled(w, cards)) for d, cards in zip(game.decks.values(), plan[6]))
    # tracks on their starting spaces, holding areas empty
    w.tracks = tuple((t.id, t.start) for t in game.tracks.values())
    w.holding = tuple((h.id, 0) for h in game.holdings.values())
    if game.conveyances:  # pieces that travel with her, where they start (-1: off the board)
        w.conveyances = tuple(board.index[c.start] if c.start else -1 for c in game.conveyances)
    w.phase = "setup"
    st = w.freeze()
    events = list(ctl.events)
    state, more = advance(st, (), 0, kinds)
    return state, events + more


def _setup_lists(game: Game) -> tuple[Any, ...]:
    """What setup shuffles or draws from, the same for every seed: made once per Game (the item
    pool of the piles, the terror cards, the events, the finales and dark powers to draw from, the
    token supply, the cards of each named deck)."""
    s, k = game.scenario, game.killer
    return ([it.id for it in (*s.items, *k.items) if not it.start for _ in range(it.copies)],
            [t.id for t in (*k.terror, *s.terror)],
            [e.id for e in s.events],
            [f.id for f in k.finales if game.legendary or not f.legendary],
            [d.id for d in k.dark_powers if game.legendary or not d.legendary],
            [(t.id, kind) for t in game.tokens.values() for kind, count in t.supply for _ in range(count)],
            [deck_cards_at_setup(d) for d in game.decks.values()])
