"""Embedding lastbreath in a Python program: a whole game with undo, save and load.

    python examples/embed.py [SEED]

A ``Session`` keeps a game's history (states are immutable, so undo is keeping the states
that came before); ``save()`` gives plain JSON (setup, seed, the keys of the choices made) and
``Session.load`` replays it, checking each choice against the content it was made with.
"""

from __future__ import annotations

import json
import sys

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import random_policy
from lastbreath.interpreter.session import Session


def main(seed: int = 7) -> int:
    rs = load_ruleset()
    game = Session(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=seed)
    bot = random_policy(seed)

    # A few choices by the bot.
    while not game.over and len(game.choices) < 10:
        game.apply(bot(game.state, game.choice))
    print(f"after {len(game.choices)} choices: round {game.state.round}, {game.state.phase} phase")

    # A detour: take the last option offered, see what it did, take it back.
    if not game.over:
        option = game.choice.options[-1]
        events = game.apply(option.key)
        print(f"tried '{option.label}': {len(events)} event(s); undo")
        game.undo()

    # Save to text (a file would do as well) and load it back: the same game, history included.
    text = json.dumps(game.save())
    game = Session.load(rs, json.loads(text))
    print(f"saved and loaded: {len(text)} bytes, {len(game.choices)} choices replayed")

    # Play on to the end.
    while not game.over:
        game.apply(bot(game.state, game.choice))
    state = game.state
    who = "the Final Girl wins" if state.result == "fg" else "the killer wins"
    print(f"result: {who} ({state.end_reason}) in round {state.round} after {len(game.choices)} choices")

    # Why did the killer go where it last went?
    target = game.explain()["target"]
    if target is not None:
        print(f"the killer's last target: {target['target']} ({target['rule']}, decided by {target['decided_by']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))
