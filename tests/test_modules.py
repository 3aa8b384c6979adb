"""Modules (dsl/LANGUAGE.md section 10; issue #16 item 9): content switched on by name.

The test pack tests/packs/modules holds a small scenario, Lakeside Camp (a canoe, its rules group
'canoe', a pier path), and the module 'motorboat', which replaces the canoe and its rules group,
adds an item to the piles and an action, and removes an event and a market card at setup — the
shape of the Vehicles module (docs/rules.md V1: the module's vehicle replaces the scenario's own
vehicle item and its rules; a vehicle item of a deck is removed at setup).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import L, make_work, need, settle, victims_at
from lastbreath.dsl import RulesError, SaveError, bundled_paths, load_content, load_ruleset
from lastbreath.dsl.modules import game_content
from lastbreath.interpreter import engine, replay, serialize
from lastbreath.interpreter.api import new_game, play, random_policy
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.serve import Server
from lastbreath.interpreter.session import Session

PACK = Path(__file__).resolve().parent / "packs" / "modules"
SCENARIO = "lakeside-camp"
MODULE = "motorboat"
pytestmark = pytest.mark.usefixtures("bundled_parse_cache")


@pytest.fixture(scope="module")
def prs():
    """The bundled content with the test pack."""
    return load_ruleset([*bundled_paths(), PACK])


def _game(prs, modules=(MODULE,), seed=1, **kw):
    state, _events = new_game(prs, scenario=SCENARIO, seed=seed, modules=modules, **kw)
    return state


def _load(tmp_path: Path, text: str, with_pack: bool = True):
    """The bundled content, the test pack and a pack 'extra' that builds on it, holding ``text``."""
    folder = tmp_path / "extra"
    folder.mkdir(exist_ok=True)
    (folder / "pack.fg").write_text(f'pack extra {{ name "Extra"; depends core{" module-test" * with_pack} }}\n',
                                    encoding="utf-8")
    (folder / "extra.fg").write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), *([PACK] if with_pack else []), folder])


def _codes(diags) -> list[str]:
    return [d.code for d in diags]


# --- the test pack -------------------------------------------------------------------------------
def test_the_test_pack_checks_clean_and_declares_the_module(prs):
    rs, diags = load_content([*bundled_paths(), PACK])
    assert diags == [] and rs is not None
    # the pack's module, beside the bundled one (the Vehicles module, V1-V9)
    assert set(prs.modules) == {MODULE, "vehicles"} and prs.pack("modules", MODULE) == "module-test"
    assert prs.modules[MODULE].name == "Motorboat"


def test_check_counts_the_modules(capsys):
    assert main(["check", "--content", str(PACK)]) == 0
    assert ", 2 modules; packs: core, module-test" in capsys.readouterr().err  # the bundled one too


def test_modules_are_off_unless_switched_on(prs):
    """Without --module the scenario is played as written: its canoe, its rules, its event and
    the market card the module removes; the setup names no modules (saves as before)."""
    st = _game(prs, modules=())
    g = st.game
    assert g.modules == () and "modules" not in g.ids
    assert g.items["canoe"].name == "Canoe" and "fuel-can" not in g.items
    assert [x.followers for x in g.scenario.links] == [-1] and not g.actions
    assert "calm-water" in g.events and "planning" in g.cards


def test_V1_a_module_replaces_the_scenarios_item_by_id(prs):
    """V1: the module's vehicle replaces the scenario's own vehicle item: same id, the module's card."""
    st = _game(prs)
    g = st.game
    assert g.items["canoe"].name == "Motorboat" and g.items["canoe"].owner == SCENARIO
    assert [it.name for it in g.scenario.items if it.id == "canoe"] == ["Motorboat"]
    w = make_work(st)
    engine.gain_item(w, "canoe", "")
    assert "boat-found" in w.flags and "canoe-found" not in w.flags
    assert "gains Motorboat" in [e.text for e in w.ctl.events]
    # the ruleset itself is untouched: a game without the module still has the canoe
    assert prs.items["canoe"].name == "Canoe" and _game(prs, modules=()).game.items["canoe"].name == "Canoe"


def test_V1_a_module_replaces_a_rules_group_of_the_scenario(prs):
    """V1: the module's vehicle rules replace the scenario's own (its rules group 'canoe'): the
    link now needs the motorboat and leaves the victims behind; the group's trigger is in play."""
    st = _game(prs)
    g = st.game
    assert [(x.tag, x.followers) for x in g.scenario.links] == [("lake", 0)]
    assert [grp.id for grp in g.scenario.groups] == ["canoe"] and len(g.scenario.abilities.triggers) == 1
    s = settle(st, fg_loc=L(st, "boathouse"), victims=victims_at(st, boathouse=2), flags=frozenset({"boat-found"}))
    w = make_work(s, ["move:far-shore"])
    engine.move_fg(w, 1)  # no 'follow' choice: no victim may follow by boat
    assert w.fg_loc == L(st, "far-shore") and w.victims[L(st, "boathouse")] == 2
    # the scenario's own rule (the canoe's flag) moves her no more
    c = need(make_work(settle(s, flags=frozenset({"canoe-found"}))), engine.move_fg, 1)
    assert "move:far-shore" not in c.keys()
    # the group's new trigger: crossing the pier gains her 1 time (not in the game without the module)
    for mods, gained in (((MODULE,), 1), ((), 0)):
        base = _game(prs, modules=mods)
        w = make_work(settle(base, fg_loc=L(base, "boathouse"), victims=victims_at(base), time=2), ["move:dock"])
        engine.move_fg(w, 1)
        assert w.fg_loc == L(base, "dock") and w.time == 2 + gained


def test_the_scenarios_own_rules_group_is_in_play_without_the_module(prs):
    """A 'rules ID { … }' group is the host's own lines under an id: in play as if written outside it."""
    st = _game(prs, modules=())
    s = settle(st, fg_loc=L(st, "boathouse"), victims=victims_at(st, boathouse=2), flags=frozenset({"canoe-found"}))
    c = need(make_work(s, ["move:far-shore"]), engine.move_fg, 1)
    assert c.kind == "follow" and c.keys() == ["follow:2", "follow:1", "follow:0"]


def test_a_module_adds_an_item_to_the_piles_and_an_action(prs):
    st = _game(prs)
    g = st.game
    assert "fuel-can" in g.items and "fuel-can" in [it.id for it in g.scenario.items]
    dealt = {c for seed in range(12) for pile in _game(prs, seed=seed).piles for c, _up in pile}
    assert "fuel-can" in dealt  # it is shuffled into the piles like the scenario's own items
    s = settle(st, phase="action", sub=1, fg_loc=L(st, "dock"), flags=frozenset({"boat-found"}))
    assert "action:start-engine" in need(make_work(s), engine.step_action).keys()
    s = settle(s, fg_loc=L(st, "cabins"))  # its condition: at a lake location
    assert "action:start-engine" not in need(make_work(s), engine.step_action).keys()


def test_V1_a_module_removes_an_event_and_a_market_card_at_setup(prs):
    """V1 (an item drawn from a deck removed at setup): removed parts are in no deck of the game."""
    for seed in range(6):
        st = _game(prs, seed=seed)
        assert "calm-water" not in st.events and "calm-water" not in st.events_active
        assert "planning" not in (*st.hand, *st.market)
    g = _game(prs).game
    assert "calm-water" not in g.events and "planning" not in g.cards
    assert "planning" in _game(prs, modules=()).market


def test_a_module_only_changes_the_scenario_it_names(prs):
    st, _ = new_game(prs, scenario="storybook-woods", seed=1, modules=[MODULE])
    assert st.game.modules == (MODULE,) and "planning" in st.market  # its section is not for this scenario
    assert "fuel-can" not in [it.id for it in st.game.scenario.items]


# --- games, saves, replays -----------------------------------------------------------------------
def test_a_game_with_a_module_replays_from_its_save(prs):
    s = Session(prs, scenario=SCENARIO, seed=5, modules=[MODULE])
    bot = random_policy(5)
    for _ in range(40):
        if s.over:
            break
        s.apply(bot(s.state, s.choice))
    data = json.loads(json.dumps(s.save()))
    assert data["game"]["modules"] == [MODULE] and data["snapshot"]["game"]["modules"] == [MODULE]
    again = Session.load(prs, data)  # replayed, and checked against the snapshot
    assert serialize.to_json(again.state) == serialize.to_json(s.state) and again.options["modules"] == [MODULE]
    snap = serialize.to_json(s.state)
    assert serialize.to_json(serialize.from_json(prs, snap)) == snap


def test_a_save_made_with_a_module_that_is_not_loaded_is_a_clear_save_error(prs, rs):
    data = Session(prs, scenario=SCENARIO, seed=2, modules=[MODULE]).save()
    with pytest.raises(SaveError, match="played with the module 'motorboat', which is not loaded"):
        Session.load(rs, data)
    with pytest.raises(SaveError, match="module 'motorboat', which is not loaded"):
        serialize.from_json(rs, data["snapshot"])
    bad = {**data, "game": {**data["game"], "modules": "motorboat"}}
    with pytest.raises(SaveError, match="modules"):
        replay.replay(prs, bad)


def test_games_with_the_module_play_to_the_end_deterministically(prs):
    ends = [play(_game(prs, seed=seed), random_policy(seed)) for seed in range(4)]
    assert all(st.over for st in ends)
    again = [play(_game(prs, seed=seed), random_policy(seed)) for seed in range(4)]
    assert [(a.result, a.round) for a in ends] == [(b.result, b.round) for b in again]


# --- switching modules on: API, Session, protocol ------------------------------------------------
def test_an_unknown_module_is_a_rules_error_naming_the_known_ones(prs):
    with pytest.raises(RulesError, match=r"unknown module 'motorbot' \(did you mean 'motorboat'\?"):
        new_game(prs, modules=["motorbot"])
    with pytest.raises(RulesError, match="known modules: motorboat"):
        Session(prs, modules=["sidecar"])
    with pytest.raises(RulesError, match="list of module ids"):
        new_game(prs, modules="motorboat")
    with pytest.raises(RulesError, match="id string"):
        new_game(prs, modules=[7])


def test_modules_are_recorded_in_id_order_once(prs):
    st = _game(prs, modules=[MODULE, MODULE])
    assert st.game.modules == (MODULE,) and st.game.ids["modules"] == [MODULE]


def test_protocol_game_new_takes_modules_and_content_list_lists_them(prs):
    server = Server(prs)

    def call(method, params):
        return json.loads(server.handle_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                                                         "params": params})))

    listed = call("content.list", {})["result"]["modules"]
    assert [m["id"] for m in listed] == [MODULE, "vehicles"] and listed[0]["pack"] == "module-test"
    assert "replaces the item 'canoe' in scenario 'lakeside-camp'" in listed[0]["changes"]
    got = call("game.new", {"scenario": SCENARIO, "seed": 3, "modules": [MODULE]})["result"]
    assert got["setup"]["modules"] == [MODULE]
    bad = call("game.new", {"modules": ["motorbot"]})["error"]
    assert bad["code"] == 1002 and "did you mean 'motorboat'" in bad["message"]
    assert call("game.new", {"modules": "motorboat"})["error"]["code"] == -32602


# --- the checker ---------------------------------------------------------------------------------
def test_replacing_or_removing_what_is_not_there_is_E230_with_did_you_mean(tmp_path):
    _rs, diags = _load(tmp_path, """\
module broken {
  name "Broken"
  for scenario lakeside-camp {
    replace item cannoe { name "Kayak" }
    remove event calm-waters
  }
  for every killer { remove finale no-such-finale }
  replace card wlak { name "Walk"; cost 0; fail { } }
}
""")
    got = {(d.code, d.span.line): d.format() for d in diags}
    assert set(got) == {("E230", 4), ("E230", 5), ("E230", 7), ("E230", 8)}, got
    assert "no item 'cannoe'" in got[("E230", 4)] and "did you mean 'canoe'?" in got[("E230", 4)]
    assert "did you mean 'calm-water'?" in got[("E230", 5)]
    assert "no killer has a finale 'no-such-finale'" in got[("E230", 7)]
    assert "did you mean 'walk'?" in got[("E230", 8)]


def test_a_section_naming_an_unknown_scenario_is_E204(tmp_path):
    _rs, diags = _load(tmp_path, 'module m { name "M"; for scenario lakeside-cmap { rule dice +1 } }\n')
    assert _codes(diags) == ["E204"] and "did you mean 'lakeside-camp'?" in diags[0].format()


def test_module_lines_use_the_names_of_the_scenario_as_the_module_leaves_it(tmp_path):
    """A module's lines are checked in each scenario its section changes, with what it adds: a
    token it declares is known to its actions there, a location of another scenario is not."""
    _rs, diags = _load(tmp_path, """\
module lanterns {
  name "Lanterns"
  for scenario lakeside-camp {
    token lantern { name "Lantern"; kinds lit; supply lit 2 }
    action light { name "Light"; if token lantern at here; time 1; effect { collect token lantern at here } }
    when game starts { place token lantern at dock }
    action wade { name "Wade"; time 1; effect { move killer to millpond } }
  }
}
""")
    assert [(d.code, d.span.line) for d in diags] == [("E204", 7)]
    assert "unknown location 'millpond'" in diags[0].message


def test_a_module_that_breaks_its_scenario_is_told_so(tmp_path):
    _rs, diags = _load(tmp_path, """\
module islands {
  name "Islands"
  for scenario lakeside-camp { location islet { name "Islet" }; remove setup first-night; remove setup last-night }
}
""")
    msgs = sorted(d.message for d in diags)
    assert any("with the module 'islands': location 'islet' cannot be reached" in m for m in msgs), msgs
    assert any("has no setup card left" in m for m in msgs), msgs


def test_two_modules_that_replace_the_same_item_warn_and_cannot_be_played_together(tmp_path):
    rs, diags = _load(tmp_path, """\
module kayak {
  name "Kayak"
  for scenario lakeside-camp { replace item canoe { name "Kayak"; keep } }
}
""")
    assert rs is not None and _codes(diags) == ["W230"]
    assert "'kayak' and 'motorboat' both replace or remove the item 'canoe'" in diags[0].message
    new_game(rs, scenario=SCENARIO, modules=["kayak"])  # each alone is fine
    with pytest.raises(RulesError, match="cannot be played together"):
        new_game(rs, scenario=SCENARIO, modules=["kayak", MODULE])
    new_game(rs, scenario="storybook-woods", modules=["kayak", MODULE])  # neither changes this scenario's canoe


def test_a_module_that_changes_one_thing_twice_is_E206(tmp_path):
    _rs, diags = _load(tmp_path, """\
module twice {
  name "Twice"
  for every scenario { remove item oar }
  for scenario lakeside-camp { replace item oar { name "Paddle"; weapon hands 2 range 0 bonus 1 } }
}
""")
    assert _codes(diags) == ["E206"] and diags[0].span.line == 4


def test_a_module_uses_only_the_scenarios_of_the_packs_it_depends_on(tmp_path):
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "m.fg").write_text('module m { name "M"; for scenario lakeside-camp { rule dice +1 } }\n',
                                 encoding="utf-8")
    _rs, diags = load_content([*bundled_paths(), PACK, folder])
    assert _codes(diags) == ["E212"] and "'lakeside-camp' comes from pack 'module-test'" in diags[0].message


def test_a_module_adds_new_ids_only(tmp_path):
    _rs, diags = _load(tmp_path, 'module m { name "M"; item canoe { name "Canoe two" } }\n')
    assert _codes(diags) == ["E203"] and "write 'replace item canoe { … }'" in diags[0].format()


def test_a_module_cannot_change_a_scenarios_own_lines(tmp_path):
    _rs, diags = _load(tmp_path, 'module m { name "M"; for scenario lakeside-camp { name "Lake" } }\n')
    assert _codes(diags) == ["E201"] and "cannot change a scenario's 'name' line" in diags[0].message


# --- every scenario, killers, named decks ----------------------------------------------------------
def test_a_section_for_every_scenario_and_for_a_killer(tmp_path):
    rs, diags = _load(tmp_path, """\
module dread {
  name "Dread"
  about "Every scenario gets colder; the wolf loses a finale and gains a terror card."
  for every scenario { rule dice -1; at start of upkeep { lower fear 1 } }
  for killer big-bad-wolf {
    remove finale at-your-door
    terror long-howl { name "A Long Howl"; effect { raise fear 1 } }
  }
  remove card sprint
}
""", with_pack=False)
    assert diags == [] and rs is not None
    for scenario in ("storybook-woods", "wolfe-asylum"):
        c = game_content(rs, rs.killers["big-bad-wolf"], rs.scenarios[scenario], ["dread"])
        base = rs.scenarios[scenario]
        assert len(c.scenario.abilities.rules) == len(base.abilities.rules) + 1
        assert [f.id for f in c.killer.finales] == [f.id for f in rs.killers["big-bad-wolf"].finales
                                                     if f.id != "at-your-door"]
        assert "long-howl" in [t.id for t in c.killer.terror] and "sprint" not in c.cards
    st, _ = new_game(rs, killer="big-bad-wolf", seed=4, modules=["dread"])
    assert st.finale != "at-your-door" and "sprint" not in st.market and "long-howl" in st.game.terror
    other = game_content(rs, rs.killers["zombies"], rs.scenarios["wolfe-asylum"], ["dread"])
    assert "long-howl" not in [t.id for t in other.killer.terror]


def test_a_module_removes_a_card_from_a_named_deck(tmp_path):
    rs, diags = _load(tmp_path, """\
scenario tiny-woods {
  name "Tiny Woods"
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
  deck omens { name "Omens"; card crow { name "Crow"; effect { raise fear 1 } }; card dove { name "Dove"; effect { lower fear 1 } } }
}
module no-crows { name "No Crows"; for scenario tiny-woods { remove card crow from omens } }
""", with_pack=False)
    assert diags == [] and rs is not None
    st, _ = new_game(rs, scenario="tiny-woods", seed=1, modules=["no-crows"])
    assert dict(st.decks)["omens"] == ("dove",)
    st, _ = new_game(rs, scenario="tiny-woods", seed=1)
    assert sorted(dict(st.decks)["omens"]) == ["crow", "dove"]


# --- the command line ----------------------------------------------------------------------------
def test_simulate_and_fuzz_with_the_module_play_full_games_without_errors(capsys):
    """The acceptance check of the test pack: a few deterministic games under simulate and fuzz."""
    args = ["--content", str(PACK), "--scenario", SCENARIO, "--module", MODULE, "--games", "4", "--jobs", "1",
            "--no-progress", "--json"]
    assert main(["simulate", *args, "--killer", "big-bad-wolf"]) == 0
    sim = json.loads(capsys.readouterr().out)
    assert sim["games"] == 4 and sim["errors"] == 0 and sim["modules"] == [MODULE]
    assert main(["fuzz", *args]) == 0
    fz = json.loads(capsys.readouterr().out)
    assert fz["clean"] and fz["games"] == 4 and fz["modules"] == [MODULE] and fz["transitions"] > 0


def test_play_with_a_module_saves_it_and_replay_reads_it(tmp_path, capsys):
    save = tmp_path / "g.json"
    assert main(["play", "--content", str(PACK), "--scenario", SCENARIO, "--module", MODULE, "--bot", "random",
                 "--seed", "3", "--save", str(save)]) == 0
    out = capsys.readouterr().out
    assert "in Lakeside Camp (normal, module motorboat)" in out
    assert main(["replay", "--content", str(PACK), str(save)]) == 0
    assert capsys.readouterr().out == out
    assert main(["replay", str(save)]) == 1
    assert "module 'motorboat', which is not loaded" in capsys.readouterr().err
    assert main(["play", "--content", str(PACK), "--load", str(save), "--module", MODULE]) == 2
    assert "leave out --module" in capsys.readouterr().err


def test_an_unknown_module_on_the_command_line_lists_the_known_ones(capsys):
    assert main(["play", "--content", str(PACK), "--module", "motorbot", "--bot", "random"]) == 2
    err = capsys.readouterr().err
    assert "unknown module 'motorbot' for --module (did you mean 'motorboat'? known: motorboat, vehicles)" in err
    assert main(["fuzz", "--module", "sidecar", "--games", "1"]) == 2
    assert "unknown module 'sidecar' for --module (known: vehicles)" in capsys.readouterr().err


def test_content_lists_the_modules_with_what_they_change(capsys):
    assert main(["content", "--content", str(PACK), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (m,) = [m for m in data["modules"] if m["pack"] != "core"]  # (the bundled modules beside it)
    assert (m["id"], m["name"], m["pack"]) == (MODULE, "Motorboat", "module-test")
    assert m["about"].startswith("The camp's canoe becomes a motorboat")
    assert m["changes"] == [
        "replaces the item 'canoe' in scenario 'lakeside-camp'",
        "replaces the rules group 'canoe' in scenario 'lakeside-camp'",
        "removes the event 'calm-water' in scenario 'lakeside-camp'",
        "removes the card 'planning' in scenario 'lakeside-camp'",
        "adds the item 'fuel-can' to scenario 'lakeside-camp'",
        "adds the action 'start-engine' to scenario 'lakeside-camp'",
    ]
    assert main(["content", "--content", str(PACK)]) == 0
    out = capsys.readouterr().out
    assert "module      motorboat" in out and "    removes the card 'planning' in scenario 'lakeside-camp'" in out
    assert "(no modules)" not in out


def test_help_documents_the_module_flag(capsys):
    for cmd in ("play", "simulate", "fuzz"):
        assert main([cmd, "--help"]) == 0
        assert "--module ID" in capsys.readouterr().out


def test_render_shows_a_module(capsys):
    assert main(["render", "--content", str(PACK), MODULE]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Motorboat (module motorboat; off unless switched on: --module motorboat)")
    assert "Replace the item [canoe] with:" in out and "Remove the card [planning] at setup." in out


def test_replay_takes_the_modules_from_the_save(tmp_path, capsys):
    save = tmp_path / "g.json"
    assert main(["play", "--content", str(PACK), "--scenario", SCENARIO, "--module", MODULE, "--bot", "first",
                 "--seed", "2", "--save", str(save)]) == 0
    capsys.readouterr()
    assert main(["replay", "--content", str(PACK), "--module", MODULE, str(save)]) == 0
    assert "module motorboat" in capsys.readouterr().out
    assert main(["replay", "--content", str(PACK), "--module", "other", str(save)]) == 2
    assert "the save names the modules of its game (motorboat)" in capsys.readouterr().err


def test_a_position_switches_modules_on(prs):
    """A ruling about a module's rules (the Vehicles module, V1–V9) starts from a position naming it."""
    from lastbreath.interpreter.api import position
    from lastbreath.interpreter.rulings import check_text

    text = "position {\n  scenario lakeside-camp\n  modules motorboat\n  seed 4\n  fg at dock\n" \
        "  flags boat-found\n  phase action\n}\n"
    st = position(prs, text)
    assert st.game.modules == (MODULE,) and "action:start-engine" in st.choice.keys()
    bad = check_text(prs, text.replace("motorboat", "motorbaot"), "x.position")
    assert [d.code for d in bad] == ["E402"] and "did you mean 'motorboat'" in bad[0].format()
