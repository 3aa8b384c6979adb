"""A place handed to a drawn card, drawn identities and catching up with a track (issue #33 items 7
and 8; docs/rules.md K2.4, K2.5, K2.7; dsl/LANGUAGE.md section 6j).

The content is the test pack tests/packs/drawn: the killer ``dr-mimic`` hides among the victims; a
victim of its kind that dies, or that she tests where she stands, draws a test result at its own
location (K2.4, K2.5), and a taken result turns up the next shape card of a deck of bodies, whose
body stands in the victim's place and catches up with bloodlust (K2.7). Its broods are minions of a
kind drawn from a deck or picked at random. The scenario ``dr-camp`` draws a drift card for each of
two locations (a choice inside some), and any body that comes catches up with its alarm track. The
pack plays whole games under ``simulate`` and ``fuzz`` (last tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import L, run_effects as run, settle, texts
from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.dsl.render import Names, render
from lastbreath.interpreter import api, engine, serialize
from lastbreath.interpreter.cli import main

PACK = Path(__file__).resolve().parent / "packs" / "drawn"
SETUP = {"killer": "dr-mimic", "scenario": "dr-camp", "final_girl": "nell-arden"}


@pytest.fixture(scope="module")
def drs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def camp(drs):
    """The Mimic in the Snowbound Camp, seed 1, settled in the Action phase: her at the gate, no
    victims (of any kind), every shape off the board, bloodlust at its first level."""
    state, _ = api.new_game(drs, seed=1, **SETUP)
    return settle(state, victims=(0,) * state.game.board.n, marked=(), fg_loc=L(state, "dr-gate"), time=6, fear=2,
                  events_active=(), phase="action", sub=1)


def with_deck(state, deck: str, *cards: str):
    """The state with a named deck's cards in this order (top first)."""
    return settle(state, decks=tuple((d, cards if d == deck else c) for d, c in state.decks))


def victims(state, **where) -> tuple:
    v = [0] * state.game.board.n
    for lid, k in where.items():
        v[L(state, lid.replace("_", "-"))] = k
    return tuple(v)


def exposed_at(state, lid: str):
    """A state with one more victim there, of the kind dr-exposed."""
    w = run(state, f"place 1 victims at {lid}; turn 1 victims at {lid} into dr-exposed")
    return settle(state, victims=w.victims, marked=w.marked, victim_seq=w.victim_seq)


def check(tmp_path, text: str):
    folder = tmp_path / "pack"
    folder.mkdir(exist_ok=True)
    (folder / "x.fg").write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), folder])


def body(state_or_work, bid: str):
    return next(k for k in state_or_work.killers if k.body == bid)


# === a place handed to a drawn card (issue #33 item 7) ===========================================
def test_K2_4_a_card_drawn_at_a_place_resolves_there(camp):
    """K2.4, K2.5: a test result drawn at the exposed victim's location: 'here' in the card is that
    location, not hers (she is at the gate); the log says where it was drawn."""
    st = with_deck(exposed_at(camp, "dr-yard"), "dr-results", "dr-safe", "dr-taken", "dr-safe")
    w = run(st, "draw card dr-results at dr-yard")
    assert w.marked == () and w.victims[L(st, "dr-yard")] == 1 and w.fg_loc == L(st, "dr-gate")
    drawn = next(e for e in w.ctl.events if e.text.startswith("draws"))
    assert (drawn.text, drawn.rule) == ("draws Safe from Test Results at Yard", "C18.5")


def test_a_card_drawn_at_no_place_resolves_at_her_location(camp):
    """A card drawn at no place: 'here' is hers (the exposed victim at the yard is left alone)."""
    st = with_deck(exposed_at(exposed_at(camp, "dr-yard"), "dr-gate"), "dr-results", "dr-safe", "dr-taken", "dr-safe")
    w = run(st, "draw card dr-results")
    assert [m.loc for m in w.marked] == [L(st, "dr-yard")]
    assert "draws Safe from Test Results" in texts(w)


def test_a_place_that_matches_nothing_draws_no_card(camp):
    w = run(camp, "draw card dr-results at (exit with victims)")
    assert w.decks == camp.decks and not any("draws" in t for t in texts(w))


def test_for_each_draws_a_card_at_each_location(camp):
    """'for each 2 of … random { draw card … at it }': two different locations, a card each, each
    card's 'it' its own (the gust panics the victims there)."""
    st = with_deck(settle(camp, victims=victims(camp, dr_mess=1, dr_pens=1)), "dr-drifts", "dr-gust", "dr-gust")
    st = settle(st, decks=tuple((d, ("dr-gust", "dr-gust") if d == "dr-drifts" else c) for d, c in st.decks))
    w = run(st, "for each 2 of any with victims random { draw card dr-drifts at it }")
    drawn = [t for t in texts(w) if t.startswith("draws Gust")]
    assert sorted(drawn) == ["draws Gust from Drifts at Dog Pens", "draws Gust from Drifts at Mess Hall"]
    assert sum(1 for e in w.ctl.events if e.rule == "C10.2") == 2  # one panic at each, where the card fell


def _scout(camp):
    """At the yard with no victim of her own, victims at the mess hall only: 'Scout the drifts' draws
    the buried card there, and its choice pauses the step."""
    st = settle(camp, fg_loc=L(camp, "dr-yard"), victims=victims(camp, dr_mess=2))
    st = with_deck(st, "dr-drifts", "dr-buried", "dr-gust", "dr-lull")
    st, _ = engine.advance(st, (), 0)
    st, _ = api.apply(st, "action:dr-scout")
    assert st.choice.kind == "effect-choice"
    return st


def test_the_place_holds_through_a_choice_resumed_replayed_or_loaded(drs, camp):
    """The place a card is drawn at holds through a pause for a choice inside it: the step resumed
    (the paused run), replayed from its checkpoint (a copy of the state) and loaded from a save all
    move a victim from the mess hall, the card's 'here', to a random neighbour of it, 'it' (she
    stands at the yard, where no victim is: with 'here' hers, none would move)."""
    paused = _scout(camp)
    key = next(o.key for o in paused.choice.options if o.label == "Leave them")
    resumed, events = api.apply(paused, key)
    replayed, replayed_events = api.apply(engine.replace(paused), key)
    data = json.loads(json.dumps(serialize.to_json(paused)))
    loaded, loaded_events = api.apply(serialize.from_json(drs, data), key)
    mess = L(camp, "dr-mess")
    for st in (resumed, replayed, loaded):
        assert st.victims[mess] == 1 and st.victims[L(camp, "dr-yard")] + st.victims[L(camp, "dr-store")] == 1
        assert (st.victims, st.rng, st.decks) == (resumed.victims, resumed.rng, resumed.decks)
    assert [e.text for e in events] == [e.text for e in replayed_events] == [e.text for e in loaded_events]
    assert any(e.text.startswith("1 victim moves from Mess Hall to") for e in events)


# === drawn identities (issue #33 item 8; K2.7) ======================================================
def test_K2_7_a_victim_replaced_by_the_body_a_card_names_which_then_catches_up(camp):
    """K2.7: a taken result turns up the shape card on top (Grey); Grey stands in the exposed
    victim's place and, as it appears, catches up with the hunger track (space 1: heal 1, nothing at
    its full 2 health); then its card resolves there for it: it catches up with bloodlust (level 2:
    heal 1, nothing again; level 3: max health 5, heal 1)."""
    st = exposed_at(camp, "dr-yard")
    st = with_deck(with_deck(st, "dr-results", "dr-taken", "dr-safe", "dr-safe"), "dr-shapes", "dr-grey-card",
                   "dr-red-card", "dr-black-card")
    st = settle(st, bloodlust=2, tracks=(("dr-hunger", 1), ("dr-alarm", 0)))
    grey_before = body(st, "dr-grey").health
    w = run(st, "kill 1 victims at dr-yard")  # it dies: a test is drawn where it stood (K2.4)
    grey = body(w, "dr-grey")
    assert grey.loc == L(st, "dr-yard") and w.marked == () and w.dead == 0
    assert grey.health == grey_before + 1 == 3 and grey.max_health == 5
    assert all(k.loc < 0 for k in w.killers if k.body != "dr-grey")
    said = texts(w)
    for line in ("draws Taken from Test Results at Yard", "draws The Grey Card from Shapes at Yard",
                 "The Grey Card names Grey Shape", "Grey Shape appears at Yard",
                 "Grey Shape catches up with bloodlust (level 3), lowest first",
                 "the one-time effect of bloodlust level 2 resolves again for Grey Shape",
                 "Grey Shape catches up with the Hunger track (space 1), lowest first"):
        assert line in said, said
    assert dict(w.decks)["dr-shapes"] == ("dr-red-card", "dr-black-card")  # after remove: out of the game
    assert w.bloodlust == 2 and dict(w.tracks)["dr-hunger"] == 1  # nothing moved


def test_K2_7_a_random_killer_is_one_off_the_board_from_the_generator(camp):
    """K2.7: which body appears may be left to chance: the state's generator picks among the living
    bodies off the board (one draw; none with a single candidate); with none, nothing appears."""
    w = run(camp, "a random killer appears at dr-yard")
    on = [k for k in w.killers if k.loc >= 0]
    assert len(on) == 1 and on[0].loc == L(camp, "dr-yard") and w.rng == camp.rng + 1
    assert f"{w.game.bodies[on[0].body].name} is picked at random among the killers off the board" in texts(w)
    came = set()
    for r in range(12):
        got = run(settle(camp, rng=r), "a random killer appears at dr-yard")
        came |= {k.body for k in got.killers if k.loc >= 0}
    assert came == {"dr-red", "dr-black", "dr-grey"}  # every one of them can come
    every = run(camp, "a random killer appears at dr-yard; a random killer appears at dr-mess; "
                      "a random killer appears at dr-pens; a random killer appears at dr-gate")
    assert sum(1 for k in every.killers if k.loc >= 0) == 3
    assert every.rng == camp.rng + 2  # three, then two candidates; one left, then none: no draw
    assert "no killer is off the board: none appears" in texts(every)


def test_minions_of_a_kind_drawn_or_picked_at_random(camp):
    """Which minion kind enters: named by a card of a deck of minion kinds (which then resolves at
    the place), or picked at random among the killer's kinds with a token left."""
    st = with_deck(settle(camp, minions=(), victims=victims(camp, dr_mess=1)), "dr-broods", "dr-spawning",
                   "dr-creeping")
    w = run(st, "spawn 2 minions of a kind drawn from dr-broods at dr-mess")
    assert [(m.kind, m.loc) for m in w.minions] == [("dr-spawnling", L(st, "dr-mess"))] * 2
    assert "Spawning names the Spawnling minions" in texts(w) and w.fear == st.fear + 1  # victims there
    full = run(st, "spawn 4 dr-spawnling at dr-yard; spawn 1 minions of a random kind at dr-gate")
    assert [m.kind for m in full.minions if m.loc == L(st, "dr-gate")] == ["dr-creeper"]  # no spawnling left
    assert "the Creeper kind is picked at random" in texts(full)


def test_K2_7_catching_up_is_for_that_body_only_and_moves_nothing(camp):
    """K2.7: 'killer BODY catches up with bloodlust' resolves the one-time effects up to the current
    level again for that body only, lowest first; bloodlust neither rises nor is told to."""
    st = settle(camp, bloodlust=3)
    st = settle(st, killers=tuple(k if k.body != "dr-red" else type(k)(k.id, L(st, "dr-yard"), 1, k.breath,
                                                                          k.breath_value, True, k.status, k.label,
                                                                          k.body, k.aside, 0)
                                  for k in st.killers))
    w = run(st, "killer dr-red catches up with bloodlust")
    red, black = body(w, "dr-red"), body(w, "dr-black")
    assert (red.health, red.max_health) == (3, 5) and black == body(st, "dr-black")
    assert w.bloodlust == 3 and not any(e.kind == "bloodlust" for e in w.ctl.events)
    assert [e.rule for e in w.ctl.events if e.kind == "catch-up"] == ["K2.7"] * 3


# === what the checker refuses =========================================================================
KILLER = """\
killer t-drawn {{
  name "T"
  fear 1
  body t-one {{ name "One"; health 2; off board }}
  bloodlust {{
    level move 1 damage 1
    level move 1 damage 1{level}
  }}
  track t-track {{ name "Track"; spaces 0 to 2{steps} }}
{lines}
  finale t-f {{ name "F"; back {{ }}; face {{ }} }}
  no dark power
}}
"""


def killer(lines: str, level: str = " { heal killer 1 }", steps: str = "; at 2 { heal killer 1 }") -> str:
    return KILLER.format(lines=lines, level=level, steps=steps)


DECKS = """\
  deck t-deck {
    name "Deck"
    card t-a { name "A"; effect { place 1 victims at it } }
  }
  deck t-bodies { name "Bodies"; card t-b { name "B"; body t-one } }
  deck t-kinds { name "Kinds"; card t-k { name "K"; minion t-kind } }
  minion t-kind { name "Kind"; health 1; move 1; damage 1; limit 2 }
"""


def test_a_clean_killer_with_every_form_checks(tmp_path):
    rs, diags = check(tmp_path, killer(DECKS + """\
  when game starts { draw card t-deck at killer-start; for each exit { draw card t-deck at it } }
  when killer appears { killer catches up with bloodlust; killer catches up with track t-track }
  terror t-t {
    name "T"
    effect {
      a killer drawn from t-bodies appears at here
      a random killer appears at here
      spawn 1 minions of a kind drawn from t-kinds at here
      spawn 1 minions of a random kind at here
      killer t-one catches up with track t-track
    }
  }
"""))
    assert diags == [] and rs is not None


def test_it_in_a_card_whose_deck_is_drawn_at_no_place_is_refused(tmp_path):
    """'it' in a card's effects is the place it is drawn at: a 'draw card DECK' with no place for its
    deck is refused at the 'it', naming the draw and how to give it one."""
    text = killer(DECKS + "  when game starts { draw card t-deck at here; draw card t-deck }\n")
    rs, diags = check(tmp_path, text)
    assert rs is None and [d.code for d in diags] == ["E204"]
    assert "'it' in a card of the deck 't-deck' is the place the card is drawn at" in diags[0].message
    bare = next(i for i, ln in enumerate(text.splitlines(), 1) if "draw card t-deck }" in ln)
    assert f"but 'draw card t-deck' at line {bare} gives it none" in diags[0].message
    assert "draw card t-deck at PLACE" in diags[0].hint
    assert "place 1 victims at it" in text.splitlines()[diags[0].span.line - 1]


def test_it_elsewhere_in_a_card_still_means_nothing(tmp_path):
    rs, diags = check(tmp_path, killer(
        '  deck t-deck { name "Deck"; card t-a { name "A"; keep; rule dice +1 while it is exit } }\n'))
    assert rs is None and [d.code for d in diags] == ["E204"] and "'it' means nothing here" in diags[0].message


@pytest.mark.parametrize("line, says", [
    ("a killer drawn from t-kinds appears at here", "the deck 't-kinds' is not a deck of bodies: its card 't-k'"),
    ("replace t-v at here with a killer drawn from t-deck", "not a deck of bodies"),
    ("spawn 1 minions of a kind drawn from t-bodies at here", "not a deck of minion kinds"),
])
def test_a_deck_whose_cards_name_no_such_piece_is_refused(tmp_path, line, says):
    rs, diags = check(tmp_path, killer(DECKS + '  victim t-v { name "V" }\n  when game starts { turn 1 random victims '
                                       f'into t-v; draw card t-deck at here }}\n  terror t-t {{ name "T"; effect {{ {line} }} }}\n'))
    assert rs is None and [d.code for d in diags] == ["E210"], [d.format() for d in diags]
    assert says in diags[0].message and "line" in diags[0].hint


def test_unknown_decks_bodies_and_two_pieces_on_a_card_are_refused(tmp_path):
    rs, diags = check(tmp_path, killer('  terror t-t { name "T"; effect { a random killer appears at here; '
                                       'a killer drawn from t-nope appears at here } }\n'
                                       '  deck t-two { name "Two"; card t-c { name "C"; body t-one; minion t-kind } }\n'
                                       '  deck t-bad { name "Bad"; card t-d { name "D"; body t-nobody } }\n'
                                       '  minion t-kind { name "Kind"; health 1; move 1; damage 1; limit 2 }\n'))
    assert rs is None and sorted(d.code for d in diags) == ["E204", "E204", "E206"], [d.format() for d in diags]
    assert any("unknown deck 't-nope'" in d.message for d in diags)
    assert any("unknown body 't-nobody'" in d.message for d in diags)


@pytest.mark.parametrize("line, level, steps, says", [
    ("killer catches up with bloodlust", "", "; at 2 { heal killer 1 }", "no bloodlust level of 't-drawn'"),
    ("killer catches up with track t-track", " { heal killer 1 }", "", "the track 't-track' has no 'at N' step"),
    ("spawn 1 minions of a random kind at here", " { heal killer 1 }", "", "'t-drawn' has no minion kind"),
])
def test_a_catch_up_or_a_random_kind_that_would_do_nothing_is_refused(tmp_path, line, level, steps, says):
    rs, diags = check(tmp_path, killer(f'  terror t-t {{ name "T"; effect {{ {line} }} }}\n', level, steps))
    assert rs is None and [d.code for d in diags] == ["E210"] and says in diags[0].message, [d.format() for d in diags]
    assert diags[0].hint


# === card text ========================================================================================
def test_card_text_says_where_a_card_resolves_and_what_a_card_names(drs):
    names = Names.from_ruleset(drs)
    mimic = render(drs.killers["dr-mimic"], names.within(drs.killers["dr-mimic"]))
    assert "Draw a card from the Test Results deck: it resolves at your location." in mimic
    assert "The Red Card — it names Red Shape" in mimic
    assert "turn 1 Exposed victim of no kind" not in mimic
    assert "the card's place (where it is drawn; yours if at none)" in mimic  # 'here' in its results
    assert "resolve again for the killer, lowest first" in mimic
    camp = render(drs.scenarios["dr-camp"], names.within(drs.scenarios["dr-camp"]))
    assert "Gust: The victims at that location panic." in camp
    assert "Lull: If you are at the card's place (where it is drawn; yours if at none): gain 1 time" in camp
    assert "Creeping — it names the Creeper minions\n" in mimic  # no "nothing happens"


def test_the_pack_is_in_canonical_form(capsys):
    assert main(["fmt", "--check", str(PACK)]) == 0, capsys.readouterr().out


# === full games ===================================================================================
def test_the_drawn_pack_plays_full_games_without_errors_under_simulate(capsys):
    """Both bots play the pack's killer and a bundled one in the pack's scenario and a bundled one."""
    for bot in ("random", "greedy"):
        code = main(["simulate", "--content", str(PACK), "--matrix", "--killer", "dr-mimic", "--killer",
                     "big-bad-wolf", "--scenario", "dr-camp", "--scenario", "storybook-woods", "--final-girl",
                     "nell-arden", "--games", "6", "--seed", "11", "--bot", bot, "--jobs", "1", "--json",
                     "--no-progress"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0, report
        assert sorted((p["killer"], p["scenario"], p["games"], p["errors"]) for p in report["pairs"]) == [
            ("big-bad-wolf", "dr-camp", 6, 0), ("big-bad-wolf", "storybook-woods", 6, 0),
            ("dr-mimic", "dr-camp", 6, 0), ("dr-mimic", "storybook-woods", 6, 0)], report


def test_the_drawn_pack_passes_the_fuzzer(capsys):
    """Every invariant after every transition, save round trips included, over a few deterministic
    games of both bots."""
    code = main(["fuzz", "--content", str(PACK), "--killer", "dr-mimic", "--scenario", "dr-camp",
                 "--games", "8", "--seed", "3", "--jobs", "1", "--json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["clean"], report["violations"][:1]
    assert report["games"] == 8
