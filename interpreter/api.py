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

from typing import Callable, Optional

from lastbreath.dsl import RulesError, load_ruleset
from lastbreath.dsl.ruleset import Ruleset

from .bots import expert_policy, first_policy, greedy_policy, random_policy
from .engine import apply
from .games import defaults, new_game
from .state import Choice, Event, GameState

Policy = Callable[[GameState, Choice], str]

__all__ = ["apply", "defaults", "expert_policy", "first_policy", "greedy_policy", "load_ruleset", "new_game", "play",
           "position", "random_policy"]


def position(rs: Ruleset, text: str, path: str = "<position>") -> GameState:
    """The state of a position file's text (docs/positions.md) at its first decision; ``apply``
    accepts it. Raises ``ContentError`` with file:line:col diagnostics (E400–E407) for a bad
    position, ``RulesError`` when content loops from it (E310, E311). ``position.start_position``
    also returns the events on the way to that decision."""
    from .position import position as _position  # (imported when used: ~35 ms of every command's start-up)

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
