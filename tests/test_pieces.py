"""Victim kinds, statuses on every piece and tokens everywhere (issue #16, items 3-5; docs/rules.md K2.1,
K2.4, K2.6, K2.7, S2.6, S1.1-S1.6, C5.3, C5.4, C9, C10).

The content is the test pack tests/packs/pieces: the killer ``pc-changeling`` hides among the
victims: at setup three of them become ``pc-exposed`` victims, which its bodies never target, which
cannot be rescued and which panic every round; killed, one is tested instead (safe: a victim of no
kind again, who dies all the same; else a body takes its place). The scenario ``pc-station`` has
frost on every piece outdoors (S2.6), passes that are tokens on badges and are spent on the board
or onto repair cards (S1.1-S1.6), and a hidden ``pc-stranger`` kind. The pack plays full games with
no error under ``simulate`` and ``fuzz`` (last tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from conftest import L, make_work, need, run_effects as run, settle, texts
from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.dsl.diagnostics import SaveError
from lastbreath.dsl.render import Names, render
from lastbreath.interpreter import api, engine, serialize
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.engine.victims import rescuable, targetable
from lastbreath.interpreter.state import MarkedVictim, MinionState

PACK = Path(__file__).resolve().parent / "packs" / "pieces"
SETUP = {"killer": "pc-changeling", "scenario": "pc-station", "final_girl": "nell-arden"}


@pytest.fixture(scope="module")
def prs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def station(prs):
    """The Changeling in the Cold Station, seed 1, settled in the Action phase: no victims, no
    tokens on the board, the Final Girl at the Dock, the Red Shape at the Radio Tower (the other
    bodies off the board), fear 2, time 6, no event in play, no statuses."""
    state, _ = api.new_game(prs, seed=1, **SETUP)
    red, black, grey = state.killers
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, marked=(), victim_seq=0, fear=2, time=6,
                  events_active=(), phase="action", sub=1, fg_loc=L(state, "pc-dock"), tokens=(), fg_status=frozenset(),
                  killers=(attrs.evolve(red, loc=L(state, "pc-tower")), black, grey), minions=(), flags=frozenset())








def board(state, marks=(), **where):
    """Fields for ``settle``: victims per location (``pc_yard=2``) and the marked ones among them,
    given as (location id, kind, statuses) triples."""
    v = [0] * state.game.board.n
    for lid, k in where.items():
        v[L(state, lid.replace("_", "-"))] = k
    marked = tuple(MarkedVictim(i, L(state, lid), kind, frozenset(st)) for i, (lid, kind, st) in enumerate(marks, 1))
    return {"victims": tuple(v), "marked": marked, "victim_seq": len(marked)}


def kinds_at(w, lid: str) -> list[str]:
    where = L(w, lid)
    return sorted(m.kind for m in w.marked if m.loc == where)


def check(tmp_path, text: str, *more: Path):
    folder = tmp_path / "pack"
    folder.mkdir(exist_ok=True)
    (folder / "x.fg").write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), *more, folder])


# === victim kinds (K2.1, K2.4, K2.6, K2.7) =========================================================
def test_setup_turns_three_random_victims_into_the_kind_and_leaves_them_victims(prs):
    """K2.1: the exposed victims are placed at random among the victims; they are victims all the
    same (counted where they stand), and a game started again with the same seed places them alike."""
    state, events = api.new_game(prs, seed=1, **SETUP)
    exposed = [m for m in state.marked if m.kind == "pc-exposed"]
    assert len(exposed) == 3 and sum(state.victims) == 7
    assert all(state.victims[m.loc] >= sum(1 for x in state.marked if x.loc == m.loc) for m in exposed)
    assert sum(1 for e in events if e.rule == "K2.1") == 4  # three exposed and one hidden stranger
    again, _ = api.new_game(prs, seed=1, **SETUP)
    assert again.marked == state.marked
    other = {api.new_game(prs, seed=s, **SETUP)[0].marked for s in range(2, 8)}
    assert len(other) > 1  # at random


def test_a_kind_that_cannot_be_rescued_stays_at_the_exit_while_the_others_escape(station):
    """K2.4, C5.4: an exposed victim at an exit is a victim there, but it never escapes."""
    st = settle(station, **board(station, [("pc-dock", "pc-exposed", ())], pc_dock=3))
    w = make_work(st, ("slot:1", "slot:2"))
    assert rescuable(w, L(st, "pc-dock")) == 2
    engine.rescue_here(w)
    assert w.rescued == 2 and w.victims[L(st, "pc-dock")] == 1 and kinds_at(w, "pc-dock") == ["pc-exposed"]


def test_no_rescue_is_offered_where_only_victims_that_cannot_be_rescued_stand(station):
    """K2.4, C5.4: the Action phase offers no escape at an exit holding only such victims."""
    only = settle(station, **board(station, [("pc-dock", "pc-exposed", ())], pc_dock=1))
    assert "rescue" not in need(make_work(only), engine.step_action).keys()
    mixed = settle(station, **board(station, [("pc-dock", "pc-exposed", ())], pc_dock=2))
    assert "rescue" in need(make_work(mixed), engine.step_action).keys()


def test_killers_never_target_a_location_holding_only_victims_shielded_from_them(station):
    """K2.4, C9.2: the Red Shape hunting victims passes over the Yard (one exposed victim) for the
    Lab (a plain one), though the Yard is nearer."""
    st = settle(station, **board(station, [("pc-yard", "pc-exposed", ())], pc_yard=1, pc_lab=1))
    w = make_work(st)
    assert engine.choose_target(w, L(st, "pc-tower"), "victims", ("killer", 0)) == L(st, "pc-lab")
    assert engine.choose_target(w, L(st, "pc-tower"), "victims") == L(st, "pc-yard")  # any other piece: the nearer


def test_a_killer_attack_kills_a_victim_it_may_target_and_never_the_shielded_one(station):
    """K2.4, C9.5-C9.6: where an exposed victim and a plain one stand, the killer's attack kills the
    plain one; with only the exposed one left it does not attack at all."""
    st = settle(station, **board(station, [("pc-tower", "pc-exposed", ())], pc_tower=2))
    w = make_work(st)
    engine.enemy_act(w, ("killer", 0), "victims", 0, 2, 1, 1)
    assert w.dead == 1 and w.victims[L(st, "pc-tower")] == 1 and kinds_at(w, "pc-tower") == ["pc-exposed"]
    assert targetable(w, L(st, "pc-tower"), ("killer", 0)) == 0


def test_minions_may_kill_a_kind_shielded_only_from_killers(station):
    """K2.4: the shield names who: the exposed are shielded from killers, not from crawlers."""
    crawler = MinionState("pc-crawler", L(station, "pc-tower"), 1, frozenset(), 1)
    st = settle(station, minions=(crawler,), minion_seq=1,
                **board(station, [("pc-tower", "pc-exposed", ())], pc_tower=1))
    w = make_work(st)
    assert targetable(w, L(st, "pc-tower"), ("minion", 0)) == 1
    assert targetable(w, L(st, "pc-tower"), ("killer", 0)) == 0


def test_a_kind_that_always_panics_panics_with_no_death_this_round(station):
    """K2.4, C10.1-C10.2: no victim died and no enemy stands with it: the exposed victim panics all
    the same; the plain victim beside it does not."""
    st = settle(station, phase="panic", sub=0, deaths_round=0,
                **board(station, [("pc-lab", "pc-exposed", ())], pc_lab=2))
    w = make_work(st)
    engine.step_panic(w)
    said = texts(w)
    assert "Panic phase: the victims who always panic do so" in said
    assert any(t.startswith("an Exposed victim at Lab rolls") for t in said)
    assert sum(1 for t in said if "rolls" in t) == 1  # the plain one stays put
    assert w.phase != "panic"


def test_a_killed_victim_of_the_kind_is_tested_instead_and_found_safe_dies_as_a_plain_one(station):
    """K2.4, K2.6: killed, an exposed victim draws a test at once (the pack: a die); safe (1-4), it is
    a victim of no kind again, and, the test caused by its death, that victim dies: bloodlust rises."""
    st = settle(station, **board(station, [("pc-lab", "pc-exposed", ())], pc_lab=1))
    from conftest import rig
    w = make_work(rig(st, [2]))
    engine.kill_victim(w, L(st, "pc-lab"), "a test")
    assert w.dead == 1 and w.victims[L(st, "pc-lab")] == 0 and w.marked == ()
    assert w.bloodlust == st.bloodlust + 1
    said = texts(w)
    assert said.index("an Exposed victim at Lab is a victim of no kind again") < next(
        i for i, t in enumerate(said) if "dies at Lab" in t)


def test_a_killed_victim_of_the_kind_tested_assimilated_is_replaced_by_a_body(station):
    """K2.4, K2.7: tested 5-6, the first body off the board takes its place where it stood; it does
    not die (no death, no bloodlust) and the body appearing raises fear (the pack's trigger)."""
    st = settle(station, **board(station, [("pc-lab", "pc-exposed", ())], pc_lab=1))
    from conftest import rig
    w = make_work(rig(st, [6]))
    engine.kill_victim(w, L(st, "pc-lab"), "a test")
    assert w.dead == 0 and w.bloodlust == st.bloodlust and w.victims[L(st, "pc-lab")] == 0
    assert w.killers[1].loc == L(st, "pc-lab") and w.fear == st.fear + 1
    assert "an Exposed victim at Lab leaves the board: Black Shape stands in its place" in texts(w)


def test_replacing_a_victim_of_a_kind_by_a_named_body_is_one_effect(station):
    """K2.7: 'replace KIND at PLACE with killer BODY': the victim leaves (not a death), that body
    appears where it stood; with no such victim there, nothing happens."""
    st = settle(station, **board(station, [("pc-yard", "pc-exposed", ())], pc_yard=2))
    w = run(st, "replace pc-exposed at pc-yard with killer pc-grey")
    assert w.killers[2].loc == L(st, "pc-yard") and w.victims[L(st, "pc-yard")] == 1 and w.marked == ()
    assert w.dead == 0
    w = run(st, "replace pc-exposed at pc-lab with killer pc-grey")
    assert w.killers[2].loc < 0 and w.marked == st.marked


def test_a_body_set_aside_restores_no_more_than_its_own_health(station):
    """K2.9, C17.1: a body whose black token shows more than its health (the Grey Shape, health 2,
    token 3) turns white back at full health, never above it (found by the fuzzer on this pack)."""
    from lastbreath.interpreter.engine.killers import flip_aside

    red, black, grey = station.killers
    st = settle(station, killers=(red, black, attrs.evolve(grey, loc=L(station, "pc-lab"), health=0, aside=True,
                                                           breath=2, breath_value=3)))
    w = make_work(st)
    flip_aside(w)
    assert (w.killers[2].health, w.killers[2].breath, w.killers[2].aside) == (2, 1, False)
    assert "Grey Shape's black token shows 3: it turns white and Grey Shape restores 2 health" in texts(w)


def test_turning_victims_into_a_kind_and_back_keeps_their_statuses(station):
    """K2.1, K2.6: a plain victim with a status turned into a kind keeps the status; turned back it
    is a victim of no kind with its status; with neither, it is plain again."""
    st = settle(station, **board(station, [("pc-lab", "", ("pc-frost",))], pc_lab=2))
    w = run(st, "turn 1 victims at pc-lab into pc-exposed", ("victim:victim/pc-frost",))
    m = next(x for x in w.marked if x.kind)
    assert m.status == {"pc-frost"}
    w = run(w.freeze(), "turn 1 pc-exposed at pc-lab into victims")
    assert [(x.kind, x.status) for x in w.marked] == [("", {"pc-frost"})]
    w = run(st, "turn 1 victims at pc-lab into pc-exposed", ("victim:victim",))
    w = run(w.freeze(), "turn 1 pc-exposed at pc-lab into victims")
    assert [x.status for x in w.marked] == [{"pc-frost"}] and w.victims[L(st, "pc-lab")] == 2


def test_count_kind_and_kind_at_read_victims_of_a_kind(station):
    """K2.3: the win needs every exposed victim tested: 'count KIND', 'count KIND at PLACE' and
    'KIND at PLACE' read them (and a minion kind as before)."""
    st = settle(station, **board(station, [("pc-yard", "pc-exposed", ()), ("pc-yard", "pc-exposed", ()),
                                           ("pc-lab", "pc-exposed", ())], pc_yard=3, pc_lab=1))
    w = run(st, "if count pc-exposed is 3 { set flag a }\nif count pc-exposed at pc-yard is 2 { set flag b }\n"
                "if pc-exposed at pc-lab { set flag c }\nif pc-exposed at pc-dock { set flag d }\n"
                "if count victims at pc-yard is 3 { set flag e }")
    assert w.flags == {"a", "b", "c", "e"}


def test_a_hidden_kind_is_not_said_and_not_told_apart_until_revealed(station):
    """K2.1: a hidden kind is 'a victim' in the log and the choices: among a plain victim and a hidden
    one she is not asked which (they look the same; one is taken at random); revealed, it is named."""
    st = settle(station, **board(station, [("pc-lab", "pc-stranger", ())], pc_lab=2))
    w = run(st, "move 1 victims from pc-lab to pc-mess")  # no choice asked
    assert w.victims[L(st, "pc-mess")] == 1 and "a victim moves from Lab to Mess Hall" in texts(w)
    w = run(st, "reveal victims at pc-lab\nmove 1 victims from pc-lab to pc-mess", ("victim:pc-stranger",))
    assert "a victim at Lab is revealed: a Stranger victim" in texts(w)
    assert kinds_at(w, "pc-mess") == ["pc-stranger"]


def test_she_picks_which_victims_follow_among_those_she_can_tell_apart(station):
    """C5.3: with victims she can tell apart she says how many follow, then which."""
    st = settle(station, fg_loc=L(station, "pc-yard"),
                **board(station, [("pc-yard", "pc-exposed", ())], pc_yard=3))
    w = make_work(st, ("move:pc-dock",))
    choice = need(w, engine.move_fg, 1)
    assert choice.kind == "follow"
    w = make_work(st, ("move:pc-dock", choice.keys()[1]))
    choice = need(w, engine.move_fg, 1)
    assert choice.kind == "follower" and set(choice.keys()) == {"victim:victim", "victim:pc-exposed"}


def test_victims_of_a_kind_that_cannot_be_rescued_never_board_a_holding_area(tmp_path):
    """K2.4, S2.3: victims held off the board are rescued from there, so a kind that cannot be
    rescued stays on the board; she picks which of those she can tell apart board."""
    rs, diags = check(tmp_path, HOLD, PACK)
    assert diags == [], [d.format() for d in diags]
    state, _ = api.new_game(rs, killer="pc-changeling", scenario="pc-hold-test", final_girl="nell-arden", seed=1)
    st = settle(state.checkpoint, phase="action", sub=1, events_active=(),
                **board(state, [("a", "pc-exposed", ()), ("a", "", ("cold",))], a=3, b=0))
    w = run(st, "load 3 victims at a onto boat", ("victim:victim/cold",))
    assert dict(w.holding)["boat"] == 2 and w.victims[L(st, "a")] == 1 and kinds_at(w, "a") == ["pc-exposed"]
    assert [m.kind for m in w.marked] == ["pc-exposed"]
    w = run(st, "move 2 victims from a to b", ("victim:pc-exposed", "victim:victim"))
    assert kinds_at(w, "b") == ["pc-exposed"] and w.victims[L(st, "b")] == 2 and w.victims[L(st, "a")] == 1


HOLD = """\
scenario pc-hold-test {
  name "Hold Test"
  location a { name "A"; exit }
  location b { name "B"; search }
  path a (1 2 3) -- (1 2 3) b
  setup s { killer at b; fg at a; victims at a 2 }
  holding boat { name "Boat"; capacity 3 }
  action board { name "Board"; time 1; effect { load up to 3 victims at here onto boat } }
}
"""


# === statuses on every piece (S2.6) ================================================================
def test_frost_bites_every_piece_outdoors_and_a_victim_with_it_dies(station):
    """S2.6: the station's end-of-Killer-phase block as data: each piece outdoors gets the status, or,
    having it, loses 1 health: the Final Girl as 'lose 1 health', a victim (1 health) dies, a killer
    body as damage; pieces indoors are left alone."""
    block = next(t for t in station.game.scenario.abilities.triggers
                 if getattr(t.event, "phase", "") == "killer").body
    st = settle(station, fg_health=5, **board(station, [("pc-yard", "", ("pc-frost",))], pc_yard=2, pc_lab=1))
    w = make_work(st)
    engine.run(w, block, Ctx())
    assert w.fg_status == {"pc-frost"} and w.fg_health == 5
    assert w.dead == 1 and w.victims[L(st, "pc-yard")] == 1  # the one with frost died; the other has it now
    assert [(m.loc, m.status) for m in w.marked] == [(L(st, "pc-yard"), {"pc-frost"})]
    assert w.killers[0].status == {"pc-frost"}  # the Red Shape at the Radio Tower, outdoors
    assert w.victims[L(st, "pc-lab")] == 1  # indoors: nothing
    w2 = make_work(w.freeze())
    engine.run(w2, block, Ctx())
    assert w2.fg_health == 4 and w2.dead == 2 and w2.killers[0].health == w.killers[0].health - 1


def test_indoor_pieces_lose_the_status_at_upkeep_and_outdoor_ones_keep_it(station):
    """S2.6: in Upkeep those indoors discard their frostbite: 'clear status S from (pieces at tag
    indoor)'; a victim left with nothing on it is a plain victim again."""
    st = settle(station, fg_loc=L(station, "pc-lab"), fg_status=frozenset({"pc-frost"}),
                **board(station, [("pc-lab", "", ("pc-frost",)), ("pc-yard", "", ("pc-frost",))], pc_lab=1, pc_yard=1))
    w = run(st, "clear status pc-frost from (pieces at tag indoor)")
    assert w.fg_status == frozenset() and [m.loc for m in w.marked] == [L(st, "pc-yard")]


def test_it_has_status_and_fg_has_status_read_the_piece_and_her(station):
    """S2.6: 'for each … where it has status S' filters by the piece; 'fg has status S' reads hers."""
    st = settle(station, fg_status=frozenset({"pc-frost"}),
                **board(station, [("pc-yard", "", ("pc-frost",))], pc_yard=3))
    w = run(st, "for each victim where it has status pc-frost { gain 1 time }\n"
                "for each victim where not it has status pc-frost { add status warm to it }\n"
                "if fg has status pc-frost { set flag cold }")
    assert w.time == st.time + 1 and "cold" in w.flags
    assert sorted(sorted(m.status) for m in w.marked) == [["pc-frost"], ["warm"], ["warm"]]


def test_minions_and_killer_bodies_carry_statuses_too(station):
    """S2.6: enemies outdoors get frostbite as well: a minion and a killer body keep a status, read
    by 'killer has status S' and 'killer BODY has status S'; 'kill it' kills a minion (no bloodlust)."""
    crawler = MinionState("pc-crawler", L(station, "pc-yard"), 1, frozenset(), 1)
    st = settle(station, minions=(crawler,), minion_seq=1)
    w = run(st, "for each enemy at tag outdoor { add status pc-frost to it }\n"
                "if killer pc-red has status pc-frost { set flag red }\n"
                "if killer pc-black has status pc-frost { set flag black }\n"
                "for each minion where it has status pc-frost { kill it }")
    assert w.killers[0].status == {"pc-frost"} and w.flags == {"red"}
    assert w.minions == () and w.bloodlust == st.bloodlust


def test_for_each_skips_a_piece_gone_before_its_turn(station):
    """S2.6: a piece killed by an earlier turn of the block is not visited."""
    st = settle(station, **board(station, [], pc_yard=2))
    w = run(st, "for each victim at pc-yard { kill (victims at pc-yard); gain 1 time }")
    assert w.dead == 2 and w.time == st.time + 1


def test_a_game_without_kinds_or_statuses_on_victims_keeps_no_marked_victims(rs):
    """The plain game pays nothing: victims stay counts; no kind shields anyone."""
    state, _ = api.new_game(rs, seed=3)
    # (the bundled organism declares a kind: it is known to every game, as minions are, and unused here)
    assert state.marked == () and not state.game.killer.victim_kinds and not state.game.scenario.victim_kinds
    from lastbreath.interpreter.bots import BOTS
    bot = BOTS["random"](3)
    for _ in range(300):
        if state.result or state.choice is None:
            break
        state, _ = api.apply(state, bot(state, state.choice))
        assert state.marked == () and state.token_on == () and state.fg_status == frozenset()


# === tokens everywhere (S1.1-S1.6) =================================================================
def test_tokens_start_on_the_badges_and_the_board(prs):
    """S1.1: the setup card marks two locations with a pass; each badge, held or on the table, has
    a pass on it."""
    state, _ = api.new_game(prs, seed=1, **SETUP)
    on = sorted(h.partition("#")[0] for h, t, _k, _up in state.token_on if t == "pc-pass")  # (each card's: #N)
    assert on == ["item:pc-badge-a", "item:pc-badge-b", "item:pc-badge-c"]
    assert sorted(loc for t, _k, loc in state.tokens if t == "pc-pass") == sorted(
        [L(state, "pc-tower"), L(state, "pc-mess")])


def test_a_pass_spent_onto_a_repair_card_stays_there(station):
    """S1.3, S1.5: placed on a card, a spent token stays there; the badge is kept, empty."""
    st = settle(station, fg_loc=L(station, "pc-mess"))
    w = run(st, "spend 1 token pc-pass from items onto card pc-heater\n"
                "if count tokens pc-pass on card pc-heater is 1 { set flag placed }")
    assert "placed" in w.flags and ("card:pc-heater", "pc-pass", "pass", True) in w.token_on
    assert "pc-badge-a" in [h.id for h in (*w.held, *w.pack)]
    assert sum(1 for h, *_ in w.token_on if h.startswith("item:pc-badge-a#")) == 0


def test_a_spend_she_cannot_pay_in_full_spends_nothing_and_skips_its_block(station):
    """S1.3: all or nothing: two passes asked, one held: none is spent and the block does not resolve."""
    w = run(station, "spend 2 token pc-pass from item pc-badge-a onto here { set flag paid }")
    assert "paid" not in w.flags and w.token_on == station.token_on
    assert texts(w) == ["not enough pass tokens to spend"]


def test_tokens_spent_on_the_board_open_the_duct_and_stay_there(station):
    """S1.4: a pass placed on the board opens the duct; it lies there for good."""
    st = settle(station, fg_loc=L(station, "pc-lab"))
    w = run(st, "spend 1 token pc-pass from items onto here { open path pc-lab pc-tower; set flag pc-duct }")
    assert "pc-duct" in w.flags and ("pc-pass", "pass", L(st, "pc-lab")) in w.tokens


def test_removing_a_pass_from_a_repair_card_returns_it_to_the_supply_and_ends_its_rule(station):
    """S1.6: removed tokens go back to the supply; a rule 'while count tokens … at least 2' ends."""
    on = (("card:pc-heater", "pc-pass", "pass", True),) * 2
    st = settle(station, token_on=station.token_on + on)
    dice = engine.modified(make_work(st), "dice", 0)
    w = run(st, "remove 1 token pc-pass from card pc-heater")
    assert sum(1 for h, *_ in w.token_on if h == "card:pc-heater") == 1
    assert len(w.supply) == len(st.supply) + 1
    assert engine.modified(w, "dice", 0) == dice - 1


def test_tokens_move_from_the_board_to_an_item_and_to_her_collection(station):
    """S1.2: she takes the pass lying where she stands onto her badge; a flare goes to her collection
    and is spent back to the supply."""
    st = settle(station, fg_loc=L(station, "pc-mess"), tokens=(("pc-pass", "pass", L(station, "pc-mess")),
                                                                ("pc-flare", "red", L(station, "pc-mess"))))
    w = run(st, "move 1 token pc-pass from here to item pc-badge-a\nmove 1 token pc-flare from here to collection\n"
                "if token pc-flare on collection { set flag got }\n"
                "spend 1 token pc-flare from collection to supply { set flag lit }")
    assert w.tokens == () and w.flags == {"got", "lit"} and w.collected == ()
    assert sum(1 for h, *_ in w.token_on if h.startswith("item:pc-badge-a#")) == 2


def test_a_token_gained_face_down_hides_its_kind_and_counts_as_amounts(station):
    """S5.1: a face-down token does not show its kind; 'count tokens T on HOLDER' counts where they lie."""
    w = run(station, "gain 1 token pc-flare at here face down\n"
                     "if count tokens pc-flare in supply is 5 { set flag five }\n"
                     "if count tokens pc-pass on items is 1 { set flag one }")
    assert w.flags == {"five", "one"} and [t for t, _k, _loc in w.tokens_down] == ["pc-flare"] and not w.tokens
    said = [t for t in texts(w) if "goes from the supply" in t]
    assert said == ["a flare token goes from the supply to Dock"]  # not "a red flare token"


def test_tokens_on_a_piece_leave_the_game_with_it(station):
    """Tokens on a victim go with it: it dies, they are out of the game (not back to the supply)."""
    st = settle(station, **board(station, [], pc_yard=1))
    w = run(st, "for each victim at pc-yard { gain 1 token pc-flare on it }")
    assert [h.split(":")[0] for h, *_ in w.token_on if h.startswith("victim:")] == ["victim"]
    supply = len(w.supply)
    w = run(w.freeze(), "kill (victims at pc-yard)")
    assert not any(h.startswith("victim:") for h, *_ in w.token_on) and w.marked == () and len(w.supply) == supply


def test_an_empty_badge_cannot_be_discarded(station):
    """S1.3: an empty pass item can never be discarded; effects that would discard it ignore it."""
    st = settle(station, token_on=tuple(t for t in station.token_on if not t[0].startswith("item:pc-badge-a#")))
    w = run(st, "discard a random item")
    assert "pc-badge-a" in [h.id for h in (*w.held, *w.pack)] and "no item can be discarded" in texts(w)
    w = run(station, "discard a random item")
    assert "pc-badge-a" not in [h.id for h in (*w.held, *w.pack)]


# === saves =========================================================================================
def test_marked_victims_statuses_and_tokens_on_things_survive_a_save(prs):
    """The new fields are saved, loaded and checked; a game without them saves as before."""
    state, _ = api.new_game(prs, seed=1, **SETUP)
    st = settle(state, fg_status=frozenset({"pc-frost"}))
    st, _ = engine.advance(st, (), 0)
    data = json.loads(json.dumps(serialize.to_json(st)))
    again = serialize.from_json(st.game.ruleset, data)
    assert (again.marked, again.fg_status, again.token_on) == (st.marked, st.fg_status, st.token_on)
    plain, _ = api.new_game(load_ruleset(), seed=1)
    assert not {"marked", "victim_seq", "fg_status", "token_on"} & set(serialize.to_json(plain)["state"])


@pytest.mark.parametrize("field, value, says", [
    ("marked", [{"uid": 1, "loc": 0, "kind": "pc-exposed", "status": [], "revealed": False}], "which holds 0"),
    ("marked", [{"uid": 1, "loc": 4, "kind": "ghost", "status": [], "revealed": False}], "a victim kind of this game"),
    ("marked", [{"uid": 99, "loc": 4, "kind": "pc-exposed", "status": [], "revealed": False}], "outside"),
    ("token_on", [["shelf:1", "pc-pass", "pass", True]], "which is no holder"),
])
def test_a_save_with_impossible_marked_victims_or_tokens_is_refused(prs, field, value, says):
    state, _ = api.new_game(prs, seed=1, **SETUP)
    data = json.loads(json.dumps(serialize.to_json(state)))
    data["state"][field] = value
    data["state"]["checkpoint"][field] = value
    with pytest.raises(SaveError, match=field) as err:
        serialize.from_json(state.game.ruleset, data)
    assert says in str(err.value)


# === the checker and the language ==================================================================
SCENARIO = """\
scenario t-piece-check {{
  name "Check"
  location a {{ name "A"; exit }}
  location b {{ name "B"; search }}
  path a (1) -- (1) b
  setup s {{ killer at b; fg at a; victims at b 1 }}
  token chip {{ name "Chip"; kinds red blue; supply red 2 blue 2 }}
  deck parts {{ name "Parts"; card gear {{ name "Gear"; start table }} }}
{body}
}}
"""


@pytest.mark.parametrize("body, code, says", [
    ('  when game starts { turn 1 random victims into ghost }', "E204", "unknown minion or victim kind 'ghost'"),
    ('  when game starts { replace ghost at a with a killer }', "E204", "unknown victim kind 'ghost'"),
    ('  victim v { name "V" }\n  victim v { name "W" }\n  when game starts { turn 1 random victims into v }',
     "E203", "duplicate victim kind 'v'"),
    ('  when game starts { gain 1 token chip green at a }', "E204", "unknown kind 'green' of the token 'chip'"),
    ('  when game starts { gain 1 token chip on card cog }', "E204", "unknown card 'cog'"),
    ('  victim v { name "V"; always panics }', "W241", "nothing turns a victim into 'v'"),
    ('  action a1 { name "A1"; time 1; effect { spend 1 token chip from here to supply } }', "W240",
     "the token 'chip' is taken here, but nothing ever places one"),
])
def test_the_checker_reports_victim_kinds_and_tokens_it_cannot_use(tmp_path, body, code, says):
    rs, diags = check(tmp_path, SCENARIO.format(body=body))
    assert [d.code for d in diags] == [code], [d.format() for d in diags]
    assert says in diags[0].message or says in diags[0].hint
    assert (rs is None) == code.startswith("E")
    assert diags[0].span.line > 0 and diags[0].span.col > 0 and diags[0].hint


def test_a_victim_kind_and_a_minion_may_not_share_an_id(tmp_path):
    rs, diags = check(tmp_path, 'killer t-k {\n  name "K"\n  fear 1\n  minion cub2 { name "C"; health 1; move 1; '
                                'damage 1; limit 2 }\n  victim cub2 { name "V" }\n  when game starts { turn 1 random '
                                'victims into cub2 }\n  bloodlust { level move 1 damage 1 }\n  finale f { name "F"; '
                                'back { }; face { } }\n  dark_power d { name "D" }\n}\n')
    assert rs is None and "E203" in [d.code for d in diags]


def test_the_forms_read_back_as_english(prs):
    names = Names.from_ruleset(prs)
    text = render(prs.killers["pc-changeling"], names)
    assert ("Exposed [pc-exposed] (a kind of victim): it cannot be rescued; it panics in every Panic phase; "
            "killers never target nor kill it") in text
    assert "Turn 3 random victims of no kind into Exposed victims." in text
    assert ("Roll a die; on 1–4: turn 1 Exposed victim of your choice at that location back into a victim of no "
            "kind, then kill 1 victim of your choice at that location; on 5 or 6: an Exposed victim of your choice at "
            "that location leaves the board (it does not die) and the first killer body off the board appears "
            "there.") in text
    station = render(prs.scenarios["pc-station"], names)
    assert ("Spend 1 Pass token of your choice (among those face up) from the items you hold, putting it on the card "
            "pc-heater (placed, it stays there)"
            in station)
    assert ("At the end of the Killer phase: For each piece (you, victims, minions and killers) at an outdoor "
            "location: if that piece has the status pc-frost: that piece loses 1 health (a victim, who has 1 "
            "health, dies); otherwise that piece gains the status pc-frost.") in station
    assert "Move 1 Flare token of your choice (among those face up) from your location into your collection." in station
    assert "Stranger [pc-stranger] (a kind of victim): minions never target nor kill it; its kind is hidden" in station


def test_the_pack_is_in_canonical_form(capsys):
    assert main(["fmt", "--check", str(PACK)]) == 0, capsys.readouterr().out


def test_the_play_screen_shows_statuses_kinds_and_tokens_on_things(station):
    from lastbreath.interpreter.screen import status_facts

    st = settle(station, fg_status=frozenset({"pc-frost"}),
                **board(station, [("pc-yard", "pc-exposed", ("pc-frost",)), ("pc-lab", "pc-stranger", ())],
                        pc_yard=1, pc_lab=1))
    facts = dict(status_facts(st, extras_only=True))
    assert "[pc-frost]" in facts["Status"]
    assert "Exposed victim (pc-frost)" in facts["Victims"] and "Stranger" not in facts["Victims"]
    assert "Badge A: Pass" in facts["Tokens on"]


# === full games ====================================================================================
def test_the_pieces_pack_plays_full_games_without_errors_under_simulate(capsys):
    """Both bots play the pack's killer and a bundled one in the pack's scenario and a bundled one."""
    for bot in ("random", "greedy"):
        code = main(["simulate", "--content", str(PACK), "--matrix", "--killer", "pc-changeling", "--killer",
                     "big-bad-wolf", "--scenario", "pc-station", "--scenario", "storybook-woods", "--final-girl",
                     "nell-arden", "--games", "6", "--seed", "11", "--bot", bot, "--jobs", "1", "--json",
                     "--no-progress"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0, report
        assert sorted((p["killer"], p["scenario"], p["games"], p["errors"]) for p in report["pairs"]) == [
            ("big-bad-wolf", "pc-station", 6, 0), ("big-bad-wolf", "storybook-woods", 6, 0),
            ("pc-changeling", "pc-station", 6, 0), ("pc-changeling", "storybook-woods", 6, 0)], report


def test_the_pieces_pack_passes_the_fuzzer(capsys):
    """Every invariant after every transition (marked victims among the victims), save round trips
    included, over a few deterministic games of both bots."""
    code = main(["fuzz", "--content", str(PACK), "--killer", "pc-changeling", "--scenario", "pc-station",
                 "--games", "6", "--seed", "3", "--jobs", "1", "--json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["clean"], report["violations"][:1]
    assert report["games"] == 6
