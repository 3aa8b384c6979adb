"""The rules engine: the core rules C1–C18 over the language's generic primitives.

One module per rules family, so that "where is C9.3 decided?" is answered by a file name:

| module | rules |
|---|---|
| driver.py | driving a game: a step replayed or resumed to the next choice (``advance``, ``apply``, ``play_out``) |
| asking.py | asking: a choice, a run paused until its answer, play_out's answers inside the run |
| telling.py | telling: events, each with its rule and the content line behind it |
| draws.py | dice and random draws, from the state's seed and counter |
| steps.py | what a step keeps while it runs (its replay and scope) and the exceptions that unwind it |
| working.py, fields.py | the working copy of a state; its fields generated from GameState's (fieldgen.py) |
| game.py | the static tables of one game |
| statics.py | what is in play: sources of abilities, static rules (dsl/LANGUAGE.md section 7), usable paths |
| triggers.py | triggers and replacements (dsl/LANGUAGE.md section 5) |
| tables.py | the dispatch tables of every node family, and the contexts content resolves in |
| resolve.py | one dispatch for every node family: effects, conditions, amounts, places |
| effects.py | what each effect line does (C3.4 and the primitives) |
| presence.py | effects on the killer's bodies: moved, hurt, formed, each in turn, active, vanishing (K1, K2, K3, K6) |
| conditions.py / amounts.py / places.py | conditions, amounts, places (K6.1, K6.3) |
| compiled.py | conditions and amounts compiled into closures where they are read again and again (C13) |
| index.py | indexes of the pieces on the board, built once per pieces tuple (K6) |
| final_girl.py | time, health, fear, damage, her last breath (C3.4–C3.7, C14) |
| bloodlust.py | deaths, the bloodlust track, panic (C9.7, C10, C17.2) |
| killers.py | the killers' health and bodies (C17.1, C17.4, C2.5, K6.6–K6.7) |
| items.py | items and search (C6) |
| tokens.py | token supplies, collecting and spending (S5.1–S5.3) |
| zones.py | item and card zones, recipes, usable while; named decks drawn, their fates (S1–S3, K1.6–K1.7, K2.2–K2.7) |
| victims.py | victims not plain: kinds, statuses, who follows, dies, escapes, is targeted (C5, C9, C10, K2.4) |
| pieces.py | victim kinds turned and replaced, statuses on every piece, ``for each`` piece (K2.1, K2.6, K2.7, S2.6) |
| holders.py | tokens on items, cards and pieces, in the supply; gain, remove, move, spend (S1.1–S1.6, K1.7) |
| cards.py | dark power, finale, events (C11.1, C17.3, C18.5) |
| movement.py | the Final Girl moves, victims follow and escape (C5) |
| attacks.py | her attacks and reactions to attacks on her (C3.8, C15.2, C9.6) |
| fear_checks.py | playing a card: dice, conversions, rerolls, outcomes (C2, C3) |
| enemies.py | who acts, targeting, enemy moves and attacks (C8.3, C9, K6.4–K6.5) |
| phases.py | the round and its phases (C1, C4, C7, C8, C10, C11), state-based checks (C13) |
| ending.py | the end of the game (C13) |
| ends.py | the content's win and lose lines, read after every step (C13) |
| setup.py | setting a game up (C18.3–C18.5, C16.2, C17.3) |
| tracks.py | tracks, holding areas, blocks kept for a coming phase, paths per mover (K1.2, S1.4, S2.3–S2.5, C5.3) |
| drawn.py | identities drawn from a deck or picked at random, catching up with a track (K2.7) |

The package names no killer, scenario, card or scenario mechanic (the purity rule: tests/test_purity.py).
Callers import ``apply``, ``advance``, ``play_out``, ``replace`` and ``work`` from here.
"""

from __future__ import annotations

# the family modules register their functions found by name in resolve's tables as they load
from . import amounts, conditions, drawn, effects, holders, pieces, places, presence, tracks, zones  # noqa: F401
from .asking import RUNS, ask, opt
from .attacks import Attack, attack_fg, damage_minions, fg_attack
from .bloodlust import kill_victim, lower_bloodlust, panic_location, raise_bloodlust, set_victims
from .bodies import body_name, killer_at, the_killer
from .cards import draw_event, reveal_dark_power, reveal_finale
from .conditions import covers
from .draws import rand, roll_die, shuffled
from .driver import advance, apply, play_out
from .ending import end_game
from .ends import check_ends
from .enemies import choose_target, enemy_act, group_attacks, hunt, tie_break, wander
from .fear_checks import dice_for, discard_card, fear_check, outcome_for, play_card
from .final_girl import fg_damage, gain_time, heal, lose_time, lower_fear, raise_fear
from .game import FORCED_POLICIES, TIE_POLICIES, Game
from .items import gain_item, hands_used, search, use_uses
from .killers import (
    absorb,
    damage_killer,
    evolve_killer,
    heal_killer,
    killer_last_breath_dice,
    update_piece,
)
from .movement import fg_moves, move_fg, rescue_here
from .phases import (
    PHASE_ORDER,
    STEPS,
    next_phase,
    step_action,
    step_killer,
    step_panic,
    step_planning,
    step_setup,
    step_upkeep,
)
from .places import locations_of
from .resolve import amount, condition, cover, loc, recorded, recording, run
from .setup import start
from .statics import abilities, enemy_tables, fg_tables, mode_active, modified, rules_in_play
from .steps import GameOver, NeedChoice, PhaseEnd, Replay, Scope
from .tables import AMOUNT, EVAL, EXEC, PLACE, Ctx
from .telling import emit
from .tokens import place_token
from .triggers import fire, would
from .words import loc_name
from .working import Work, replace, work
from .zones import draw_card

__all__ = [
    "AMOUNT",
    "EVAL",
    "EXEC",
    "FORCED_POLICIES",
    "PHASE_ORDER",
    "PLACE",
    "RUNS",
    "STEPS",
    "TIE_POLICIES",
    "Attack",
    "Ctx",
    "Game",
    "GameOver",
    "NeedChoice",
    "PhaseEnd",
    "Replay",
    "Scope",
    "Work",
    "abilities",
    "absorb",
    "advance",
    "amount",
    "apply",
    "ask",
    "attack_fg",
    "body_name",
    "check_ends",
    "choose_target",
    "condition",
    "cover",
    "covers",
    "damage_killer",
    "damage_minions",
    "dice_for",
    "discard_card",
    "draw_card",
    "draw_event",
    "emit",
    "end_game",
    "enemy_act",
    "enemy_tables",
    "evolve_killer",
    "fear_check",
    "fg_attack",
    "fg_damage",
    "fg_moves",
    "fg_tables",
    "fire",
    "gain_item",
    "gain_time",
    "group_attacks",
    "hands_used",
    "heal",
    "heal_killer",
    "hunt",
    "kill_victim",
    "killer_at",
    "killer_last_breath_dice",
    "loc",
    "loc_name",
    "locations_of",
    "lose_time",
    "lower_bloodlust",
    "lower_fear",
    "mode_active",
    "modified",
    "move_fg",
    "next_phase",
    "opt",
    "outcome_for",
    "panic_location",
    "place_token",
    "play_card",
    "play_out",
    "raise_bloodlust",
    "raise_fear",
    "rand",
    "recorded",
    "recording",
    "replace",
    "rescue_here",
    "reveal_dark_power",
    "reveal_finale",
    "roll_die",
    "rules_in_play",
    "run",
    "search",
    "set_victims",
    "shuffled",
    "start",
    "step_action",
    "step_killer",
    "step_panic",
    "step_planning",
    "step_setup",
    "step_upkeep",
    "the_killer",
    "tie_break",
    "update_piece",
    "use_uses",
    "wander",
    "work",
    "would",
]
