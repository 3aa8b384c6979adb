"""English rendering (dsl/render.py), ``to_dsl`` round trips, and ``lastbreath render``.

- Registry: every effect, control, condition and rule node class has an English renderer and a
  way back to the DSL; every effect and control node has an executor in the engine.
- ``to_dsl`` of a node builds (through dsl.build) to an equal node, spans aside: for a sample of
  every node class and for every effect, condition and rule in the bundled content.
- Snapshots (syrupy): the English text of every bundled top-level entity, one snapshot each, so a
  change to what a card does shows as a text diff (``pytest --snapshot-update`` to accept it).
"""

from __future__ import annotations

import json
import re

import pytest

from lastbreath.dsl import load_ruleset, nodes as n, parse_text
from lastbreath.dsl.build import build_file
from lastbreath.dsl.render import Names, dsl_writer_for, render, render_effects, renderer_for, to_dsl
from lastbreath.interpreter.cli import main, render_index

RS = load_ruleset()
NAMES = Names.from_ruleset(RS)


# --- helpers ----------------------------------------------------------------------------------
def unspan(x):
    """A node as plain tuples without spans, for comparing nodes built from different text."""
    if isinstance(x, n.Node):
        return (type(x).__name__,) + tuple((name, unspan(v)) for name, v in n.fields(x))
    if isinstance(x, (tuple, list)):
        return tuple(unspan(v) for v in x)
    return x


def _build(text: str) -> list:
    lines, diags = parse_text(text, "<test>")
    assert not diags, [d.message for d in diags]
    decls, _refs, diags = build_file(lines, "<test>", text)
    assert not diags, [(d.message, d.hint) for d in diags]
    return decls


def effects_of(body: str) -> tuple:
    """Effect lines built inside a card outcome (references are not checked here)."""
    return _build(f'card t {{\n  name "T"\n  cost 0\n  fail {{\n{body}\n  }}\n}}\n')[0].outcomes[0].effects


def condition_of(text: str):
    if "it" in text.split():  # 'it' (a modification's location, a loop's) means something only inside a 'for each'
        return effects_of(f"for each any {{\nif {text} {{ lose 1 time }}\n}}")[0].body[0].cond
    return effects_of(f"if {text} {{ lose 1 time }}")[0].cond


def rule_of(text: str):
    return _build(f'item t {{ name "T"; rule {text} }}')[0].abilities.rules[0]


def amount_of(text: str):
    return effects_of(f"lose ({text}) time")[0].n


def place_of(text: str):
    return effects_of(f"move killer to ({text})")[0].loc


def ability_of(text: str):
    ab = _build(f'item t {{\n  name "T"\n  {text}\n}}')[0].abilities
    return (*ab.triggers, *ab.replacements, *ab.modifications)[0]


def event_of(text: str):
    head = "instead of" if text.endswith(" phase") else "when"  # a whole phase: only a replacement takes it
    return ability_of(f"{head} {text} {{ lose 1 time }}").event


def piece_of(text: str):
    return event_of(f"{text} dies").piece


WRAPPERS = {n.Rule: lambda node: rule_of(to_dsl(node)), n.Condition: lambda node: condition_of(to_dsl(node)),
            n.Amount: lambda node: amount_of(to_dsl(node)), n.Place: lambda node: place_of(to_dsl(node)),
            n.Event: lambda node: event_of(to_dsl(node)), n.Piece: lambda node: piece_of(to_dsl(node))}


def reparse(node):
    """Build ``to_dsl(node)`` again in the right wrapper."""
    for family, build in WRAPPERS.items():
        if isinstance(node, family):
            return build(node)
    if isinstance(node, (n.Trigger, n.Replacement, n.Modification)):
        return ability_of(to_dsl(node))
    text = to_dsl(node, "    ")
    if re.search(r"(?<![\w-])it(?![\w-])", text):  # 'it' is a location only inside 'for each': build it inside one
        (loop,) = effects_of(f"for each any {{\n{text}\n}}")
        got = loop.body
    else:
        got = effects_of(text)
    assert len(got) == 1
    return got[0]


# One line (effect, control), condition or rule phrase per node class; the registry test below
# fails when a node class has no sample here.
EFFECT_SAMPLES = {
    n.GainTime: ["gain 2 time", "gain (count victims at here) time"],
    n.LoseTime: ["lose 1 time", "lose (count dead minus 1) time", "lose that time", "lose fear time"],
    n.Heal: ["heal 1"],
    n.LoseHealth: ["lose 2 health"],
    n.RaiseFear: ["raise fear 1"],
    n.LowerFear: ["lower fear 2"],
    n.MoveUpTo: ["move up to 3"],
    n.DealDamage: ["deal 2 damage"],
    n.PreventDamage: ["prevent 1 damage"],
    n.SearchTake: ["search take 1", "search take (count rescued)"],
    n.SearchLook: ["search look 3 keep 1", "search look (bloodlust spawn) keep 1"],
    n.EndActionPhase: ["end action phase"],
    n.DrawEvent: ["draw event"],
    n.GainCard: ["gain card walk"],
    n.RemoveCard: ["remove card walk"],
    n.GainItem: ["gain item raft"],
    n.DiscardItem: ["discard item raft"],
    n.RaiseBloodlust: ["raise bloodlust 1"],
    n.LowerBloodlust: ["lower bloodlust 2"],
    n.Hunt: ["killer hunts fg moves 1 attacks 1", "minions hunt victims moves 2 attacks 0",
             "enemies hunt fg-or-victims moves 1 attacks 2", "killer hunts fg moves (bloodlust spawn) attacks (count dead)"],
    n.KillVictims: ["kill 1 victims at killer-location"],
    n.PlaceVictims: ["place 2 victims at old-mill"],
    n.SpawnMinions: ["spawn 2 cub at here", "spawn (bloodlust spawn) cub at (exit with fewest cub farthest from fg)",
                     "spawn 1 cub at (search with fewest cub nearest to fg)", "spawn 1 cub at (chosen river)",
                     "spawn 1 cub at killer-start"],
    n.MoveKillerTo: ["move killer to here"],
    n.HealKiller: ["heal killer 2"],
    n.DamageKiller: ["damage killer 1"],
    n.RevealDarkPower: ["reveal dark power"],
    n.RevealFinale: ["reveal finale"],
    n.SetMode: ["set mode slaughter"],
    n.SetFlag: ["set flag raft-found"],
    n.ClearFlag: ["clear flag raft-found"],
    n.OpenPath: ["open path willow-ford millpond"],
    n.PanicAt: ["panic at heron-reeds"],
    n.CollectToken: ["collect token clue at here"],
    n.PlaceToken: ["place token clue at old-mill"],
    n.DrawCard: ["draw card side-effects"],
    n.AddStatus: ["add status dazed to enemies at here", "add status dazed to killer",
                  "add status dazed to an enemy at here"],
    n.ClearStatus: ["clear status dazed"],
    n.TurnVictims: ["turn 2 victims at here into cub"],
    n.TurnMinions: ["turn 1 cub at here into victims"],
    n.KillMinions: ["kill 2 cub at here", "kill (bloodlust spawn) cub at (exit with fewest cub)"],
    n.FormKillers: ["turn groups of 3 cub into killers"],
    # control lines
    n.If: ["if fear at least 5 { lower fear 1 } else { gain 1 time }",
           "if not flag raft-found { lose 1 time; raise fear 1 }",
           "if time at most 2 {\n  if fear at most 3 { heal 1 }\n} else {\n  roll {\n    on 1 { heal 1 }\n  }\n}"],
    n.ModeBlock: ["mode slaughter { killer hunts fg moves 1 attacks 1; raise fear 1 }"],
    n.Repeat: ["repeat 2 { raise fear 1 }", "repeat (count victims at here) { lose 1 time }"],
    n.Choose: ['choose {\n  "Rest" { heal 1 }\n  "Say \\"no\\"" { gain 2 time }\n  "Nothing" { }\n}'],
    n.Roll: ["roll {\n  on 1 2 3 { lose 1 time }\n  on 4 5 6 { gain 1 time; mode slaughter { heal 1 } }\n}"],
    n.SpendTokens: ["spend collected clue 1 to 3 {\n  each red { heal 1 }\n  if spent at least 2 { gain 1 time }\n}"],
    n.Each: ["each red { deal 1 damage }"],
    n.ForEach: ["for each exit { spawn 1 cub at it }", "for each search except killer-start { place 1 victims at it }",
                "for each river except (any chosen) { panic at it }",
                "for each adjacent to here with victims where it has tag river { panic at it }",
                "for each 3 of any with victims random { panic at it }",
                "for each (count dead plus 1) of search nearest to fg { place 1 victims at it }"],
    n.AllKillers: ["all killers { killer hunts fg moves 1 attacks 1 }", "all killers { if killer at here { heal 1 } }"],
    n.SwitchActive: ["active killer moves up", "active killer moves down"],
    n.MakeActive: ["killer red becomes active"],
    n.KillerVanishes: ["killer vanishes", "killer red vanishes"],
    n.KillerAppears: ["killer appears at here", "killer red appears at (search nearest to fg)"],
    n.EndThisPhase: ["end this phase"],
    n.SetModeNow: ["set mode slaughter now"],
    n.SetKillerHealth: ["set killer health 10", "set killer red health (count dead plus 2)"],
    n.SetKillerMaxHealth: ["set killer max health 10", "set killer red max health 4"],
    n.DefeatKiller: ["defeat killer", "defeat killer grey"],
    n.EndGame: ['end game lose "the ship takes her with it"', 'end game win "she got out"'],
}
CONDITION_SAMPLES = {
    n.AllOf: ["all { fear at least 5; flag raft-found }", "all { any { flag a; flag b }; not mode slaughter }"],
    n.AnyOf: ["any { fg at here; victims at old-mill; count enemies at most 0 }"],
    n.Not: ["not fear at least 5", "not not flag raft-found", "here is not old-mill", "fear is not 3"],
    n.Compare: ["fear at least 5", "time at most 2", "health at least 3", "bloodlust at most 4",
                "fear is time", "count victims at here more than 1", "(count minions minus 1) less than fear",
                "victims left at most 0", "killer health at most 7", "enemies at most 0", "killers at least 4",
                "exits at most 1", "collected clue at least 3", "spent at least 2",
                "distance from fg to killer-location at most 2", "min of fear and 3 is 3"],
    n.FgAt: ["fg at here", "fg at old-mill", "fg at (exit nearest to fg)"],
    n.FgAtTag: ["fg at tag river"],
    n.VictimsAt: ["victims at killer-location"],
    n.KillerAt: ["killer at old-mill", "killer red at here"],
    n.KillerIs: ["killer is off the board", "killer is on the board", "killer red is active", "killer grey is set aside"],
    n.MinionsAt: ["minions at here"],
    n.TokenAt: ["token clue at here"],
    n.FlagSet: ["flag raft-found"],
    n.InMode: ["mode slaughter"],
    n.HasItem: ["has item raft"],
    n.SpentCovers: ["spent covers red blue", "spent covers wild"],
    n.PlaceIs: ["here is exit", "killer-location is search"],
    n.HasTag: ["here has tag river", "(search nearest to fg) has tag river"],
    n.BoardHasTag: ["board has tag river"],
    n.SamePlace: ["here is killer-location", "killer-start is (exit farthest from fg)"],
    n.Within: ["fg within 2 of killer-location", "killer within (bloodlust move) of here"],
    n.CauseIs: ["the cause is a kill", "the cause is the killer", "the cause is another cause"],
    n.CausedBy: ["the cause is item raft", "the cause is card walk"],
}
AMOUNT_SAMPLES = {
    n.Count: ["count victims at here", "count dead", "count rescued", "count minions at killer-location",
              "count cub", "count killers", "count enemies at old-mill", "count exits", "count items",
              "count tokens clue", "count tokens clue at here", "count collected clue", "count cards in side-effects",
              "count victims at (any with most victims)"],
    n.Quantity: ["fear", "time", "health", "bloodlust", "killer health"],
    n.That: ["that"],
    n.LevelStat: ["bloodlust spawn", "bloodlust damage"],
    n.Distance: ["distance from here to killer-location"],
    n.Arith: ["count victims at here minus 1", "fear plus 2", "fear plus (time minus 1)"],
    n.MinMax: ["min of fear and 3", "max of (count dead) and (count rescued plus 1)"],
}
PLACE_SAMPLES = {
    n.Selector: ["exit with fewest cub farthest from fg", "exit with fewest cub then nearest to fg", "search chosen",
                 "any with victims nearest to fg", "river where it is not killer-start random",
                 "adjacent to here with token clue", "within 2 of killer-location with most victims",
                 "exit with most (count victims at it plus count dead) except here",
                 "any where it has tag river farthest from killer-location"],
}
EVENT_SAMPLES = {
    n.PieceEvent: ["victim dies", "killer takes damage", "fg loses health", "killer would be defeated",
                   "a cub dies", "killer kills", "killer forms", "an enemy moves", "fg gains time", "fg loses time",
                   "fg enters old-mill", "fg enters (any with victims)", "fg leaves", "fg leaves here",
                   "fg crosses bridge", "the killer dies", "killer red dies", "killer appears", "killer grey vanishes"],
    n.PhaseEvent: ["start of killer", "end of upkeep", "killer phase", "upkeep phase"],
    n.BloodlustRises: ["bloodlust rises", "bloodlust rises from a kill", "bloodlust rises from another cause"],
    n.FearChanges: ["fear rises", "fear falls"],
    n.TokenEvent: ["token clue is spent", "token clue is placed"],
    n.ItemEvent: ["item raft is gained", "an item is discarded"],
    n.CardEvent: ["card is drawn", "card side-effects is drawn", "card is revealed"],
    n.OwnEvent: ["gained"],
    n.GameStarts: ["game starts"],
}
PIECE_SAMPLES = {n.PieceRef: ["fg", "killer", "victim", "minion", "cub", "enemy", "killer red"]}
ABILITY_SAMPLES = {
    n.Trigger: ["when victim dies if fear at least 3 { raise fear 1 }", "at start of killer { heal killer 1 }",
                "when fg enters (any with victims) { gain 1 time }"],
    n.Replacement: ["instead of bloodlust rises if not the cause is the killer { lose that time }",
                    "instead of killer would be defeated { heal killer 2 }"],
    n.Modification: ["reduce killer takes damage by 1 while fg at killer-location",
                     "limit killer takes damage to at most (killer health minus 1) while flag shield",
                     "increase fg loses time by 1", "prevent victim dies while flag warded"],
}
RULE_SAMPLES = {
    n.DiceModifier: ["dice +1", "dice -1"],
    n.AllModes: ["all modes"],
    n.FollowerLimit: ["followers at most 1 across bridge"],
    n.EnemiesCannotCross: ["enemies cannot cross bridge"],
    n.DamageTaken: ["damage taken -1", "damage taken +2"],
    n.NoHealthCap: ["no health cap"],
    n.StatusStopsMoves: ["enemies with status dazed do not move"],
    n.OnlyActiveActs: ["only the active killer acts"],
    n.ExtraMoves: ["killer moves 1 more", "minions move 2 more", "enemies move 1 more"],
    n.ExtraAttacks: ["killer attacks 1 more", "minions attack 1 more", "enemies attack 3 more"],
    n.KillersAbsorb: ["killers absorb cub"],
    n.KillsMayHitKillers: ["killing cub may damage killers"],
}
# item and card zones (issue #16 item 6)
EFFECT_SAMPLES.update({
    n.TakeItem: ["take item raft from table", "take item raft from aside"],
    n.PutItemOnTable: ["put item raft on table"],
    n.SetAsideItem: ["set aside item raft"],
    n.DiscardChosenItem: ["discard an item"],
    n.DiscardRandomItem: ["discard a random item"],
    n.ShuffleCardInto: ["shuffle card numb into side-effects"],
})
CONDITION_SAMPLES.update({n.ItemIn: ["item raft on table", "item raft aside", "item raft on piles"]})
AMOUNT_SAMPLES.update({n.CardNumber: ["card number"]})
AMOUNT_SAMPLES[n.Arith].append("card number plus 1")
# counters and tracks, holding areas, delayed effects, a board that changes (issue #16)
EFFECT_SAMPLES.update({
    n.AdvanceTrack: ["advance track chopper 1", "advance track stage (count dead)"],
    n.RetreatTrack: ["retreat track chopper 2"],
    n.SetTrack: ["set track stage to 2", "set track stage to (track chopper plus 1)"],
    n.LoadVictims: ["load 3 victims at here onto cabin", "load (count victims at here) victims at old-mill onto cabin"],
    n.LoadVictimsUpTo: ["load up to 3 victims at here onto cabin"],
    n.RescueHeld: ["rescue victims from cabin", "rescue 1 victims from cabin"],
    n.UnloadVictims: ["unload 2 victims from cabin at north-gate"],
    n.ClosePath: ["close path willow-ford millpond", "close path here old-mill for fg",
                  "close path here old-mill for victims", "close path here (adjacent to here chosen) for enemies"],
    n.MoveVictims: ["move 2 victims from here to old-mill", "move 1 victims from old-mill to here as followers"],
    n.DelayedTrigger: ["at start of next action { rescue victims from cabin }",
                       "at end of next killer {\n  if flag a { heal 1 }\n}"],
})
EFFECT_SAMPLES[n.OpenPath] = [*EFFECT_SAMPLES[n.OpenPath], "open path here old-mill for enemies",
                              "open path here old-mill for fg", "open path here old-mill for victims"]
CONDITION_SAMPLES[n.InPhase] = ["phase action", "phase upkeep"]
CONDITION_SAMPLES[n.Compare] = [*CONDITION_SAMPLES[n.Compare], "track chopper at least 2",
                                "count victims on cabin at most 0", "number beam of here more than fear"]
AMOUNT_SAMPLES.update({n.TrackValue: ["track chopper"], n.HeldVictims: ["count victims on cabin"],
                       n.LocationNumber: ["number beam of here", "number cost of (any with victims nearest to fg)"]})
EVENT_SAMPLES[n.TrackReaches] = ["track chopper reaches 3", "track stage reaches (count dead plus 1)"]
RULE_SAMPLES[n.VictimsHidden] = ["victims at old-mill cannot be targeted",
                                 "victims at (any where it has tag river) cannot be targeted"]
RULE_SAMPLES[n.VictimsCannotEscape] = ["victims at north-gate cannot escape",
                                       "victims at (exit where it is not killer-start) cannot escape"]

# victim kinds, statuses on every piece, tokens everywhere (issue #16 items 3-5)
EFFECT_SAMPLES.update({
    n.TurnRandomVictims: ["turn 3 random victims into exposed", "turn (count dead) random victims into cub"],
    n.ReplaceVictim: ["replace exposed at here with a killer", "replace exposed at (any with most exposed) with killer red"],
    n.RevealVictims: ["reveal victims at here"],
    n.ForEachPiece: ["for each victim at tag outdoor where it has status cold { add status cold to it }",
                     "for each piece at tag outdoor {\n  if it has status cold { damage it 1 } else { add status cold to it }\n}",
                     "for each enemy at here { kill it }", "for each minion { clear status cold from it }",
                     "for each killer where it is exit { damage it 1 }", "for each victim { lose 1 time }"],
    n.AddStatusTo: ["add status cold to fg", "add status cold to (victims at here)",
                    "add status cold to (pieces at tag outdoor where not it has status warm)"],
    n.ClearStatusFrom: ["clear status cold from fg", "clear status cold from (pieces at tag indoor)"],
    n.DamagePieces: ["damage fg 1", "damage (minions at here) (count dead)"],
    n.KillPieces: ["kill (victims at here where it has status cold)", "kill (killers at tag river)"],
    n.GainTokens: ["gain 1 token pass on item pass-card", "gain 2 token pill red at here face down",
                   "gain 1 token pass on card repair face up", "gain 1 token pass on collection",
                   "gain (count dead) token scanned at (any nearest to fg)"],
    n.RemoveTokens: ["remove 1 token pass from card repair", "remove 2 token pill red from here"],
    n.MoveTokens: ["move 1 token pass from items to card repair", "move 1 token pass from here to collection"],
    n.SpendTo: ["spend 1 token pass from items onto here", "spend 2 token pass from collection to supply",
                "spend 1 token pass from item pass-card onto card repair { set flag fixed }",
                "spend 1 token pill red from collection to discard"],
})
CONDITION_SAMPLES.update({
    n.KindAt: ["exposed at here", "cub at (any with most cub)"],
    n.HasStatus: ["fg has status cold", "killer has status dazed", "killer red has status cold"],
    n.TokenOn: ["token pass on item pass-card", "token pass on card repair", "token pass in supply",
                "token pass on items", "token pass on collection"],
})
AMOUNT_SAMPLES.update({n.TokenCount: ["count tokens pass on card repair", "count tokens pass in discard",
                                      "count tokens pass on items"]})
AMOUNT_SAMPLES[n.Count].append("count exposed at here")
# a place handed to a drawn card, drawn identities, catching up (issue #33 items 7-8)
EFFECT_SAMPLES[n.DrawCard] = [*EFFECT_SAMPLES[n.DrawCard], "draw card results at here",
                              "draw card drifts at (any with victims random)"]
EFFECT_SAMPLES.update({
    n.DrawnKillerAppears: ["a random killer appears at killer-start",
                           "a killer drawn from shapes appears at (any with most exposed)"],
    n.ReplaceVictimDrawn: ["replace exposed at here with a random killer",
                           "replace exposed at (any with most exposed) with a killer drawn from shapes"],
    n.SpawnDrawn: ["spawn 2 minions of a random kind at killer-start",
                   "spawn (bloodlust spawn) minions of a kind drawn from broods at (any with victims random)"],
    n.CatchUp: ["killer catches up with bloodlust", "killer red catches up with bloodlust",
                "killer catches up with track hunger", "killer red catches up with track hunger"],
})
PIECE_SAMPLES[n.PieceRef].append("an exposed")
# pieces that travel with her (issue #33 item 2)
EFFECT_SAMPLES[n.MoveConveyance] = ["move cart to here", "move cart to (any with victims nearest to fg)"]
CONDITION_SAMPLES[n.KindAt].append("cart at (exit nearest to fg)")
# tokens that belong to one item card, tokens with kinds and faces (issue #33 items 3-4)
EFFECT_SAMPLES[n.RevealTokens] = ["reveal tokens clue at here", "reveal tokens pass on card repair",
                                  "reveal tokens pass on item pass-card", "reveal tokens clue at (any with token clue)"]
CONDITION_SAMPLES[n.TokenAt] += ["token pill red at here", "token clue face down at (any with token clue)",
                                 "token clue face up at here"]
CONDITION_SAMPLES[n.TokenOn] += ["token pill red on card repair", "token pass face down on items"]
AMOUNT_SAMPLES[n.TokenCount] += ["count tokens pill red at here", "count tokens clue face down at here",
                                 "count tokens pill blue on item pass-card", "count tokens pill red on collection"]
EVENT_SAMPLES[n.TokenEvent].append("token clue is revealed")
SAMPLES = {**EFFECT_SAMPLES, **CONDITION_SAMPLES, **AMOUNT_SAMPLES, **PLACE_SAMPLES, **EVENT_SAMPLES, **PIECE_SAMPLES,
           **RULE_SAMPLES, **ABILITY_SAMPLES}
ALL_NODES = (*(c for f in (n.Effect, n.Condition, n.Amount, n.Place, n.Event, n.Piece, n.Rule) for c in n.members(f)),
             n.Trigger, n.Replacement, n.Modification)
BUILD = {**dict.fromkeys(CONDITION_SAMPLES, condition_of), **dict.fromkeys(AMOUNT_SAMPLES, amount_of),
         **dict.fromkeys(PLACE_SAMPLES, place_of), **dict.fromkeys(EVENT_SAMPLES, event_of),
         **dict.fromkeys(PIECE_SAMPLES, piece_of), **dict.fromkeys(RULE_SAMPLES, rule_of),
         **dict.fromkeys(ABILITY_SAMPLES, ability_of)}


def _build_sample(cls: type, text: str):
    build = BUILD.get(cls)
    if build is not None:
        return build(text)
    (node,) = effects_of(text)
    return node


def _sample_params():
    for cls, texts in SAMPLES.items():
        for i, text in enumerate(texts):
            if isinstance(text, type(pytest.param(""))):
                yield pytest.param(cls, *text.values, marks=text.marks, id=f"{cls.__name__}-{i}")
            else:
                yield pytest.param(cls, text, id=f"{cls.__name__}-{i}")


# --- registry ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL_NODES, ids=lambda c: c.__name__)
def test_every_node_class_has_a_renderer_a_dsl_writer_and_a_sample(cls):
    assert renderer_for(cls) is not None, f"dsl/render.py has no _render_{n.snake(cls.__name__)}"
    assert dsl_writer_for(cls) is not None, f"{cls.__name__} has no PHRASES and no _dsl_{n.snake(cls.__name__)}"
    assert cls in SAMPLES, f"tests/test_render.py: add a sample of {cls.__name__} to the SAMPLES tables"


def test_declarations_have_renderers():
    for cls in n.members(n.Decl):
        assert renderer_for(cls) is not None, cls.__name__


def test_link_follower_limits_in_english():
    """S4.3: a link's follower limit, as usual (the woods' raft), none, or a number."""
    span = RS.scenarios["storybook-woods"].links[0].span
    texts = [renderer_for(n.Link)(n.Link(span, "river", None, k), NAMES) for k in (-1, 0, 1)]
    assert texts == ["You may move directly between any two river locations; victims follow as usual.",
                     "You may move directly between any two river locations; no victim may follow.",
                     "You may move directly between any two river locations; at most 1 victim may follow."]


# --- to_dsl round trips -----------------------------------------------------------------------
@pytest.mark.parametrize(("cls", "text"), list(_sample_params()))
def test_to_dsl_round_trip_samples(cls, text):
    node = _build_sample(cls, text)
    assert type(node) is cls
    again = reparse(node)
    assert unspan(again) == unspan(node), to_dsl(node)
    assert to_dsl(again) == to_dsl(node)  # stable
    assert renderer_for(cls)(node, NAMES)  # and it has English


def _content_nodes():
    """Every effect (top level of each list), condition and rule in the bundled content."""
    effects, conds, rules = [], [], []
    for table in (RS.cards, RS.items, RS.final_girls, RS.killers, RS.scenarios, RS.minions, RS.player_boards):
        for x in n.walk(tuple(table.values())):
            if isinstance(x, n.Effect):
                effects.append(x)
            elif isinstance(x, n.Condition):
                conds.append(x)
            elif isinstance(x, n.Rule):
                rules.append(x)
    return effects, conds, rules


def test_to_dsl_round_trips_all_bundled_content():
    effects, conds, rules = _content_nodes()
    assert effects and conds and rules
    for node in [*effects, *conds, *rules]:
        assert unspan(reparse(node)) == unspan(node), to_dsl(node)


@pytest.mark.parametrize("text", ["dice +1 while count victims at here at least 1", "dice +1 while killer at here",
                                  "killer moves 1 more while fear at least 2"])
def test_to_dsl_writes_a_rule_with_its_while_condition(text):
    node = rule_of(text)
    assert to_dsl(node) == text
    assert unspan(reparse(node)) == unspan(node)


def test_to_dsl_phrases():
    assert to_dsl(effects_of("lose 1 time")[0]) == "lose 1 time"
    assert to_dsl(rule_of("dice +1")) == "dice +1"
    assert to_dsl(condition_of("fear at most 3")) == "fear at most 3"
    assert to_dsl(effects_of("minions hunt fg moves 1 attacks 2")[0]) == "minions hunt fg moves 1 attacks 2"
    assert to_dsl(effects_of("if fear at least 5 { lower fear 1 } else { gain 1 time }")[0]) \
        == "if fear at least 5 { lower fear 1 } else { gain 1 time }"


# --- the English ------------------------------------------------------------------------------
@pytest.mark.parametrize(("dsl", "english"), [
    ("lose 1 time; move up to 2", "Lose 1 time. Move up to 2."),
    ("killer hunts fg moves 1 attacks 1", "The killer hunts the Final Girl: 1 move, 1 attack."),
    ("if fear at least 5 { lower fear 1 } else { gain 1 time }",
     "If your fear is at least 5: lower fear by 1; otherwise gain 1 time."),
    ("mode slaughter { raise fear 1; killer hunts victims moves 2 attacks 1 }",
     "In slaughter mode: raise fear by 1, then the killer hunts victims: 2 moves, 1 attack."),
    ("if not fear at least 5 { heal 1 }", "If your fear is below 5: heal 1."),
    ("kill 1 victims at killer-location; kill 2 victims at here",
     "Kill 1 victim of your choice at the killer's location. Kill 2 victims of your choice at your location (as many "
     "as there are)."),
    ("lose (count victims at here minus 1) time",
     "Lose X time, where X is the number of victims at your location minus 1 (at least 0)."),
    ("repeat 2 { raise fear 1 }", "Do this twice: raise fear by 1."),
    ('choose {\n "Rest" { heal 1 }\n "Hurry" { gain 2 time }\n}',
     'Choose one: "Rest" (heal 1) or "Hurry" (gain 2 time).'),
    ("roll {\n on 1 2 3 { lose 1 time }\n on 4 6 { gain 1 time }\n}",
     "Roll a die; on 1–3: lose 1 time; on 4 or 6: gain 1 time."),
    # counts read as English: never "at most 0", a count of one is singular
    ("if victims left at most 0 { raise fear 1 }", "If no victims are left on the board: raise fear by 1."),
    ("if not victims left at most 0 { raise fear 1 }",
     "If at least 1 victim is left on the board: raise fear by 1."),
    ("if victims left at most 1 { raise fear 1 }", "If at most 1 victim is left on the board: raise fear by 1."),
    ("if not victims left at least 1 { raise fear 1 }", "If no victims are left on the board: raise fear by 1."),
    ("if victims left at least 3 { raise fear 1 }", "If at least 3 victims are left on the board: raise fear by 1."),
    ("if time at most 0 { raise fear 1 }", "If your time is 0 or less: raise fear by 1."),
    ("if time at most 2 { raise fear 1 }", "If your time is at most 2: raise fear by 1."),
])
def test_english(dsl, english):
    assert render_effects(effects_of(dsl)) == english


def test_english_uses_names():
    sc = RS.scenarios["storybook-woods"]
    text = render(sc, NAMES)
    assert "Heron Reeds (panic 5) -- (panic 5) The Old Millpond [bridge path]" in text
    assert "any two river locations; victims follow as usual" in text
    wolf = render(RS.killers["big-bad-wolf"], NAMES)
    assert "Level  Move  Damage  On reaching it" in wolf  # the bloodlust track as a table
    assert render_effects([], NAMES) == "Nothing happens."


# --- card text says who picks and how many (issue #34) ------------------------------------------
# Every effect and control form, sorted: those that pick (the player chooses a piece, an option,
# tokens or where; or chance does), with the words their English must hold to say who picks, and
# the forms that pick nothing. A new form fails here until it is sorted into one of the two.
YOURS = "of your choice"
ALWAYS = lambda node: True  # noqa: E731
PICKS = {
    n.AddStatus: (lambda node: node.who == "one", "one enemy of your choice"),
    n.DealDamage: (ALWAYS, "one target of your choice"),
    n.KillVictims: (ALWAYS, YOURS),
    n.TurnVictims: (ALWAYS, YOURS),
    n.TurnMinions: (lambda node: node.minion in NAMES.victims, YOURS),  # a victim kind: the player picks
    n.MoveVictims: (ALWAYS, YOURS),
    n.LoadVictims: (ALWAYS, YOURS),
    n.LoadVictimsUpTo: (ALWAYS, YOURS),
    n.ReplaceVictim: (ALWAYS, YOURS),
    n.ReplaceVictimDrawn: (ALWAYS, YOURS),
    n.Choose: (ALWAYS, "choose one"),
    n.SpendTokens: (ALWAYS, YOURS),
    n.SearchLook: (ALWAYS, "keep"),
    n.DiscardChosenItem: (ALWAYS, YOURS),
    n.CollectToken: (ALWAYS, YOURS),
    n.RemoveTokens: (lambda node: not node.kind, YOURS),
    n.MoveTokens: (lambda node: not node.kind, YOURS),
    n.SpendTo: (lambda node: not node.kind, YOURS),
    n.MoveUpTo: (ALWAYS, "move up to"),  # she moves: where is hers
    # chance picks
    n.DiscardRandomItem: (ALWAYS, "at random"),
    n.TurnRandomVictims: (ALWAYS, "random"),
    n.PlaceToken: (ALWAYS, "a random"),
    n.Roll: (ALWAYS, "roll a die"),
    n.DrawnKillerAppears: (lambda node: not node.deck, "picked at random"),
    n.SpawnDrawn: (lambda node: not node.deck, "picked at random"),
}
NO_PICK = {  # each does one thing to what it names (every piece of a set, the top card of a deck, …)
    n.AddStatusTo, n.AdvanceTrack, n.AllKillers, n.ClearFlag, n.ClearStatus, n.ClearStatusFrom, n.ClosePath,
    n.DamageKiller, n.DamagePieces, n.DefeatKiller, n.DelayedTrigger, n.DiscardItem, n.DrawCard, n.DrawEvent,
    n.Each, n.EndActionPhase, n.EndGame, n.EndThisPhase, n.ForEach, n.ForEachPiece, n.FormKillers, n.GainCard, n.GainItem,
    n.GainTime, n.GainTokens, n.Heal, n.HealKiller, n.Hunt, n.If, n.KillMinions, n.KillPieces, n.KillerAppears,
    n.KillerVanishes, n.LoseHealth, n.LoseTime, n.LowerBloodlust, n.LowerFear, n.MakeActive, n.ModeBlock,
    n.MoveConveyance, n.MoveKillerTo, n.OpenPath, n.PanicAt, n.PlaceVictims, n.PreventDamage, n.PutItemOnTable, n.RaiseBloodlust,
    n.RaiseFear, n.RemoveCard, n.Repeat, n.RescueHeld, n.RetreatTrack, n.RevealDarkPower, n.RevealFinale, n.RevealVictims,
    n.SearchTake, n.SetAsideItem, n.SetFlag, n.SetKillerHealth, n.SetKillerMaxHealth, n.SetMode, n.SetModeNow,
    n.SetTrack, n.ShuffleCardInto, n.SpawnMinions, n.SwitchActive, n.TakeItem, n.UnloadVictims,
    n.RevealTokens,  # every face-down token of the type there (issue #33 item 4)
    n.CatchUp,  # (issue #33 item 8; a drawn identity picks by chance: PICKS)
}
HOW_MANY = re.compile(r"\b(\d+|X|one|a|an|every|up to|twice)\b")


def test_every_effect_form_is_sorted_into_picking_or_not():
    forms = set(n.members(n.Effect))
    assert not set(PICKS) & NO_PICK
    assert forms - set(PICKS) - NO_PICK == set(), "sort each new form into PICKS or NO_PICK (tests/test_render.py)"


def _picks(node) -> str:
    """The words a node's English must hold, if it picks; "" if it does not."""
    got = PICKS.get(type(node))
    return got[1] if got is not None and got[0](node) else ""


@pytest.mark.parametrize(("cls", "text"), [p for p in _sample_params() if p.values[0] in PICKS])
def test_a_form_that_picks_says_who_picks_and_how_many(cls, text):
    """Issue #34: a form that picks says who picks (you, or chance) and how many."""
    node = _build_sample(cls, text)
    words = _picks(node)
    english = renderer_for(cls)(node, NAMES)
    if words:
        assert words in english, english
        assert HOW_MANY.search(english), english


def test_every_bundled_card_that_picks_says_who_picks():
    """Issue #34: 'add status dazed to an enemy at killer-location' read "every enemy … gains the
    status dazed" while play asked which one and dazed only it: every picking line of the bundled
    content says who picks, as play does."""
    effects, _conds, _rules = _content_nodes()
    seen = 0
    for node in effects:
        words = _picks(node)
        if words:
            seen += 1
            assert words in renderer_for(type(node))(node, NAMES), to_dsl(node)
    assert seen > 10
    asylum = render(RS.scenarios["wolfe-asylum"], NAMES)
    assert "Every enemy at the killer's location gains the status dazed" not in asylum
    assert "One enemy of your choice at the killer's location gains the status dazed" in asylum


def test_a_place_picked_says_who_picks():
    """Issue #34: a place picked by the player or at random says so."""
    for text, words in [("search chosen", "of your choice"), ("river where it is not killer-start random", "at random")]:
        assert words in renderer_for(n.Selector)(place_of(text), NAMES)


# --- lastbreath render --------------------------------------------------------------------------
TOP = [(kind, eid) for kind, eid, _decl in render_index(RS, top_level=True)]


@pytest.mark.parametrize(("kind", "eid"), TOP, ids=[f"{k}-{i}" for k, i in TOP])
def test_render_snapshot(snapshot, capsys, kind, eid):
    assert main(["render", eid]) == 0
    out = capsys.readouterr().out
    assert out == snapshot


def test_render_all_and_json(capsys):
    assert main(["render", "--all"]) == 0
    text = capsys.readouterr().out
    assert "The Big Bad Wolf" in text and "Storybook Woods" in text and "Walk" in text
    assert main(["render", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {(d["kind"], d["id"]) for d in data} == set(TOP)
    assert all(set(d) == {"kind", "id", "name", "text"} and d["text"] for d in data)


def test_render_nested_ids(capsys):
    assert main(["render", "gnawed-bones", "rolling-mist", "moonlit-path", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["kind"], d["id"]) for d in data] == [("terror", "gnawed-bones"), ("event", "rolling-mist"),
                                                   ("setup", "moonlit-path")]
    assert data[0]["text"].startswith("Gnawed Bones (terror)")
    assert "If the bloodlust level is at least 4: raise fear by 1; otherwise raise bloodlust by 1." in data[0]["text"]


def test_render_unknown_id(capsys):
    assert main(["render", "gnawed-bone"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'gnawed-bones'" in err and "Traceback" not in err


def test_render_needs_an_id(capsys):
    assert main(["render"]) == 2
    assert "--all" in capsys.readouterr().err
