"""General mechanics that the later films need (tokens, actions, decks, statuses, turning pieces),
written as a small test scenario and killer in the language itself."""

from __future__ import annotations

import pytest

from lastbreath.dsl import nodes as n
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.state import MinionState

from conftest import load_with, make_work

CONTENT = '''
scenario test-ward {
  name "Test Ward"
  location gate { name "Gate"; exit }
  location hall { name "Hall"; search }
  location ward { name "Ward" }
  path gate (1 2 3) -- (1 2 3) hall
  path hall (4 5 6) -- (1 2 3 4 5 6) ward
  token pill { name "Pill"; kinds red blue wild; wild wild; supply red 2 blue 2 wild 1 }
  setup one { killer at ward; fg at gate; victims at hall 2; tokens pill at gate hall }
  action collect-pill {
    name "Collect the pill here"
    if token pill at here
    time 1
    effect { collect token pill at here }
  }
  action take-pills {
    name "Take pills"
    free
    if collected pill at least 1
    effect {
      spend collected pill 1 to 3 {
        each red { heal 1 }
        each blue { gain 1 time }
        if spent at least 2 { draw card jolts }
        if spent covers red blue { set flag buzzing }
      }
    }
  }
  deck jolts {
    name "Jolts"
    card numb { name "Numb"; keep; rule dice -1 }
  }
  rule enemies with status dazed do not move
  at start of upkeep { clear status dazed }
  item stick { name "Stick"; weapon hands 1 range 0 bonus 1 }
  item rag { name "Rag"; use time 1 { heal 1 } }
  item rope { name "Rope" }
  item lamp { name "Lamp" }
}

killer test-warden {
  name "Test Warden"
  health 4
  fear 2
  rule no health cap
  when game starts { spawn 2 orderly at killer-location }
  when fg leaves { lose (count minions at here minus 1) health }
  bloodlust { level move 1 damage 1; level move 1 damage 1; at max { lose 1 time } }
  finale f { name "F"; back { enemies hunt victims moves 1 attacks 1 }; face { enemies hunt fg moves 1 attacks 1 } }
  dark_power d { name "D" }
  terror t { name "T"; effect { turn 1 victims at killer-location into orderly } }
  minion orderly { name "Orderly"; health 1; move 1; damage 1; limit 3 }
  card soothe {
    name "Soothe"; cost 2
    fail { lose 1 time }
    success { lose 1 time; turn 1 orderly at here into victims }
    great { lose 1 time; turn 2 orderly at here into victims }
  }
}
'''


@pytest.fixture(scope="module")
def ward(tmp_path_factory):
    rs = load_with(tmp_path_factory.mktemp("ward"), CONTENT)
    state, events = new_game(rs, killer="test-warden", scenario="test-ward", seed=3)
    return rs, state, events


def test_setup_places_tokens_from_the_supply(ward):
    rs, state, events = ward
    assert sorted(loc for _t, _k, loc in state.tokens) == [0, 1]  # gate and hall
    assert len(state.supply) == 5 - 2
    assert {k for _t, k, _l in state.tokens} | {k for _t, k in state.supply} <= {"red", "blue", "wild"}


def test_game_starts_trigger_spawns_minions(ward):
    _rs, state, _ = ward
    assert [m.loc for m in state.minions] == [2, 2]


def test_film_card_joins_the_market(ward):
    _rs, state, _ = ward
    assert "soothe" in state.market and "soothe" not in state.hand


def test_location_action_collects_a_token(ward):
    _rs, state, _ = ward
    assert "action:collect-pill" in state.choice.keys()
    s2, _ = engine.apply(state, "action:collect-pill")
    assert len(s2.collected) == 1 and len(s2.tokens) == 1
    assert s2.time == state.time - 1
    assert "action:take-pills" in s2.choice.keys()


def test_spend_resolves_each_kind_and_combinations(ward):
    _rs, state, _ = ward
    s = engine.replace(state.checkpoint, collected=(("pill", "blue"), ("pill", "red")), fg_health=3, time=2)
    w = make_work(s, ["spend:blue+red"])
    engine.run(w, next(a for a in w.game.actions if a.id == "take-pills").effects, engine.Ctx())
    assert w.fg_health == 4 and w.time == 3
    assert "buzzing" in w.flags
    assert w.kept == ("jolts/numb",)
    assert w.collected == ()
    assert len(w.supply) == len(s.supply) and len(w.token_discard) == 2  # the supply still has pills


def test_spent_tokens_return_to_an_empty_supply(ward):
    """S5.3: discarded pills go back to the table only when it has none left."""
    _rs, state, _ = ward
    s = engine.replace(state.checkpoint, collected=(("pill", "blue"),), supply=(), token_discard=(("pill", "red"),))
    w = make_work(s, ["spend:blue"])
    engine.run(w, next(a for a in w.game.actions if a.id == "take-pills").effects, engine.Ctx())
    assert sorted(k for _t, k in w.supply) == ["blue", "red"] and w.token_discard == ()


def test_spent_covers_accepts_a_wild(ward):
    _rs, state, _ = ward
    w = make_work(state.checkpoint)
    assert engine.covers(w, ("red", "wild"), ("red", "blue"), "pill")
    assert not engine.covers(w, ("red", "red"), ("red", "blue"), "pill")


def test_kept_card_rules_are_in_play(ward):
    _rs, state, _ = ward
    card = state.game.cards["walk"]
    base = engine.dice_for(make_work(state.checkpoint), card)
    assert engine.dice_for(make_work(engine.replace(state.checkpoint, kept=("jolts/numb",))), card) == base - 1


def test_victims_turn_into_minions_without_a_death_and_back(ward):
    _rs, state, _ = ward
    s = engine.replace(state.checkpoint, minions=(), victims=(0, 2, 0))
    w = make_work(s)
    engine.run(w, state.game.terror["t"].effects, engine.Ctx())  # killer at ward: no victims there
    assert w.minions == ()
    w = make_work(engine.replace(s, killers=(engine.evolve_killer(s.killers[0], loc=1),)))
    engine.run(w, state.game.terror["t"].effects, engine.Ctx())
    assert w.victims[1] == 1 and len(w.minions) == 1 and w.dead == 0 and w.bloodlust == 0
    w.fg_loc = 1
    engine.run(w, state.game.cards["soothe"].outcomes[1].effects, engine.Ctx())
    assert w.victims[1] == 2 and w.minions == ()


def test_turning_respects_the_minion_limit(ward):
    _rs, state, _ = ward
    full = tuple(MinionState("orderly", 2, 1) for _ in range(3))
    s = engine.replace(state.checkpoint, minions=full, victims=(0, 0, 2))
    w = make_work(s)
    engine.run(w, state.game.terror["t"].effects, engine.Ctx())
    assert len(w.minions) == 3 and w.victims[2] == 2


def test_status_stops_movement_but_not_attacks(ward):
    _rs, state, _ = ward
    s = engine.replace(state.checkpoint, minions=(), victims=(0, 1, 1), phase="killer")  # S5.5: in the Killer phase
    w = make_work(s)
    engine.EXEC[n.AddStatus](w, n.AddStatus(None, "dazed", "killer", ""), engine.Ctx())
    engine.hunt(w, "killer", "fg", 1, 1)
    assert w.killers[0].loc == 2  # did not move toward the FG
    assert w.victims[2] == 0 and w.dead == 1  # still attacked where it stands
    engine.EXEC[n.ClearStatus](w, n.ClearStatus(None, "dazed"), engine.Ctx())
    assert w.killers[0].status == frozenset()


def test_leaving_a_location_with_minions_costs_health(ward):
    _rs, state, _ = ward
    minions = tuple(MinionState("orderly", 0, 1) for _ in range(3))
    s = engine.replace(state.checkpoint, minions=minions, fg_health=5, victims=(0, 0, 0))
    w = make_work(s, ["move:hall"])
    engine.move_fg(w, 1)
    assert w.fg_loc == 1 and w.fg_health == 5 - 2


def test_no_health_cap_lets_the_killer_grow(ward):
    _rs, state, _ = ward
    w = make_work(state.checkpoint)
    engine.heal_killer(w, 5)
    assert w.killers[0].health == 4 + 5


def test_games_with_tokens_play_to_the_end_and_save(ward):
    rs, _state, _ = ward
    from lastbreath.interpreter.api import play, random_policy
    from lastbreath.interpreter.serialize import from_json, to_json
    for seed in range(30):
        state, _ = new_game(rs, killer="test-warden", scenario="test-ward", seed=seed)
        bot = random_policy(seed)
        for _ in range(40):
            if state.over:
                break
            state, _ = engine.apply(state, bot(state, state.choice))
        if not state.over:
            again = from_json(rs, to_json(state))
            k = state.choice.options[0].key
            assert to_json(engine.apply(again, k)[0]) == to_json(engine.apply(state, k)[0])
        assert play(state, bot).result in ("fg", "killer")


def test_effects_that_feed_themselves_stop_with_a_clear_error(tmp_path):
    """Untrusted content cannot recurse without bound: a rules error names the line (DESIGN: bounded loops)."""
    from lastbreath.dsl import RulesError
    rs = load_with(tmp_path, '''
killer loop-test {
  name "Loop Test"
  health 5
  fear 7
  bloodlust { level move 1 damage 1; at max { raise fear 1 } }
  finale f { name "F"; back { raise fear 1 }; face { raise fear 1 } }
  dark_power d { name "D" }
}
''')
    state, _ = new_game(rs, killer="loop-test", seed=1)
    w = make_work(engine.replace(state.checkpoint, fear=state.game.side.fear_max))
    with pytest.raises(RulesError, match=r"extra\.fg:\d+:\d+: effects set each other off"):
        engine.raise_fear(w, 1)


def test_conditions_on_the_killers_health_and_the_victims_left(ward):
    """Conditions a killer's regeneration or a finale may use: `killer health …`, `victims left …`."""
    _rs, state, _ = ward
    s = engine.replace(state.checkpoint, victims=(0, 0, 0))
    w = make_work(engine.replace(s, killers=(engine.evolve_killer(s.killers[0], health=3),)))
    health, left = n.Quantity(None, "killer-health"), n.Count(None, "victims")
    assert engine.condition(w, n.Compare(None, health, "at-most", 3), engine.Ctx())
    assert not engine.condition(w, n.Compare(None, health, "at-least", 4), engine.Ctx())
    assert engine.condition(w, n.Compare(None, left, "at-most", 0), engine.Ctx())
    w.victims = (0, 2, 1)
    assert engine.condition(w, n.Compare(None, left, "at-least", 3), engine.Ctx())
