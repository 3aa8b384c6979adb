"""The public Python API: load content, start a game, answer choices, play with a bot.

    rs = load_ruleset()
    state, events = new_game(rs, killer=KILLER_ID, scenario=SCENARIO_ID, seed=7)
    while not state.over:
        state, events = apply(state, policy(state, state.choice))
"""

from __future__ import annotations

from typing import Callable, Optional

from lastbreath.dsl import RulesError, load_ruleset
from lastbreath.dsl.ruleset import Ruleset

from . import engine
from .bots import first_policy, greedy_policy, random_policy
from .engine import Game, advance, apply
from .state import Choice, Event, GameState, KillerState

Policy = Callable[[GameState, Choice], str]

__all__ = ["new_game", "apply", "load_ruleset", "random_policy", "first_policy", "greedy_policy", "play", "defaults"]


def defaults(rs: Ruleset) -> dict[str, str]:
    """The default killer, scenario and Final Girl: the first of each in id order."""
    return {"killer": sorted(rs.killers)[0], "scenario": sorted(rs.scenarios)[0],
            "final_girl": sorted(rs.final_girls)[0]}


def _pick(table: dict, key: Optional[str], what: str):
    if key is None:
        return table[sorted(table)[0]]
    if key not in table:
        import difflib
        close = difflib.get_close_matches(key, list(table), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(table))})"
        raise RulesError(f"unknown {what} '{key}'{hint}")
    return table[key]


def new_game(rs: Ruleset, killer: Optional[str] = None, scenario: Optional[str] = None,
             final_girl: Optional[str] = None, difficulty: str = "normal", legendary: bool = False,
             seed: int = 0, tie_policy: str = "harder") -> tuple[GameState, list[Event]]:
    """Set up a game by the rules (C18.3–C18.5, C16.2, C17.3) and run to the first choice."""
    if tie_policy not in engine.TIE_POLICIES:
        raise RulesError(f"unknown tie policy '{tie_policy}' (one of {', '.join(engine.TIE_POLICIES)})")
    if not rs.player_boards:
        raise RulesError("no player_board is loaded")
    k = _pick(rs.killers, killer, "killer")
    s = _pick(rs.scenarios, scenario, "scenario")
    fg = _pick(rs.final_girls, final_girl, "final girl")
    # the static tables of a setup are built once per ruleset and shared by all its games
    games = rs.cache.setdefault("games", {})
    key = (k.id, s.id, fg.id, difficulty, legendary, tie_policy)
    game = games.get(key)
    if game is None:
        game = games[key] = Game(rs, k, s, fg, difficulty, legendary, tie_policy)
    board = game.board
    seed = int(seed)
    ctl = engine.Ctl((), 0)
    base = _blank(game, seed)
    w = engine.Work(base, ctl)

    setup = s.setups[engine.rand(w, len(s.setups))]  # C18.3 default: drawn at random
    w.setup_card = setup.id
    engine.emit(w, "setup", f"setup card: {setup.id}", "C18.3")
    victims = [0] * board.n
    for loc, count in setup.victims:
        victims[board.index[loc]] += count
    w.victims = tuple(victims)
    w.fg_loc = board.index[setup.fg_at]
    # C18.4: shuffle the scenario's items, draw 11, add the signature item, shuffle, deal piles of 4
    piles = len(board.search_locs)
    pile_size = 4
    pool = engine.shuffled(w, [it.id for it in s.items])
    drawn = list(pool[: piles * pile_size - 1]) + ([fg.signature] if fg.signature else [])
    deck = engine.shuffled(w, drawn)
    w.piles = tuple(
        tuple((c, j == 0) for j, c in enumerate(deck[p * pile_size:(p + 1) * pile_size])) for p in range(piles))
    # C18.5: the killer's and the scenario's terror cards shuffled together, 8 drawn
    terror = engine.shuffled(w, [t.id for t in (*k.terror, *s.terror)])
    w.terror = terror[:8]
    w.events = engine.shuffled(w, [e.id for e in s.events])
    # C17.3: a finale and a dark power drawn from the normal ones (+ the legendary when asked)
    fins = [f.id for f in k.finales if legendary or not f.legendary]
    dps = [d.id for d in k.dark_powers if legendary or not d.legendary]
    w.finale = fins[engine.rand(w, len(fins))]
    w.dark_power = dps[engine.rand(w, len(dps))] if dps else ""
    # C14.2, C17.1: black last-breath tokens drawn face down
    bag = list(engine.shuffled(w, rs.player_board().last_breath))
    fg_token = bag.pop() if bag else 0
    k_token = bag.pop() if bag else 0
    w.fg_breath_value = fg_token
    w.breath_bag = tuple(bag)
    # K6.1: a killer with no board has nothing on the map at setup (its content places what it has)
    w.killers = (KillerState(k.id, board.index[setup.killer_at], k.health, 2, k_token),) if k.board else ()
    # tokens: the supplies shuffled face down on the table; the setup card puts one at each of its places
    supply = [(t.id, kind) for t in game.tokens.values() for kind, count in t.supply for _ in range(count)]
    w.supply = engine.shuffled(w, supply)
    for token, loc in setup.tokens:
        engine.place_token(w, token, board.index[loc])
    w.decks = tuple((d.id, engine.shuffled(w, [c.id for c in d.cards])) for d in game.decks.values())
    w.phase = "setup"
    st = w.freeze()
    events = list(ctl.events)
    state, more = advance(st, (), 0)
    return state, events + more


def _blank(game: Game, seed: int) -> GameState:
    fg = game.fg
    cards = game.cards
    hand: list[str] = []
    market: list[str] = []
    for cid in sorted(cards):
        c = cards[cid]  # core cards, and the film cards of this killer and scenario (C3.9)
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


# --- bots: see bots.py ------------------------------------------------------------------------
def play(state: GameState, policy: Policy, max_choices: int = 20000,
         on_events: Optional[Callable[[list[Event]], None]] = None) -> GameState:
    """Play a game to its end with a policy."""
    for _ in range(max_choices):
        if state.over:
            return state
        state, events = apply(state, policy(state, state.choice))
        if on_events is not None:
            on_events(events)
    raise RulesError("the game did not end within the choice limit")
