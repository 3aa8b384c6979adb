"""How often a bot uses each mechanic the content offers, per game, on every killer × scenario.

    python examples/bot_mechanics.py [--games N] [--seed S] [--bot greedy] [--final-girl ID]
                                     [--killer ID] [--scenario ID] [--module vehicles] [--json]

Issue #41 ("bots that use every mechanic"): does the bot craft, search, carry an item to the place
where it works, buy the cards that move a track or mark the board, take pills, spend tokens and
drive vehicles? Each mechanic is told from the content's forms (the parsed nodes), never from a
name, so the same counts hold for any pack:

- ``craft``: a recipe made (S3.4: the ``recipe:`` answer);
- ``search``: a card played that searches (C6.1: ``search take``, ``search look``) where she stands
  on a pile that holds items (a search elsewhere finds nothing);
- ``placed-use``: an item used whose ``usable while`` needs her at a kind of place (``fg at``,
  ``fg at tag``, a token or a victim kind at ``here``; K2.5);
- ``noop-use``: an item used whose effects are only healing and lowering fear, at full health and
  the lowest fear: it changed nothing (the loop of issue #41's gap 4);
- ``track-buy`` / ``track-play``: a card bought or played that moves a track, places or reveals a
  token, or moves a vehicle (S2.4, K1.7), and that heals, hurts, moves her and lowers fear not at all;
- ``token-collect`` / ``token-spend``: an action that collects a token or spends tokens (S5.2–S5.3,
  S1.2–S1.5); ``take-item``: an action that takes an item from the table (S3.3, S1.2);
- ``vehicle-move``: a move with a conveyance taken along (V4; the ``move:DEST:ID`` answer);
- ``action``: any content action; ``use``: any item used.

Next to each count, ``offered``: how many of the bot's decisions offered it at least once (so a
mechanic the bot never takes shows whether it had the chance). Counts come from the bot's answers
and the events' data (docs/decisions/0023), never from an event's words.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from lastbreath.dsl import load_ruleset
from lastbreath.dsl import nodes as n
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.cli import resolve_modules
from lastbreath.interpreter.engine import apply
from lastbreath.interpreter.replay import MAX_SEED
from lastbreath.interpreter.games import new_game

MECHANICS = ("craft", "search", "placed-use", "noop-use", "track-buy", "track-play", "token-collect",
             "token-spend", "take-item", "vehicle-move", "action", "use")

_MARKS = (n.AdvanceTrack, n.RetreatTrack, n.SetTrack, n.PlaceToken, n.RevealTokens, n.MoveConveyance,
          n.GainTokens, n.LoadVictims, n.LoadVictimsUpTo)
_PLAIN = (n.Heal, n.DealDamage, n.KillMinions, n.MoveUpTo, n.LowerFear, n.SearchTake, n.SearchLook)


def _effects_of_card(card: n.Card) -> list:
    return list(n.walk(tuple(e for o in card.outcomes for e in o.effects)))


def _placed(cond) -> bool:
    """A condition that needs her at some kind of place (a tag, a location, a token or a kind 'here')."""
    for x in n.walk((cond,)) if cond is not None else ():
        if isinstance(x, (n.FgAt, n.FgAtTag)):
            return True
        if isinstance(x, (n.TokenAt, n.KindAt, n.VictimsAt)) and getattr(x, "loc", None) == "here":
            return True
    return False


def _track_card(card: n.Card) -> bool:
    eff = _effects_of_card(card)
    return any(isinstance(e, _MARKS) for e in eff) and not any(isinstance(e, _PLAIN) for e in eff)


def _kinds(state, key: str) -> list[str]:
    """The mechanics an answer uses (several may apply)."""
    g = state.game
    out: list[str] = []
    if key.startswith("recipe:"):
        out.append("craft")
    elif key.startswith("use:"):
        it = g.items[key[4:].partition("#")[0]]
        out.append("use")
        if _placed(it.usable):
            out.append("placed-use")
        eff = list(n.walk(it.use.effects)) if it.use else []
        if eff and all(isinstance(e, (n.Heal, n.LowerFear)) for e in eff) and \
                state.fg_health >= g.fg.health and state.fear <= g.side.fear_min:
            out.append("noop-use")
    elif key.startswith("action:"):
        a = next(x for x in g.actions if x.id == key[7:])
        out.append("action")
        eff = list(n.walk(a.effects))
        if any(isinstance(e, n.CollectToken) for e in eff):
            out.append("token-collect")
        if any(isinstance(e, (n.SpendTokens, n.SpendTo)) for e in eff):
            out.append("token-spend")
        if any(isinstance(e, n.TakeItem) for e in eff):
            out.append("take-item")
    elif key.startswith("play:"):
        card = g.cards[key[5:]]
        if _track_card(card):
            out.append("track-play")
        board = g.board
        if any(isinstance(e, (n.SearchTake, n.SearchLook)) for e in _effects_of_card(card)) and \
                state.fg_loc in board.pile_of and state.piles[board.pile_of[state.fg_loc]]:
            out.append("search")
    elif key.startswith("buy:"):
        if _track_card(g.cards[key[4:]]):
            out.append("track-buy")
    elif key.startswith("move:") and key.count(":") >= 2:
        out.append("vehicle-move")
    return out


def play_counts(rs, setup: dict, seed: int, bot: str, max_answers: int = 20000) -> tuple[Counter, Counter, str]:
    """One game: the mechanics used and offered (per decision), and its result."""
    policy = BOTS[bot](seed)
    used: Counter = Counter()
    offered: Counter = Counter()
    state, _events = new_game(rs, seed=seed, kinds=frozenset(), **setup)
    for _ in range(max_answers):
        if state.over:
            break
        choice = state.choice
        key = policy(state, choice)
        seen: set[str] = set()
        for o in choice.options:
            seen.update(k for k in _kinds(state, o.key) if k != "noop-use")
        offered.update(seen)
        used.update(_kinds(state, key))
        state, _events = apply(state, key)
    return used, offered, state.result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Mechanics: " + ", ".join(MECHANICS))
    ap.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")
    ap.add_argument("--bot", default="greedy", help="the bot (default greedy)")
    ap.add_argument("--final-girl", default="nell-arden", help="the Final Girl (default nell-arden)")
    ap.add_argument("--killer", action="append", default=[], help="only this killer (repeatable)")
    ap.add_argument("--scenario", action="append", default=[], help="only this scenario (repeatable)")
    ap.add_argument("--module", action="append", default=[], help="switch a module on (repeatable)")
    ap.add_argument("--json", action="store_true", help="print JSON: per pair and in total")
    args = ap.parse_args(argv)
    if not 1 <= args.games <= 1000:
        ap.error("--games must lie within 1..1000")
    if not 0 <= args.seed <= MAX_SEED - args.games:
        ap.error(f"--seed must lie within 0..{MAX_SEED - args.games}")
    if args.bot not in BOTS:
        ap.error(f"unknown bot '{args.bot}' (known: random, first, greedy, expert, expert:N)")
    rs = load_ruleset()
    for what, table, asked in (("killer", rs.killers, args.killer), ("scenario", rs.scenarios, args.scenario),
                               ("Final Girl", rs.final_girls, [args.final_girl]), ("module", rs.modules, args.module)):
        for x in asked:
            if x not in table:
                ap.error(f"unknown {what} '{x}' (known: {', '.join(sorted(table))})")
    rows = []
    total_used: Counter = Counter()
    total_offered: Counter = Counter()
    games = wins = 0
    for k in sorted(args.killer or rs.killers):
        for s in sorted(args.scenario or rs.scenarios):
            setup: dict = {"killer": k, "scenario": s, "final_girl": args.final_girl}
            mods = resolve_modules(rs, args.module or None, k, s)
            if mods:
                setup["modules"] = mods
            used: Counter = Counter()
            offered: Counter = Counter()
            won = 0
            for i in range(args.games):
                u, o, result = play_counts(rs, setup, args.seed + i, args.bot)
                used += u
                offered += o
                won += result == "fg"
            rows.append({"killer": k, "scenario": s, "games": args.games, "wins": won,
                         "per_game": {m: round(used[m] / args.games, 3) for m in MECHANICS if used[m]},
                         "offered_per_game": {m: round(offered[m] / args.games, 3) for m in MECHANICS if offered[m]}})
            total_used += used
            total_offered += offered
            games += args.games
            wins += won
    total = {"games": games, "wins": wins,
             "per_game": {m: round(total_used[m] / max(1, games), 3) for m in MECHANICS},
             "offered_per_game": {m: round(total_offered[m] / max(1, games), 3) for m in MECHANICS}}
    if args.json:
        json.dump({"bot": args.bot, "modules": args.module, "pairs": rows, "total": total}, sys.stdout)
        print()
        return 0
    width = max(len(f"{r['killer']} / {r['scenario']}") for r in rows)
    print(f"{'pair':<{width}}  wins  " + "  ".join(f"{m:>13}" for m in MECHANICS))
    for r in rows + [{"killer": "total", "scenario": "", **total}]:
        name = f"{r['killer']} / {r['scenario']}" if r["scenario"] else "total"
        cells = [f"{r['per_game'].get(m, 0):6.2f}/{r['offered_per_game'].get(m, 0):<6.2f}" for m in MECHANICS]
        print(f"{name:<{width}}  {r['wins']:>4}  " + "  ".join(f"{c:>13}" for c in cells))
    print("\n(each cell: used per game / decisions that offered it per game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
