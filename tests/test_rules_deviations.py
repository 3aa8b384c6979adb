"""Deviations from the rules found in the built films (issue #13), each with the rule it follows.

K6.6 (a Killer phase cut short still ends, with its end triggers; formations run until no crowd
is left), C9.5 (each attack deals the damage of the bloodlust level when it lands: the open
default), S5.5 (a status that stops enemy moves holds every move of the Killer phase, a card's too; issue #34).
"""

from __future__ import annotations

import pytest
from conftest import L, load_with, make_work, settle, victims_at

from lastbreath.dsl import nodes as n
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import MinionState

EXTRA = """
scenario dev-line {
  name "Deviation Line"
  location d-a { name "A"; exit }
  location d-b { name "B"; search }
  location d-c { name "C" }
  location d-d { name "D"; exit }
  path d-a (1) -- (1) d-b
  path d-b (2) -- (1) d-c
  path d-c (2) -- (1) d-d
  setup d-start { killer at d-c; fg at d-a; victims at d-d 1 }
  item d-stick { name "Stick"; weapon hands 1 range 0 bonus 1 }
  terror d-quiet { name "Quiet"; effect { lose 1 time } }
}

killer dev-killer {
  name "Deviation Killer"
  health 5
  fear 3
  bloodlust {
    level move 1 damage 1
    level move 1 damage 3
    at max { lose 1 time }
  }
  rule enemies with status stuck do not move
  at end of killer { set flag phase-ended }
  finale dev-cut {
    name "Cut Short"
    back { lose 9 health }
    face { lose 9 health }
  }
  dark_power dev-dark { name "Dark" }
  terror dev-hunt { name "Hunt"; effect { killer hunts fg-or-victims moves 1 attacks 2 } }
}

killer dev-quick {
  name "Deviation Quick"
  health 5
  fear 3
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  rule killer moves 1 more while flag hurry
  rule killer attacks 1 more while flag hurry
  finale dev-q { name "Q"; back { lose 1 time }; face { lose 1 time } }
  dark_power dev-qd { name "QD" }
}

killer dev-crowd {
  name "Deviation Crowd"
  no board
  body heap { name "Heap"; formed }
  fear 3
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  minion d-rat { name "Rat"; health 1; move 1; damage 1; limit 20 }
  when killer forms { if killers at most 1 { spawn 3 d-rat at killer-start } }
  finale dev-f { name "F"; back { lose 1 time }; face { lose 1 time } }
  dark_power dev-d { name "D" }
}
"""


@pytest.fixture(scope="module")
def drs(tmp_path_factory):
    return load_with(tmp_path_factory.mktemp("deviations"), EXTRA, "deviations.fg")


def _state(drs, killer="dev-killer", **fields):
    state, _ = api.new_game(drs, killer=killer, scenario="dev-line", final_girl="nell-arden", seed=3)
    return settle(state, **fields)


def test_a_killer_phase_cut_short_by_her_last_breath_still_ends_with_its_end_triggers(drs):
    """K6.6, C14.2: the Final Girl's white token ends the Killer phase at once; the phase still
    ends (its 'at end of killer' lines resolve: crowds still gather) before the Panic phase."""
    s = _state(drs, phase="killer", sub=0, finale="dev-cut", fg_breath=2, fg_breath_value=2, fg_health=3,
               hand=("walk",), flags=frozenset())
    w = make_work(s)
    for _ in range(6):  # the steps of the Killer phase, until it is over
        if w.phase != "killer":
            break
        engine.STEPS["killer"](w)
    assert w.fg_breath == 1, "her black token turned white"
    texts = [e.text for e in w.ctl.events]
    assert "the Killer phase ends at once" in texts
    assert "phase-ended" in w.flags, "the end-of-phase trigger resolved"
    assert w.phase == "panic"


def test_a_formation_that_brings_more_minions_forms_them_too(drs):
    """K6.6: every location with a crowd at the end of the formation holds none: a body whose
    forming brings three more minions is followed by another pass (no crowd is left)."""
    s = _state(drs, killer="dev-crowd", phase="killer", sub=3)
    rat = lambda loc, uid: MinionState("d-rat", loc, 1, frozenset(), uid)  # noqa: E731
    s = engine.replace(s, minions=(rat(L(s, "d-c"), 1), rat(L(s, "d-c"), 2), rat(L(s, "d-c"), 3)), minion_seq=3)
    w = make_work(s)
    engine.run(w, (n.FormKillers(None, 3, "d-rat"),), Ctx())
    crowds = {m.loc for m in w.minions if sum(1 for x in w.minions if x.loc == m.loc) >= 3}
    assert not crowds, [(m.loc) for m in w.minions]
    assert [k.label for k in w.killers] == ["Heap 1", "Heap 2"]


def test_each_attack_deals_the_damage_of_the_level_when_it_lands(drs):
    """C9.5 (open; default in decision 0004): the first attack kills a victim, bloodlust rises to a
    level with damage 3, and the second attack of the same action hits for 3."""
    s = _state(drs, phase="killer", sub=2, terror=("dev-hunt",), bloodlust=0, hand=())
    c = L(s, "d-c")
    s = engine.replace(s, fg_loc=c, victims=victims_at(s, d_c=1), fg_health=6, fg_breath=2)
    w = make_work(s)
    engine.STEPS["killer"](w)
    attacks = [e.text for e in w.ctl.events if e.kind == "attack"]
    assert w.dead == 1 and w.bloodlust == 1
    assert attacks == ["the killer attacks the Final Girl for 3"]
    assert w.fg_health == 3


def test_s5_5_a_status_that_stops_moves_holds_every_move_of_the_killer_phase(drs):
    """S5.5 (issue #34): in the Killer phase a dazed enemy moves neither on a hunt nor by an effect
    that moves it ('move killer to …'); outside the Killer phase such an effect still moves it."""
    s = _state(drs, phase="killer", sub=1)
    k = s.killers[0]
    s = engine.replace(s, killers=(engine.evolve_killer(k, status=frozenset({"stuck"})),), fg_loc=L(s, "d-a"))
    w = make_work(s)
    engine.hunt(w, "killer", "fg", 1, 0)
    assert w.killers[0].loc == L(s, "d-c")
    assert any("does not move" in e.text and e.rule == "S5.5" for e in w.ctl.events)
    engine.run(w, (n.MoveKillerTo(None, "d-d"),), Ctx())
    assert w.killers[0].loc == L(s, "d-c"), "a card's move holds no more than the killer's own"
    assert [e.rule for e in w.ctl.events if e.text.startswith("the killer does not move to")] == ["S5.5"]
    w = make_work(engine.replace(s, phase="action", sub=1))
    engine.run(w, (n.MoveKillerTo(None, "d-d"),), Ctx())
    assert w.killers[0].loc == L(s, "d-d"), "in the Action phase a card still moves it"


def test_a_rule_adds_moves_and_attacks_to_a_hunt_while_its_condition_holds(drs):
    """C9.4, C9.6: 'rule killer moves 1 more while …' and 'rule killer attacks 1 more while …':
    the action's own numbers read as printed; while the flag is set the killer makes one move
    and one attack more (moves 1 from C to A along A-B-C takes 2 moves)."""
    s = _state(drs, killer="dev-quick", phase="killer", sub=1, fg_health=6, fg_breath=2)
    s = engine.replace(s, fg_loc=L(s, "d-a"), victims=victims_at(s), flags=frozenset())
    w = make_work(s)
    engine.hunt(w, "killer", "fg", 1, 1)
    assert w.killers[0].loc == L(s, "d-b") and w.fg_health == 6, "without the flag: one move, no attack reaches"
    w = make_work(engine.replace(s, flags=frozenset({"hurry"})))
    engine.hunt(w, "killer", "fg", 1, 1)
    assert w.killers[0].loc == L(s, "d-a")
    assert [e.text for e in w.ctl.events if e.kind == "attack"] == ["the killer attacks the Final Girl for 1"] * 2
    assert w.fg_health == 4


def test_a_rule_whose_condition_reads_the_paths_it_changes_does_not_loop(drs, tmp_path):
    """S1.4 with 'while': 'rule enemies cannot cross bridge while fg within 1 of killer-location'
    needs the paths to read its condition; the condition is read with the conditional rules of
    that question out of force (no endless recursion)."""
    from conftest import load_with
    rs = load_with(tmp_path, EXTRA.replace("  rule enemies with status stuck do not move",
                                           "  rule enemies cannot cross bridge while fg within 1 of killer-location"),
                   "deviations.fg")
    s = _state(rs, phase="killer", sub=1)
    w = make_work(engine.replace(s, fg_loc=L(s, "d-b")))
    engine.hunt(w, "killer", "fg", 1, 0)
    assert w.killers[0].loc == L(s, "d-b")


def test_the_enemies_tables_kept_by_the_working_copy_follow_a_conditional_ban(drs, tmp_path):
    """S1.4, C9.4: the working copy keeps the enemies' path tables while the same sources are in
    play, but only for rules that bar paths without 'while': a ban whose condition changes with
    the Final Girl's place gives the tables of that moment, read after read in one working copy."""
    from conftest import load_with
    from lastbreath.interpreter.engine import statics
    rs = load_with(tmp_path, EXTRA.replace("  rule enemies with status stuck do not move",
                                           "  rule enemies cannot cross bridge while fg within 1 of killer-location"),
                   "deviations.fg")
    s = _state(rs, phase="killer", sub=1)
    w = make_work(s)
    seen = set()
    for place in [*s.game.board.ids, *reversed(s.game.board.ids)] * 2:
        w.fg_loc = L(s, place)
        bans = statics.modified(w, "enemy-bans", frozenset())
        expected = w.game.board.tables(w.opened, bans, statics.shut_for(w, "enemies"))
        assert statics.enemy_tables(w) is expected, place
        seen.add(bans)
    assert len(seen) == 2  # the ban held at some places and not at others
