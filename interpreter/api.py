"""The public Python API: load content, start a game (or a position), answer choices, play with a bot.

    rs = load_ruleset()
    state, events = new_game(rs, killer=KILLER_ID, scenario=SCENARIO_ID, seed=7)
    while not state.over:
        state, events = apply(state, policy(state, state.choice))

What each raises (all subclasses of ``RulesError``, each with its catalogue ``code``):
``load_ruleset`` ContentError (E303); ``new_game`` RulesError (E300; E310/E311 for content
that loops); ``position`` ContentError (E400–E407) or RulesError; ``apply`` IllegalChoice (E301)
for a key that is not an option, or when there is no pending choice, and RulesError (E310/E311)
only for content that loops; ``play`` RulesError when the game does not end within the limit.
"""

from __future__ import annotations

import operator
from typing import Callable, Optional, Sequence

from lastbreath.dsl import RulesError, load_ruleset
from lastbreath.dsl.modules import pick as pick_modules
from lastbreath.dsl.ruleset import Ruleset

from . import engine
from .bots import first_policy, greedy_policy, random_policy
from .engine import Game, apply
from .state import Choice, Event, GameState

Policy = Callable[[GameState, Choice], str]

__all__ = ["apply", "defaults", "first_policy", "greedy_policy", "load_ruleset", "new_game", "play", "position",
           "random_policy"]


def defaults(rs: Ruleset) -> dict[str, str]:
    """The default killer, scenario and Final Girl: the first of each in id order."""
    return {"killer": sorted(rs.killers)[0], "scenario": sorted(rs.scenarios)[0],
            "final_girl": sorted(rs.final_girls)[0]}


def _pick(table: dict, key: Optional[str], what: str):
    if key is None:
        if not table:
            raise RulesError(f"no {what} is loaded: the content declares none")
        return table[sorted(table)[0]]
    if not isinstance(key, str):
        raise RulesError(f"the {what} must be an id string (got {key!r})")
    if key not in table:
        import difflib
        close = difflib.get_close_matches(key, list(table), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(table))})"
        raise RulesError(f"unknown {what} '{key}'{hint}")
    return table[key]


def new_game(rs: Ruleset, killer: Optional[str] = None, scenario: Optional[str] = None,
             final_girl: Optional[str] = None, difficulty: str = "normal", legendary: bool = False,
             seed: int = 0, tie_policy: str = "harder", forced: str = "auto",
             modules: Sequence[str] = (), kinds: Optional[frozenset[str]] = None) -> tuple[GameState, list[Event]]:
    """Set up a game by the rules (C18.3–C18.5, C16.2, C17.3) and run to the first choice.

    ``forced`` says what becomes of a choice with one option: "auto" answers it at once (the
    default), "log" answers it and says so in the log (an event of kind "forced"), "ask" asks it
    like any other choice. ``modules`` names the modules switched on (ids of ``rs.modules``; off
    unless named: LANGUAGE.md section 10); the game's setup (``state.game.ids``) and saves record them.
    ``kinds``: the kinds of event returned (None: all); the others are not made at all (as
    ``play_out``'s), and the state is the same either way.

    Raises ``RulesError`` (E300) for an unknown killer, scenario, Final Girl, difficulty, tie
    policy, forced-choice setting or module, two modules that replace or remove the same thing, a
    seed that is not an integer, or content without a player board; a content loop at the start
    raises ``RulesError`` too (E310, E311).
    """
    if tie_policy not in engine.TIE_POLICIES:
        raise RulesError(f"unknown tie policy '{tie_policy}' (one of {', '.join(engine.TIE_POLICIES)})")
    if forced not in engine.FORCED_POLICIES:
        raise RulesError(f"unknown forced-choice setting '{forced}' (one of {', '.join(engine.FORCED_POLICIES)})")
    try:
        seed = operator.index(seed)
    except TypeError:
        raise RulesError(f"the seed must be an integer (got {seed!r})") from None
    if not isinstance(difficulty, str):
        raise RulesError(f"the difficulty must be a side's id string (got {difficulty!r})")
    if not rs.player_boards:
        raise RulesError("no player_board is loaded")
    k = _pick(rs.killers, killer, "killer")
    s = _pick(rs.scenarios, scenario, "scenario")
    fg = _pick(rs.final_girls, final_girl, "final girl")
    # the static tables of a setup are built once per ruleset and shared by all its games
    games = rs.caches.games
    legendary = bool(legendary)
    mods = tuple(m.id for m in pick_modules(rs, modules))  # RulesError for an unknown one
    key = (k.id, s.id, fg.id, difficulty, legendary, tie_policy, forced, mods)
    game = games.get(key)
    if game is None:
        game = games[key] = Game(rs, k, s, fg, difficulty, legendary, tie_policy, forced, mods)
    if kinds is not None and not (isinstance(kinds, frozenset) and all(isinstance(k, str) for k in kinds)):
        raise RulesError(f"the kinds of event must be a frozenset of strings (got {kinds!r})")
    return engine.start(game, seed, kinds)


def position(rs: Ruleset, text: str, path: str = "<position>") -> GameState:
    """The state of a position file's text (docs/positions.md) at its first decision; ``apply``
    accepts it. Raises ``ContentError`` with file:line:col diagnostics (E400–E407) for a bad
    position, ``RulesError`` when content loops from it (E310, E311). ``position.start_position``
    also returns the events on the way to that decision."""
    from .position import position as _position

    return _position(rs, text, path)


# --- bots: see bots.py ------------------------------------------------------------------------
def play(state: GameState, policy: Policy, max_choices: int = 20000,
         on_events: Optional[Callable[[list[Event]], None]] = None) -> GameState:
    """Play a game to its end with a policy."""
    for _ in range(max_choices):
        if state.over:
            return state
        assert state.choice is not None
        state, events = apply(state, policy(state, state.choice))
        if on_events is not None:
            on_events(events)
    raise RulesError("the game did not end within the choice limit")
