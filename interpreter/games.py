"""Starting games: the static tables of a setup, made once per ruleset and shared by all its games
and loaded saves (``game_for``), and a new game run to its first choice (``new_game``).

The public API (api.py) re-exports ``new_game`` and ``defaults``; positions (position.py) and
saves (serialize.py) start from here too.
"""

from __future__ import annotations

import operator
from typing import Optional, Sequence

from lastbreath.dsl import RulesError
from lastbreath.dsl.modules import pick as pick_modules
from lastbreath.dsl.ruleset import Ruleset

from . import engine
from .engine import Game
from .state import Event, GameState


def defaults(rs: Ruleset) -> dict[str, str]:
    """The default killer, scenario and Final Girl: the first of each in id order; for the scenario,
    the first in id order of those its content marks ``default`` (so a new scenario whose id sorts
    first does not change the game played when none is named), else of all."""
    return {"killer": sorted(rs.killers)[0], "scenario": defaults_of(rs.scenarios),
            "final_girl": sorted(rs.final_girls)[0]}


def defaults_of(scenarios: dict) -> str:
    """The default scenario's id (``defaults``): the first marked ``default`` in id order, else the first."""
    marked = sorted(sid for sid, s in scenarios.items() if getattr(s, "default", False))
    return (marked or sorted(scenarios))[0]


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
    if scenario is None and rs.scenarios:
        scenario = defaults_of(rs.scenarios)
    k = _pick(rs.killers, killer, "killer")
    s = _pick(rs.scenarios, scenario, "scenario")
    fg = _pick(rs.final_girls, final_girl, "final girl")
    mods = tuple(m.id for m in pick_modules(rs, modules))  # RulesError for an unknown one
    game = game_for(rs, k.id, s.id, fg.id, difficulty, bool(legendary), tie_policy, forced, mods)
    if kinds is not None and not (isinstance(kinds, frozenset) and all(isinstance(k, str) for k in kinds)):
        raise RulesError(f"the kinds of event must be a frozenset of strings (got {kinds!r})")
    return engine.start(game, seed, kinds)


def game_for(rs: Ruleset, killer: str, scenario: str, final_girl: str, difficulty: str, legendary: bool,
             tie_policy: str, forced: str, modules: tuple[str, ...]) -> Game:
    """The static tables of a setup (``Game``), built once per ruleset and shared by all its games
    and loaded saves: the first call builds them (walking the content), later ones find them.
    Raises KeyError for an id that is not loaded, RulesError for a setup that cannot be made."""
    games = rs.caches.games
    key = (killer, scenario, final_girl, difficulty, legendary, tie_policy, forced, modules)
    game = games.get(key)
    if game is None:
        game = Game(rs, rs.killers[killer], rs.scenarios[scenario], rs.final_girls[final_girl], difficulty,
                    legendary, tie_policy, forced, modules)
        games[key] = game
    return game
