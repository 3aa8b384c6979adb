"""A game with its history: answer choices, undo them, save and load, ask why.

States are immutable, so undo is keeping the states that came before::

    s = Session(rs, seed=7)
    s.apply(s.choice.options[0].key)
    s.undo()                    # back to the first choice
    data = s.save()             # a JSON-ready save (see replay.py)
    s2 = Session.load(rs, data) # the same game, its history replayed
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from lastbreath.dsl.ruleset import Ruleset

from . import api, engine, explain, replay
from .state import Choice, Event, GameState

__all__ = ["Session"]


class Session:
    """One game: the ruleset, its setup options, its seed and its history of ``(state, key)`` pairs,
    each key being the choice that led to that state (``None`` for the first state)."""

    ruleset: Ruleset
    options: dict[str, Any]
    seed: int
    history: list[tuple[GameState, Optional[str]]]
    position: Optional[dict[str, str]]

    def __init__(self, ruleset: Ruleset, *, killer: Optional[str] = None, scenario: Optional[str] = None,
                 final_girl: Optional[str] = None, difficulty: str = "normal", legendary: bool = False,
                 seed: int = 0, tie_policy: str = "harder", forced: str = "auto",
                 modules: Sequence[str] = ()) -> None:
        """Set up a new game (``api.new_game``, whose options these are: ``forced="log"`` or "ask"
        makes choices with one option observable; ``modules`` switches modules on); raises
        ``RulesError`` for an unknown id or option."""
        state, events = api.new_game(ruleset, killer=killer, scenario=scenario, final_girl=final_girl,
                                     difficulty=difficulty, legendary=legendary, seed=seed,
                                     tie_policy=tie_policy, forced=forced, modules=modules)
        self._start(ruleset, [(state, None)], [events])

    @classmethod
    def from_position(cls, ruleset: Ruleset, text: str, path: str = "<position>") -> Session:
        """A game from a position (a position file's text, docs/positions.md), at its first
        decision; undo goes back as far as the position, and a save holds the position's text.
        Raises ``ContentError`` (with E400–E407 diagnostics) for a bad position, ``RulesError``
        when content loops from it."""
        from .position import start_position

        state, events = start_position(ruleset, text, path)
        self = cls.__new__(cls)
        self._start(ruleset, [(state, None)], [events], {"text": text, "path": path})
        return self

    def _start(self, ruleset: Ruleset, history: list[tuple[GameState, Optional[str]]],
               events: list[list[Event]], position: Optional[dict[str, str]] = None) -> None:
        first = history[0][0]
        self.position = position  # {"text", "path"} of the position the game started from, or None
        self.ruleset = ruleset
        self.options = dict(first.game.ids)
        self.seed = first.seed
        self.history = history
        self._events = events  # the events of each transition, parallel to history

    # --- looking -----------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The current state."""
        return self.history[-1][0]

    @property
    def choice(self) -> Optional[Choice]:
        """The pending choice, None once the game is over."""
        return self.state.choice

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def events(self) -> list[Event]:
        """The events of the last transition: the setup, or the last choice (after an undo: the
        choice that led to the state now current)."""
        return list(self._events[-1])

    @property
    def log(self) -> list[Event]:
        """Every event of the game so far, in order."""
        return [e for evs in self._events for e in evs]

    @property
    def choices(self) -> list[str]:
        """The keys of the choices made so far."""
        return [k for _, k in self.history[1:] if k is not None]

    # --- playing -----------------------------------------------------------------------------
    def apply(self, key: str) -> list[Event]:
        """Answer the pending choice; returns the events it caused. An option that is not offered
        raises ``IllegalChoice`` and leaves the session as it was; content that loops raises
        ``RulesError`` (E310, E311), leaving it as it was too."""
        state, events = engine.apply(self.state, key)
        self.history.append((state, key))
        self._events.append(events)
        return events

    def undo(self, n: int = 1) -> GameState:
        """Take back the last ``n`` choices; returns the state now current. Raises ``ValueError``
        when fewer than ``n`` choices were made (and then undoes nothing)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"undo needs a positive number of choices (got {n!r})")
        made = len(self.history) - 1
        if n > made:
            raise ValueError(f"cannot undo {n} choice{'s' if n != 1 else ''}: "
                             f"{made} choice{'s' if made != 1 else ''} made so far")
        del self.history[-n:]
        del self._events[-n:]
        return self.state

    # --- saving ------------------------------------------------------------------------------
    def save(self, snapshot: bool = True) -> dict[str, Any]:
        """The game as a JSON-ready save (``replay.save``): setup, seed, choices and, with
        ``snapshot``, the current state to check the replay against (and the position a game
        from a position started at)."""
        data = replay.save(self.history, snapshot=snapshot)
        if self.position is not None:
            data["position"] = dict(self.position)
        return data

    @classmethod
    def load(cls, ruleset: Ruleset, data: Any) -> Session:
        """A session replayed from a save, with its whole history (so undo works across a load).
        Raises ``SaveError`` with the reason for a foreign, stale, corrupt or illegal save."""
        steps = replay.replay(ruleset, data)
        self = cls.__new__(cls)
        pos = data.get("position")
        self._start(ruleset, [(s.state, s.key) for s in steps], [s.events for s in steps],
                    dict(pos) if pos is not None else None)
        return self

    # --- why ---------------------------------------------------------------------------------
    def explain(self) -> dict[str, Any]:
        """Why the last transition went as it did: its events with their rule, source and data,
        and the targeting table of the most recent target event of the game, with ``transition``: 0
        when the setup caused it, i when the i-th choice did."""
        game = self.state.game
        target: Optional[dict[str, Any]] = None
        for i in range(len(self._events) - 1, -1, -1):
            hit = next((e for e in reversed(self._events[i]) if e.kind == "target" and e.data), None)
            if hit is not None:
                target = explain.targeting(hit, game)
                if target is not None:
                    target["transition"] = i
                break
        return {"choices": len(self.history) - 1, "events": [explain.event_json(e, game) for e in self.events],
                "target": target}
