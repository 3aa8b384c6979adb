"""The bounds on numbers in content, per kind of value.

Content comes from anyone, and a number is a cost: ``spawn N`` places N pieces, ``copies N`` puts
N cards in the deck, ``repeat N`` runs its block N times. Every number is bounded where it is
read: the parser refuses any number beyond ``MAX_NUMBER`` (syntax.py, before converting it), and
the builder each slot below with an E209 that names the limit. dsl/LANGUAGE.md ('Limits') lists
them; a test keeps that table and ``SLOTS`` the same.
"""

from __future__ import annotations

MAX_NUMBER = 999_999  # any number in content, either sign (syntax.py refuses more before converting)
MAX_AMOUNT = 100  # a number in an effect line: fear, time, health, damage, victims, spawns, moves, attacks…
MAX_REPEAT = 20  # repeat N
MAX_REPEAT_WORK = 100  # repeats inside repeats: the counts multiplied
DYNAMIC_REPEAT = 50  # what a count computed while playing (repeat that, repeat (count …)) weighs: the engine's cap
MAX_COPIES = 20  # copies of one card in the deck
MAX_HEALTH = 100  # health of a Final Girl, a killer, a minion, a secondary dark power
MAX_DICE = 10  # dice a card, a zone, a weapon or a rule adds or takes away
MAX_PIECES = 100  # a minion's limit (tokens of the kind); victims a setup card places at a location
MAX_SUPPLY = 100  # tokens of one kind in a token supply
MAX_SPEND = 10  # the HIGH of 'spend collected TOKEN LOW to HIGH'
MAX_TRACK = 100  # values on the time or fear track (the length of a range)
MAX_COORD = 1000  # each of a location's 'at X Y': where it is drawn (display.board_json scales them to the page)
# budgets of a game in play (the engine stops past them with E312, naming the content line)
MAX_PIECES_IN_PLAY = 1000  # minions and victims on the board together
MAX_TOKENS_IN_PLAY = 1000  # tokens of every supply together, at setup
MAX_KEPT = 100  # blocks kept by 'at start of next PHASE { … }' at once
# the work content may ask of the engine between two decisions (E313; docs/decisions/0022): one unit
# for each block run and each effect in it, each location a selector looks at, each piece a set
# goes over (the bundled films' games peak far below it: see the record)
MAX_WORK = 50_000

# value -> (lowest, highest) as LANGUAGE.md's table lists them (None: another check says it)
SLOTS: dict[str, tuple[object, object]] = {
    "any number": (-MAX_NUMBER, MAX_NUMBER),
    "a number in an effect line (`lose N time`, `spawn N ID at LOC`, `killer hunts fg moves N attacks N`, …)":
        (0, MAX_AMOUNT),
    "a number in an expression (`fear at least N`, `within N of PLACE`, `(count dead plus N)`, …)": (0, MAX_AMOUNT),
    "the N of `repeat N`": (0, MAX_REPEAT),
    "repeats inside repeats, their counts multiplied (a count computed in play counts as 50)": (0, MAX_REPEAT_WORK),
    "a card's `copies`": (1, MAX_COPIES),
    "an item's or a deck card's `copies`, the items a recipe `needs`": (1, MAX_COPIES),
    "a pile's `row`": (0, MAX_COPIES),
    "a deck card's `number`, a recipe's `time`": (0, MAX_AMOUNT),
    "a card's `cost`, an item's `uses` and `use time N`, an action's `time`": (0, MAX_AMOUNT),
    "a card's `dice`, a weapon's `bonus`, a `dice N` rule": (-MAX_DICE, MAX_DICE),
    "the N of `reroll N`": (1, MAX_DICE),
    "a zone's `dice`": (0, MAX_DICE),
    "the `health` of a Final Girl, a killer or a minion, `secondary health`": (1, MAX_HEALTH),
    "a minion's `move` and `damage`, a weapon's `range`, a bloodlust level's numbers": (0, MAX_AMOUNT),
    "a minion's `limit`, `victims at LOC N` on a setup card": (0, MAX_PIECES),
    "each kind of a token's `supply`": (0, MAX_SUPPLY),
    "HIGH of `spend collected TOKEN LOW to HIGH`": (1, MAX_SPEND),
    "the N of `followers N` and `followers at most N`": (0, MAX_AMOUNT),
    "the N of `rule damage taken N`, and the other numbers of a rule": (-MAX_AMOUNT, MAX_AMOUNT),
    "a player board's `hand limit`": (1, MAX_AMOUNT),
    "a player board's `last breath` tokens": (0, MAX_AMOUNT),
    "a player board's `victim supply`": (0, MAX_PIECES),
    "the length of a `time range` or `fear range`": (0, MAX_TRACK),
    "the spaces of a track (`spaces LOW to HIGH`)": (0, MAX_TRACK),
    "a holding area's `capacity`": (1, MAX_PIECES),
    "a location's `number NAME N`": (0, MAX_AMOUNT),
    "each of a location's `at X Y` (where it is drawn)": (0, MAX_COORD),
    "the N of a conveyance's `victims ride N`": (0, MAX_PIECES),
}
