"""Counters and tracks, holding areas and delayed effects (issue #16, item 7; docs/rules.md K1.2, S2.3–S2.5).

The content is the test pack tests/packs/tracks: the killer ``tide-brood`` grows through the stages
of its ``growth`` track as bloodlust rises (K1.2); the scenario ``stormy-harbour`` has a rescue
flight: victims board its ``cabin`` at the pad, the ``flight`` track carries them out and at its
last space they are rescued, at the start of the next Action phase when it arrives outside one
(S2.3–S2.5). The pack plays full games with no error under ``simulate`` and ``fuzz`` (last tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from conftest import L, fx, make_work, need, run_effects as run, settle, texts
from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.dsl.diagnostics import RulesError, SaveError
from lastbreath.dsl.render import Names, render
from lastbreath.interpreter import api, engine, serialize
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.engine.tracks import MAX_DELAYED

PACK = Path(__file__).resolve().parent / "packs" / "tracks"


@pytest.fixture(scope="module")
def trs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def harbour(trs):
    """The Tide Brood in the Stormy Harbour, seed 1, settled in the Action phase: no victims, the
    Final Girl at the pad, the killer at the slipway, fear 2, time 6, no event in play."""
    state, _ = api.new_game(trs, killer="tide-brood", scenario="stormy-harbour", final_girl="nell-arden", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, fear=2, time=6, events_active=(),
                  phase="action", sub=1, fg_loc=L(state, "pad"), flags=frozenset(), delayed=(), barred=(),
                  killers=(attrs.evolve(state.killers[0], loc=L(state, "slipway")),))








def with_victims(state, **where):
    v = [0] * state.game.board.n
    for lid, k in where.items():
        v[L(state, lid.replace("_", "-"))] = k
    return tuple(v)


def check(tmp_path, text: str):
    folder = tmp_path / "pack"
    folder.mkdir(exist_ok=True)
    (folder / "x.fg").write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), folder])


SCENARIO = """\
scenario t-track-check {{
  name "Check"
  location a {{ name "A"; exit }}
  location b {{ name "B"; search }}
  path a (1) -- (1) b
  setup s {{ killer at b; fg at a; victims at b 1 }}
{body}
}}
"""


# === tracks (K1.2, S2.4) ========================================================================
def test_tracks_start_on_their_start_space_and_holding_areas_empty(harbour):
    """K1.1, S2.1: the killer's tracks first, then the scenario's, each on its start space."""
    assert harbour.tracks == (("growth", 0), ("flight", 0))
    assert harbour.holding == (("cabin", 0),)


def test_advancing_resolves_each_step_reached_or_passed_lowest_first(harbour):
    """K1.2: a killer evolves when bloodlust reaches each stage's value; a jump of two stages
    resolves both (the grown stage raises fear, the elder stage heals it and reveals its dark power)."""
    st = settle(harbour, killers=(attrs.evolve(harbour.killers[0], health=2),), dark_power="shell")
    w = run(st, "advance track growth 2")
    assert dict(w.tracks)["growth"] == 2
    assert w.fear == st.fear + 1 and w.killers[0].health == 5 and w.dark_revealed
    said = texts(w)
    assert said.index("the Growth track moves up to 2 (elder)") < next(
        i for i, t in enumerate(said) if "fear" in t)


def test_a_track_stays_within_its_spaces_and_moving_down_resolves_nothing(harbour):
    """S2.4: the marker moves between the spaces of its card, never beyond them."""
    w = run(harbour, "advance track flight 10")
    assert dict(w.tracks)["flight"] == 3
    time = w.time
    w = run(w.freeze(), "retreat track flight 10")
    assert dict(w.tracks)["flight"] == 0 and w.time == time
    assert texts(w) == ["the Rescue Flight track moves back to 0 (on the pad)"]
    w = run(w.freeze(), "retreat track flight 1")
    assert texts(w) == ["the Rescue Flight track stays on 0 (on the pad)"]


def test_set_track_goes_either_way_and_steps_resolve_only_going_up(harbour):
    """K1.2"""
    w = run(harbour, "set track growth to 1")
    assert w.fear == harbour.fear + 1
    w = run(w.freeze(), "set track growth to 0; set track growth to 1")
    assert w.fear == harbour.fear + 2  # reached again from below: the step resolves again


def test_when_track_reaches_fires_on_each_crossing_from_below(harbour):
    """S2.4: 'when track flight reaches 2 { gain 1 time }' answers a move onto or past space 2."""
    w = run(harbour, "advance track flight 1")
    assert w.time == harbour.time
    w = run(w.freeze(), "advance track flight 2")  # 1 -> 3 passes 2
    assert w.time == harbour.time + 1
    w = run(w.freeze(), "retreat track flight 1; advance track flight 1")  # 3 -> 2 -> 3: not from below 2
    assert w.time == harbour.time + 1


def test_a_track_reads_as_an_amount_in_conditions_and_rules(harbour):
    """K1.2: 'rule killer moves 1 more while track growth at least 2' (the elder stage)."""
    w = make_work(harbour)
    assert engine.modified(w, "extra-moves", 1, "killer") == 1
    w = make_work(settle(harbour, tracks=(("growth", 2), ("flight", 0))))
    assert engine.modified(w, "extra-moves", 1, "killer") == 2
    w = run(settle(harbour, tracks=(("growth", 1), ("flight", 3))), "gain (track flight plus track growth) time")
    assert w.time == harbour.time + 4


def test_bloodlust_rising_moves_the_stage_track(harbour):
    """K1.2: its content sets the stage as bloodlust reaches 3 and 5."""
    w = make_work(settle(harbour, bloodlust=1))
    engine.raise_bloodlust(w, 1)
    assert dict(w.tracks)["growth"] == 1
    engine.raise_bloodlust(w, 2)
    assert dict(w.tracks)["growth"] == 2


# === holding areas (S2.3, S2.5) ==================================================================
def test_loading_victims_takes_them_off_the_board_within_the_capacity(harbour):
    """S2.3: up to three victims at the pad board the flight's cabin; the player picks how many."""
    st = settle(harbour, victims=with_victims(harbour, pad=5))
    w = make_work(st)
    choice = need(w, engine.run, fx("load up to 3 victims at here onto cabin"), Ctx())
    assert choice.keys() == ["load:3", "load:2", "load:1", "load:0"]
    w = run(st, "load up to 3 victims at here onto cabin", ["load:2"])
    assert w.victims[L(st, "pad")] == 3 and w.holding == (("cabin", 2),)
    w = run(w.freeze(), "load 3 victims at here onto cabin")  # one seat left
    assert w.victims[L(st, "pad")] == 2 and w.holding == (("cabin", 3),)
    w = run(w.freeze(), "load 3 victims at here onto cabin; load up to 3 victims at here onto cabin")  # full
    assert w.victims[L(st, "pad")] == 2 and w.holding == (("cabin", 3),)


def test_held_victims_are_counted_apart_from_the_board(harbour):
    """S2.3: 'count victims on cabin' reads the held victims; 'count victims' the board's."""
    st = settle(harbour, victims=with_victims(harbour, pad=1), holding=(("cabin", 2),))
    w = run(st, "gain (count victims on cabin) time; raise fear (count victims)")
    assert w.time == st.time + 2 and w.fear == st.fear + 1


def test_held_victims_cannot_be_targeted_attacked_or_killed(harbour):
    """S2.3: victims on the cabin cannot be attacked or killed: with every victim held, an action
    against victims aims at the Final Girl (C9.1's default), and no kill reaches them."""
    st = settle(harbour, victims=(0,) * harbour.game.board.n, holding=(("cabin", 3),), fg_loc=L(harbour, "hall"))
    w = run(st, "killer hunts victims moves 2 attacks 1; kill 3 victims at pad")
    assert w.holding == (("cabin", 3),) and w.dead == 0
    assert any("aims at the Final Girl" in t for t in texts(w))


def test_rescuing_from_a_holding_area_fills_slots_with_their_rewards(harbour):
    """C5.4–C5.5, S2.5: each held victim is rescued onto a slot the player picks, with its reward."""
    st = settle(harbour, holding=(("cabin", 2),))
    slot = st.game.fg.slots
    w = run(st, "rescue victims from cabin", ["slot:1", "slot:2"])
    assert w.rescued == 2 and w.holding == (("cabin", 0),) and w.slots[:2] == (True, True)
    assert [t for t in texts(w) if t.startswith("slot")] == ["slot 1 reward", "slot 2 reward"]
    assert slot  # the Final Girl has slots to fill
    w = run(st, "rescue 1 victims from cabin", ["slot:3"])
    assert w.rescued == 1 and w.holding == (("cabin", 1),)


def test_unloading_puts_held_victims_back_on_the_board(harbour):
    """S2.3"""
    st = settle(harbour, holding=(("cabin", 2),))
    w = run(st, "unload 5 victims from cabin at hall")
    assert w.holding == (("cabin", 0),) and w.victims[L(st, "hall")] == 2


def test_reaching_the_last_space_in_the_action_phase_rescues_at_once(harbour):
    """S2.5: at the mainland, in the Action phase, its survivors are rescued there and then."""
    st = settle(harbour, holding=(("cabin", 1),), tracks=(("growth", 0), ("flight", 2)))
    w = run(st, "advance track flight 1", ["slot:1"])
    assert w.rescued == 1 and w.holding == (("cabin", 0),) and w.delayed == ()


def test_reaching_the_last_space_outside_the_action_phase_rescues_at_the_next_one(harbour):
    """S2.5: arriving outside the Action phase, the rewards come at the start of the next Action
    phase: the block is kept in the state, resolves once then, and is gone."""
    st = settle(harbour, holding=(("cabin", 2),), tracks=(("growth", 0), ("flight", 2)), phase="killer", sub=2)
    w = run(st, "advance track flight 1")
    assert w.rescued == 0 and w.holding == (("cabin", 2),) and len(w.delayed) == 1
    kept = w.freeze()
    w = make_work(settle(kept, phase="upkeep"))
    engine.fire(w, "start:upkeep")
    assert w.rescued == 0 and len(w.delayed) == 1  # not this phase
    w = make_work(settle(kept, phase="action"), ["slot:1", "slot:2"])
    engine.fire(w, "start:action")
    assert w.rescued == 2 and w.holding == (("cabin", 0),) and w.delayed == ()
    engine.fire(w, "start:action")
    assert w.rescued == 2  # once


def test_a_whole_round_carries_the_kept_rescue_to_the_next_action_phase(harbour):
    """S2.5 through the phases: kept in the Killer phase, resolved as round 2's Action phase starts."""
    st = settle(harbour, holding=(("cabin", 1),), tracks=(("growth", 0), ("flight", 2)), phase="upkeep", sub=1,
                terror=("surge",) * 3)
    w = make_work(st)
    engine.run(w, fx("advance track flight 1"), Ctx())
    assert w.delayed and w.rescued == 0
    state = w.freeze()
    for _ in range(10):
        if state.rescued:
            break
        key = "slot:1" if state.choice is not None and state.choice.kind == "slot" else (
            state.choice.options[0].key if state.choice is not None else None)
        if key is None:
            state, _ = engine.advance(state, (), 0)
            continue
        state, _ = engine.apply(state, key)
    assert state.rescued == 1 and state.phase == "action" and state.delayed == ()


# === delayed effects (S2.5) =======================================================================
def test_a_kept_block_resolves_once_with_the_it_and_that_it_was_kept_with(harbour):
    """S2.5: 'at end of next killer { lower fear 1 }' (the brood's Murk)."""
    murk = next(t for t in harbour.game.killer.terror if t.id == "murk")
    w = make_work(settle(harbour, phase="killer", sub=2))
    engine.run(w, murk.effects, Ctx())
    assert w.fear == harbour.fear + 1 and len(w.delayed) == 1
    index, _it, _that = w.delayed[0]
    assert harbour.game.delayed[index].phase == "killer" and harbour.game.delayed[index].edge == "end"
    engine.fire(w, "start:killer")
    assert len(w.delayed) == 1
    engine.fire(w, "end:killer")
    assert w.fear == harbour.fear and w.delayed == ()
    engine.fire(w, "end:killer")
    assert w.fear == harbour.fear


def test_kept_blocks_are_bounded(harbour):
    """Limits on everything that grows: more than MAX_DELAYED kept blocks stop the game with E312."""
    relief = next(e for e in harbour.game.scenario.events if e.id == "relief")
    w = make_work(settle(harbour, delayed=((harbour.game.delayed_index[relief.effects[0].span], -1, 0),) * MAX_DELAYED))
    with pytest.raises(RulesError) as err:
        engine.run(w, relief.effects, Ctx())
    assert err.value.code == "E312"


# === saves ========================================================================================
def test_tracks_holding_kept_blocks_and_closed_paths_survive_a_save(harbour):
    """The new fields are saved, loaded and checked; a game without them saves as before."""
    murk = next(t for t in harbour.game.killer.terror if t.id == "murk")
    st = settle(harbour, tracks=(("growth", 1), ("flight", 2)), holding=(("cabin", 3),),
                delayed=((harbour.game.delayed_index[murk.effects[1].span], 2, 0),), barred=((1, "enemies"),))
    state, _ = engine.advance(st, (), 0)
    data = json.loads(json.dumps(serialize.to_json(state)))
    assert data["state"]["tracks"] == [["growth", 1], ["flight", 2]] and data["state"]["barred"] == [[1, "enemies"]]
    again = serialize.from_json(state.game.ruleset, data)
    assert (again.tracks, again.holding, again.delayed, again.barred) == (st.tracks, st.holding, st.delayed, st.barred)
    plain, _ = api.new_game(load_ruleset(), seed=1)
    assert not {"tracks", "holding", "delayed", "barred"} & set(serialize.to_json(plain)["state"])


@pytest.mark.parametrize("field, value, says", [
    ("tracks", [["growth", 5], ["flight", 0]], "outside 0..2"),
    ("tracks", [["flight", 0], ["growth", 0]], "which is not 'growth'"),
    ("tracks", [["growth", 0]], "has 1 elements, not 2"),
    ("holding", [["cabin", 4]], "outside 0..3"),
    ("delayed", [[99, -1, 0]], "outside 0.."),
    ("barred", [[0, "ghosts"]], "fg, victims or enemies"),
    ("barred", [[1, "fg"], [0, "fg"]], "not sorted"),
])
def test_a_save_with_impossible_tracks_holding_or_paths_is_refused(harbour, field, value, says):
    state, _ = engine.advance(harbour, (), 0)
    data = json.loads(json.dumps(serialize.to_json(state)))
    data["state"][field] = value
    data["state"]["checkpoint"][field] = value
    with pytest.raises(SaveError, match=field) as err:
        serialize.from_json(state.game.ruleset, data)
    assert says in str(err.value)


# === the checker and the language ==================================================================
@pytest.mark.parametrize("body, code, says", [
    ('  track t { name "T"; spaces 0 to 3; at 4 { heal 1 } }', "E209", "'at 4' is beyond the track's spaces 0 to 3"),
    ('  track t { name "T"; spaces 0 to 3; at 0 { heal 1 } }', "E209", "'at 0' is beyond"),
    ('  track t { name "T"; spaces 0 to 3; start 5 }', "E209", "starts on space 5"),
    ('  track t { name "T"; spaces 0 to 3; space 9 "Far" }', "E209", "space 9 is beyond"),
    ('  track t { name "T"; spaces 3 to 1 }', "E209", "not 0 ≤ LOW ≤ HIGH"),
    ('  track t { name "T"; spaces 0 to 101 }', "E209", "above the limit of 100"),
    ('  track t { name "T" }', "E202", "no 'spaces' line"),
    ('  holding h { name "H"; capacity 0 }', "E209", "at least 1"),
    ('  holding h { name "H"; capacity 101 }', "E209", "above the limit of 100"),
    ('  when game starts { advance track nope 1 }', "E204", "unknown track 'nope'"),
    ('  when game starts { rescue victims from nope }', "E204", "unknown holding 'nope'"),
    ('  when track nope reaches 2 { heal 1 }', "E204", "unknown track 'nope'"),
    ('  when game starts { at start of next lunch { heal 1 } }', "E207", "at start of next PHASE"),
    ('  at start of next action { heal 1 }', "E201", "inside an effect block"),
])
def test_the_checker_reports_tracks_and_holding_areas_it_cannot_use(tmp_path, body, code, says):
    rs, diags = check(tmp_path, SCENARIO.format(body=body))
    assert rs is None and [d.code for d in diags] == [code], [d.format() for d in diags]
    assert says in diags[0].message or says in diags[0].hint


def test_a_track_used_outside_its_killer_or_scenario_is_an_error(tmp_path):
    rs, diags = check(tmp_path, 'card t-card { name "T"; cost 1; fail { }; success { advance track growth 1 } }\n')
    assert rs is None and [d.code for d in diags] == ["E204"] and "outside a killer or scenario" in diags[0].message


def test_the_forms_read_back_as_english(trs):
    names = Names.from_ruleset(trs)
    text = render(trs.scenarios["stormy-harbour"], names)
    assert "Rescue Flight [flight]: a track of spaces 0 to 3, the marker starting on 0 (on the pad)" in text
    assert "the flight's cabin [cabin]: holds up to 3 victims off the board" in text
    assert ("On reaching space 3: if it is the Action phase: the victims on the flight's cabin are rescued; "
            "otherwise at the start of the next Action phase: the victims on the flight's cabin are rescued.") in text
    brood = render(trs.killers["tide-brood"], names)
    assert "Whenever the Growth track reaches space 2: Lose 1 time." in brood
    assert "When it hunts, the killer makes 1 more move while the space of the Growth track is at least 2." in brood


def test_the_pack_is_in_canonical_form(capsys):
    assert main(["fmt", "--check", str(PACK)]) == 0, capsys.readouterr().out


# === full games ===================================================================================
def test_the_tracks_pack_plays_full_games_without_errors_under_simulate(capsys):
    """Both bots play the pack's killer and a bundled one in the pack's scenario to the end."""
    for bot in ("random", "greedy"):
        code = main(["simulate", "--content", str(PACK), "--matrix", "--killer", "tide-brood", "--killer",
                     "big-bad-wolf", "--scenario", "stormy-harbour", "--final-girl", "nell-arden", "--games", "6",
                     "--seed", "11", "--bot", bot, "--jobs", "1", "--json", "--no-progress"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0, report
        assert [(p["killer"], p["games"], p["errors"]) for p in report["pairs"]] == [
            ("big-bad-wolf", 6, 0), ("tide-brood", 6, 0)], report


def test_the_tracks_pack_passes_the_fuzzer(capsys):
    """Every invariant after every transition (victims held count as victims), save round trips
    included, over a few deterministic games of both bots."""
    code = main(["fuzz", "--content", str(PACK), "--killer", "tide-brood", "--scenario", "stormy-harbour",
                 "--games", "6", "--seed", "3", "--jobs", "1", "--json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["clean"], report["violations"][:1]
    assert report["games"] == 6


def test_the_play_screen_shows_tracks_held_victims_kept_blocks_and_closed_paths(harbour):
    from lastbreath.interpreter.screen import status_facts

    murk = next(t for t in harbour.game.killer.terror if t.id == "murk")
    st = settle(harbour, tracks=(("growth", 2), ("flight", 1)), holding=(("cabin", 2),),
                delayed=((harbour.game.delayed_index[murk.effects[1].span], -1, 0),),
                barred=((0, "enemies"), (0, "fg"), (0, "victims"), (1, "enemies")))
    facts = status_facts(st, extras_only=True)
    assert ("Track", "Growth: space 2 (elder) of 0–2") in facts and ("Track", "Rescue Flight: space 1 of 0–3") in facts
    assert ("Held", "the flight's cabin: 2 victims of 3 (off the board)") in facts
    assert ("Kept for later", "one at the end of the next Killer phase") in facts
    assert ("Closed paths", "Flight Pad–Harbour Hall (for everyone); Flight Pad–Quay (for enemies)") in facts


MODULE = """\
module t-beacon {
  name "Beacon"
  about "A beacon track and a hut in the woods."
  for scenario storybook-woods {
    track beacon { name "Beacon"; spaces 0 to 2; at 2 { set flag lit } }
    holding hut { name "Hut"; capacity 2 }
    action light { name "Light"; time 1; effect { advance track beacon 1; load 1 victims at here onto hut } }
  }
}
"""


def test_a_module_may_add_tracks_and_holding_areas_to_a_scenario(tmp_path):
    """A module's section adds a track and a holding area its own lines use (checked as the
    module leaves the scenario); a game with the module starts with them."""
    rs, diags = check(tmp_path, MODULE)
    assert diags == [] and rs is not None
    state, _ = api.new_game(rs, scenario="storybook-woods", modules=("t-beacon",), seed=1)
    assert state.tracks == (("beacon", 0),) and state.holding == (("hut", 0),)
    rs, diags = check(tmp_path, MODULE.replace("advance track beacon", "advance track beacom"))
    assert rs is None and [d.code for d in diags] == ["E204"] and "did you mean 'beacon'" in diags[0].hint
