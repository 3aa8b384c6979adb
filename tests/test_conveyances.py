"""Pieces that travel with her (issue #33 item 2; docs/rules.md V4, V5, V7, V8, V9, S1.7;
dsl/LANGUAGE.md section 6i): a scenario's ``conveyance`` goes with the Final Girl when she moves
away from where it stands (always, or when she takes it), to the places it may enter, along no path
it never crosses, while she holds what it needs; victims follow on foot or ride with it.

The pack tests/packs/conveyances is a depot with a handcart (taken, outdoor only, never along the
narrow path, three riders, a key) and a trolley (always, anywhere); its rulings
(tests/packs/conveyances/rulings) set positions with the pieces placed and read where they stand.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fx, make_work, need, settle
from lastbreath.dsl import SaveError, bundled_paths, load_content, load_ruleset
from lastbreath.interpreter import engine, rulings, serialize, validate
from lastbreath.interpreter.api import apply, new_game
from lastbreath.interpreter.bots import greedy_policy, random_policy
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.position import position
from lastbreath.interpreter.screen import map_rows, map_text, status_facts

PACK = Path(__file__).resolve().parent / "packs" / "conveyances"


@pytest.fixture(scope="module")
def rs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def depot(rs):
    state, _ = new_game(rs, scenario="cv-depot", seed=1)
    return state


def L(state, lid: str) -> int:
    return state.game.board.index[lid]


def at(state, **places):
    """The conveyances tuple with these pieces where named (cv_cart="cv-yard"; None: off the board)."""
    g = state.game
    out = list(state.conveyances)
    for name, where in places.items():
        out[g.conveyance_index[name.replace("_", "-")]] = -1 if where is None else L(state, where)
    return tuple(out)


def _victims(state, **where: int) -> tuple[int, ...]:
    v = [0] * state.game.board.n
    for lid, k in where.items():
        v[L(state, lid.replace("_", "-"))] = k
    return tuple(v)


def _stage(state, fg: str, answers=(), **fields):
    """A working copy with her at ``fg``, the killer in the loft and no victims unless given."""
    base = {"victims": _victims(state), "killers": (engine.evolve_killer(state.killers[0], loc=L(state, "cv-loft")),)}
    base.update(fields)
    return make_work(settle(state, fg_loc=L(state, fg), **base), answers)


def _keys(choice) -> list[str]:
    return [o.key for o in choice.options]


def _labels(choice) -> dict[str, str]:
    return {o.key: o.label for o in choice.options}


# --- how she takes it along ---------------------------------------------------------------------------
def test_V4_she_takes_the_handcart_along_or_leaves_it_behind(depot):
    """V4: with the handcart where she stands, each destination it may reach is offered twice: with it
    and without it; without it the handcart stays behind."""
    w = _stage(depot, "cv-gate", conveyances=at(depot, cv_cart="cv-gate", cv_trolley="cv-shed"))
    choice = need(w, engine.move_fg, 1)
    labels = _labels(choice)
    assert labels["move:cv-yard:cv-cart"] == "move to Yard with the Handcart"
    assert labels["move:cv-yard"] == "move to Yard"
    w = _stage(depot, "cv-gate", ["move:cv-yard:cv-cart"], conveyances=at(depot, cv_cart="cv-gate"))
    engine.move_fg(w, 1)
    assert w.fg_loc == L(depot, "cv-yard") and w.conveyances == at(depot, cv_cart="cv-yard")
    assert ("the Handcart goes with her", "V4") in [(e.text, e.rule) for e in w.ctl.events]
    w = _stage(depot, "cv-gate", ["move:cv-yard"], conveyances=at(depot, cv_cart="cv-gate"))
    engine.move_fg(w, 1)
    assert w.fg_loc == L(depot, "cv-yard") and w.conveyances == at(depot, cv_cart="cv-gate")


def test_V7_it_enters_only_the_tagged_locations_and_V5_never_crosses_its_banned_path(depot):
    """V7: the handcart keeps to outdoor locations (not the shed); V5: never along the narrow path
    (not to the dock from the yard, though the dock is outdoors). Those moves are offered without it
    only: the menu never offers a move the piece cannot make."""
    w = _stage(depot, "cv-yard", conveyances=at(depot, cv_cart="cv-yard"))
    keys = _keys(need(w, engine.move_fg, 1))
    assert "move:cv-gate:cv-cart" in keys
    assert "move:cv-shed" in keys and "move:cv-shed:cv-cart" not in keys  # indoor (V7)
    assert "move:cv-dock" in keys and "move:cv-dock:cv-cart" not in keys  # the narrow path (V5)
    w = _stage(depot, "cv-gate", conveyances=at(depot, cv_cart="cv-gate"))
    assert "move:cv-dock:cv-cart" in _keys(need(w, engine.move_fg, 1))  # the dock along the open road


def test_V9_the_trolley_goes_always_wherever_she_goes(depot):
    """V9: a piece that goes always needs no choice: her move takes it along, through the crawlway
    too, and the option says so."""
    w = _stage(depot, "cv-shed", ["move:cv-loft"], conveyances=at(depot, cv_trolley="cv-shed"))
    choice = need(_stage(depot, "cv-shed", conveyances=at(depot, cv_trolley="cv-shed")), engine.move_fg, 1)
    assert _labels(choice)["move:cv-loft"] == "move to Loft with the Trolley"
    assert not any(k.count(":") > 1 for k in _keys(choice))
    fear = w.fear
    engine.move_fg(w, 1)
    assert w.conveyances == at(depot, cv_trolley="cv-loft")
    assert w.fear == fear - 1  # 'when cv-trolley crosses crawlway { lower fear 1 }'


def test_a_piece_that_goes_always_says_where_it_stays(tmp_path, rs):
    """A piece that goes always and may not go somewhere stays there; the option says it."""
    text = (PACK / "yard.fg").read_text(encoding="utf-8").replace(
        "conveyance cv-trolley { name \"Trolley\"; start at cv-shed; goes always; victims follow on foot }",
        "conveyance cv-trolley { name \"Trolley\"; start at cv-shed; goes always; enters tag indoor }")
    assert "enters tag indoor" in text
    (tmp_path / "yard.fg").write_text(text, encoding="utf-8")
    (tmp_path / "pack.fg").write_text((PACK / "pack.fg").read_text(encoding="utf-8"), encoding="utf-8")
    rs2 = load_ruleset([*bundled_paths(), tmp_path])
    st, _ = new_game(rs2, scenario="cv-depot", seed=1)
    w = _stage(st, "cv-shed", ["move:cv-yard"], conveyances=at(st, cv_trolley="cv-shed"))
    labels = _labels(need(_stage(st, "cv-shed", conveyances=at(st, cv_trolley="cv-shed")), engine.move_fg, 1))
    assert labels["move:cv-yard"] == "move to Yard (the Trolley stays here)"
    assert labels["move:cv-loft"] == "move to Loft with the Trolley"
    engine.move_fg(w, 1)
    assert w.fg_loc == L(st, "cv-yard") and w.conveyances == at(st, cv_trolley="cv-shed")


def test_S1_7_without_the_item_it_needs_it_stays_where_it_stands(depot):
    """S1.7: the handcart needs its key: without it she is not offered it, and it stays."""
    w = _stage(depot, "cv-gate", held=(), pack=(), conveyances=at(depot, cv_cart="cv-gate", cv_trolley="cv-shed"))
    keys = _keys(need(w, engine.move_fg, 1))
    assert not any(k.endswith(":cv-cart") for k in keys)
    assert keys == ["stop", "move:cv-yard", "move:cv-dock"]  # the plain menu, as with no piece at all


# --- victims with it -------------------------------------------------------------------------------------
def test_V4_up_to_three_ride_with_the_handcart_whatever_the_lane_lets_follow(depot):
    """The lane lets one victim follow (a 'followers at most 1' rule, S4.2); three ride with the
    handcart; without it, one follows."""
    v = _victims(depot, cv_gate=4)
    w = _stage(depot, "cv-gate", ["move:cv-yard:cv-cart"], victims=v, conveyances=at(depot, cv_cart="cv-gate"))
    choice = need(w, engine.move_fg, 1)
    assert choice.kind == "follow" and _keys(choice) == ["follow:3", "follow:2", "follow:1", "follow:0"]
    w = _stage(depot, "cv-gate", ["move:cv-yard"], victims=v, conveyances=at(depot, cv_cart="cv-gate"))
    assert _keys(need(w, engine.move_fg, 1)) == ["follow:1", "follow:0"]
    w = _stage(depot, "cv-gate", ["move:cv-yard:cv-cart", "follow:3"], victims=v,
               conveyances=at(depot, cv_cart="cv-gate"))
    engine.move_fg(w, 1)
    assert w.victims[L(depot, "cv-yard")] == 3 and w.victims[L(depot, "cv-gate")] == 1


def test_V8_no_victim_rides_and_riders_never_go_into_a_killers_location(tmp_path):
    """V8: 'victims ride 0': none follows her as she takes it; riders never follow into a killer's
    location (C5.3)."""
    text = (PACK / "yard.fg").read_text(encoding="utf-8").replace("victims ride 3", "victims ride 0")
    (tmp_path / "yard.fg").write_text(text, encoding="utf-8")
    rs2 = load_ruleset([*bundled_paths(), tmp_path])
    st, _ = new_game(rs2, scenario="cv-depot", seed=1)
    v = _victims(st, cv_gate=2)
    w = _stage(st, "cv-gate", ["move:cv-yard:cv-cart"], victims=v, conveyances=at(st, cv_cart="cv-gate"))
    engine.move_fg(w, 1)  # no follow choice: none may
    assert w.fg_loc == L(st, "cv-yard") and w.victims[L(st, "cv-gate")] == 2
    w = _stage(st, "cv-gate", ["move:cv-yard"], victims=v, conveyances=at(st, cv_cart="cv-gate"))
    assert need(w, engine.move_fg, 1).kind == "follow"  # on foot, without it, one may
    killer_there = (engine.evolve_killer(st.killers[0], loc=L(st, "cv-yard")),)
    w = _stage(st, "cv-gate", ["move:cv-yard:cv-cart"], victims=v, killers=killer_there,
               conveyances=at(st, cv_cart="cv-gate"))
    engine.move_fg(w, 1)
    assert w.victims[L(st, "cv-gate")] == 2


# --- its events and effects -------------------------------------------------------------------------------
def test_a_prevented_conveyance_stays_and_she_goes_on_with_her_victims_on_foot(depot):
    """'prevent cv-trolley enters cv-gate': the trolley stays at the dock; she moves to the gate."""
    w = _stage(depot, "cv-dock", ["move:cv-gate"], flags=frozenset({"cv-barred"}),
               conveyances=at(depot, cv_trolley="cv-dock", cv_cart="cv-yard"))
    engine.move_fg(w, 1)
    assert w.fg_loc == L(depot, "cv-gate") and w.conveyances == at(depot, cv_trolley="cv-dock", cv_cart="cv-yard")
    assert "the Trolley entering Gate is prevented" in [e.text for e in w.ctl.events]


def test_move_id_to_place_puts_it_there_and_its_events_answer(depot):
    """'move ID to PLACE': at once, along no path, from off the board too; 'ID at PLACE' reads it;
    'when cv-cart enters cv-dock { gain 1 time }' answers."""
    w = _stage(depot, "cv-gate", conveyances=at(depot, cv_cart=None), time=3)
    engine.run(w, fx("move cv-cart to cv-dock"), Ctx())
    assert w.conveyances == at(depot, cv_cart="cv-dock") and w.time == 4
    assert ("the Handcart is moved to Dock", "C1.2") in [(e.text, e.rule) for e in w.ctl.events]
    engine.run(w, fx("if cv-cart at cv-dock { set flag seen }\nif cv-cart at here { set flag with-her }"), Ctx())
    assert "seen" in w.flags and "with-her" not in w.flags
    engine.run(w, fx("move cv-cart to cv-dock"), Ctx())
    assert w.ctl.events[-1].text == "the Handcart is at Dock already"
    engine.run(w, fx("move cv-cart to (exit with minions)"), Ctx())  # a selector that matches nothing
    assert w.conveyances == at(depot, cv_cart="cv-dock")


def test_the_events_of_a_conveyance_are_watched_only_where_content_answers_them(depot, rs):
    """Only the kinds of piece content answers moves for are asked (Game.movers_watched): the pack
    answers the conveyances' moves, not the victims' or the minions'."""
    assert depot.game.movers_watched == frozenset({"conveyance"})
    plain, _ = new_game(rs, scenario="storybook-woods", seed=1)
    assert plain.game.conveyances == () and plain.conveyances == ()
    assert "conveyance" not in plain.game.movers_watched


# --- state: saves, validation, the screen, positions --------------------------------------------------
def test_a_save_keeps_where_the_pieces_stand_and_validate_bounds_it(depot):
    s = settle(depot, conveyances=at(depot, cv_cart="cv-yard", cv_trolley=None))
    data = serialize.to_json(s)
    assert data["state"]["conveyances"] == [L(depot, "cv-yard"), -1]
    validate.check_values(s)
    for bad in ((0,), (0, 99), (0, -2), (0, "1")):
        with pytest.raises(SaveError, match="conveyances"):
            validate.check_values(engine.replace(s, conveyances=bad))
    game = load_ruleset()  # a game without them keeps none, and a save of one has no such field
    plain, _ = new_game(game, seed=1)
    assert "conveyances" not in serialize.to_json(plain)["state"]
    with pytest.raises(SaveError, match="conveyances"):
        validate.check_values(engine.replace(plain, conveyances=(0,)))


def test_saves_round_trip_a_game_played_with_conveyances(depot):
    state = depot
    bot = random_policy(4)
    for _ in range(60):
        if state.over:
            break
        again = serialize.from_json(depot.game.ruleset, serialize.to_json(state))
        assert again.conveyances == state.conveyances
        state, _ = apply(state, bot(state, state.choice))


def test_the_screen_and_the_map_show_where_each_piece_stands(depot):
    s = settle(depot, conveyances=at(depot, cv_cart="cv-yard", cv_trolley=None))
    facts = dict(status_facts(s))
    assert facts["Handcart"] == "at Yard (goes with you when you take it; needs Cart Key)"
    assert facts["Trolley"] == "off the board (goes with you always)"
    rows = {r.name: r.here for r in map_rows(s)}
    assert "Handcart" in rows["Yard"] and "Trolley" not in " ".join(rows.values())
    assert "Handcart" in map_text(s)


def test_a_position_places_a_piece_and_a_ruling_reads_it(rs):
    """Position lines place it ('conveyance ID at LOCATION', '… off board'); the pack's rulings play
    from such positions (V4, V5, V7, V9, S1.7)."""
    st = position(rs, "position { scenario cv-depot; conveyance cv-cart at cv-dock; conveyance cv-trolley off board }")
    assert st.conveyances == at(st, cv_cart="cv-dock", cv_trolley=None)
    outcomes, diags, sources = rulings.verify(rs, sorted((PACK / "rulings").glob("*.ruling")))
    assert diags == [] and len(outcomes) == 3 and all(o.ok for o in outcomes), [o for o in outcomes if not o.ok]


@pytest.mark.parametrize(("line", "message"), [
    ("conveyance cv-barrow at cv-dock", "unknown conveyance"),
    ("conveyance cv-cart at nowhere", "unknown location"),
    ("conveyance cv-cart beside cv-dock", "unknown word"),
    ("conveyance cv-cart at cv-dock; conveyance cv-cart off board", "given twice"),
])
def test_a_position_refuses_a_wrong_conveyance_line(rs, line, message):
    from lastbreath.dsl import ContentError

    with pytest.raises(ContentError) as ei:
        position(rs, f"position {{ scenario cv-depot; {line} }}")
    assert any(message in d.message for d in ei.value.diagnostics), [d.message for d in ei.value.diagnostics]


# --- the bots ---------------------------------------------------------------------------------------------
def test_the_bots_see_the_new_options_and_take_the_piece_along(depot):
    """The random bot picks among them; the greedy bot, between a move with the piece and the same
    move without it, takes it along."""
    w = _stage(depot, "cv-gate", conveyances=at(depot, cv_cart="cv-gate"))
    choice = need(w, engine.move_fg, 1)
    st = settle(depot, fg_loc=L(depot, "cv-gate"), conveyances=at(depot, cv_cart="cv-gate"))
    picked = {random_policy(seed)(st, choice) for seed in range(40)}
    assert any(k.endswith(":cv-cart") for k in picked)
    greedy = greedy_policy(1)(st, choice)
    assert greedy == "stop" or greedy.endswith(":cv-cart")


# --- the pack plays clean ----------------------------------------------------------------------------------
def test_the_conveyances_pack_plays_whole_games_and_passes_the_fuzzer(rs):
    from lastbreath.interpreter.fuzz import run_fuzz
    from lastbreath.interpreter.simulate import run_games

    for bot in ("random", "greedy"):
        records = run_games(rs, {"killer": "big-bad-wolf", "scenario": "cv-depot"}, 10, 0, bot)
        assert all(not r.error for r in records), [r.error for r in records if r.error]
        assert all(r.result in ("fg", "killer") for r in records)
    report = run_fuzz(rs, games=6, seed=3, bot="both", scenarios=["cv-depot"])
    assert report["clean"], report.get("violations")


# --- the checker ----------------------------------------------------------------------------------------------
_HOST = (PACK / "yard.fg").read_text(encoding="utf-8")


def _check(tmp_path, old: str, new: str, extra: str = ""):
    text = _HOST.replace(old, new) + extra
    assert new in text
    (tmp_path / "yard.fg").write_text(text, encoding="utf-8")
    rs2, diags = load_content([*bundled_paths(), tmp_path])
    return [d for d in diags if d.severity == "error"]


@pytest.mark.parametrize(("old", "new", "code", "needle", "hint"), [
    ("enters tag outdoor", "enters tag outdoors", "E211", "unknown location tag 'outdoors'", "did you mean 'outdoor'"),
    ("never crosses narrow", "never crosses narow", "E211", "no path has the tag 'narow'", "did you mean 'narrow'"),
    ("needs item cv-key", "needs item cv-keys", "E204", "unknown item 'cv-keys'", "did you mean 'cv-key'"),
    ("start at cv-gate", "start at cv-gates", "E204", "unknown location 'cv-gates'", "did you mean 'cv-gate'"),
    ("when cv-cart enters cv-dock { gain 1 time }", "when cv-cart dies { gain 1 time }", "E215",
     "'cv-cart' never dies: this trigger never fires", "'dies' happens to a killer, a minion and a victim"),
    ("when cv-cart enters cv-dock { gain 1 time }", "instead of cv-cart takes damage { gain 1 time }", "E215",
     "nothing changes 'takes damage' for 'cv-cart' before it happens", "it can be changed for"),
    ("when cv-cart enters cv-dock { gain 1 time }", "when cv-cartt moves { gain 1 time }", "E204",
     "unknown minion, victim kind or conveyance 'cv-cartt'", "did you mean 'cv-cart'"),
    ("effect { move cv-cart to cv-dock }", "effect { move cv-carts to cv-dock }", "E204",
     "unknown conveyance 'cv-carts' in 'cv-depot'", "did you mean 'cv-cart'"),
    ("victims ride 3", "victims ride 101", "E209", "above the limit of 100", "'Limits'"),
    ("victims ride 3", "victims ride many", "E205", "write 'victims ride N'", "whatever the path lets follow"),
    ("goes when taken", "goes sometimes", "E205", "write 'goes when taken' or 'goes always'", "she chooses"),
    ("start at cv-gate", "start cv-gate", "E205", "write 'start at LOC'", "off the board"),
])
def test_the_checker_refuses_misuse_with_a_hint(tmp_path, old, new, code, needle, hint):
    errors = _check(tmp_path, old, new)
    got = [d for d in errors if d.code == code and needle in d.message]
    assert got, [(d.code, d.message) for d in errors]
    assert hint in got[0].hint, got[0]


def test_a_conveyance_that_could_never_play_a_part_is_refused(tmp_path):
    """Nothing the checker accepts is a silent no-op: a conveyance whose tags no location has, or one
    off the board that nothing ever puts on it (E210)."""
    text = _HOST.replace("tags outdoor indoor", "tags outdoor indoor attic").replace("enters tag outdoor",
                                                                                      "enters tag attic")
    (tmp_path / "yard.fg").write_text(text, encoding="utf-8")
    _rs, diags = load_content([*bundled_paths(), tmp_path])
    got = [d for d in diags if d.code == "E210"]
    assert got and "no location of 'cv-depot' has the tag attic" in got[0].message, [d.message for d in diags]
    assert "tag the locations" in got[0].hint
    errors = _check(tmp_path, "conveyance cv-trolley {", 'conveyance cv-crate { name "Crate" }\n  conveyance cv-trolley {')
    got = [d for d in errors if d.code == "E210"]
    assert got and "'cv-crate' starts off the board and nothing puts it on it" in got[0].message
    assert "move cv-crate to PLACE" in got[0].hint


def test_a_conveyance_id_is_shared_with_minions_and_victim_kinds_and_declared_once(tmp_path):
    errors = _check(tmp_path, "conveyance cv-trolley {", "conveyance zombie {")
    assert any(d.code == "E203" and "'zombie' is a minion and a conveyance" in d.message for d in errors)
    errors = _check(tmp_path, "conveyance cv-trolley {", "conveyance cv-cart {")
    assert any(d.code == "E203" and "duplicate conveyance 'cv-cart'" in d.message for d in errors)


def test_count_reads_minions_and_victim_kinds_not_conveyances(tmp_path):
    """'count ID' counts minions and victims of a kind; a conveyance is one piece, read by
    'ID at PLACE': 'count cv-cart' is refused rather than always 0."""
    errors = _check(tmp_path, "effect { move cv-cart to cv-dock }", "effect { lose (count cv-cart) time }")
    got = [d for d in errors if d.code == "E204" and "cv-cart" in d.message]
    assert got and "'cv-cart at PLACE' says where it stands" in got[0].hint, [d.message for d in errors]


def test_a_module_adds_and_replaces_a_conveyance(tmp_path):
    """V1: a module's section adds a conveyance to a scenario, or replaces the scenario's own by id."""
    (tmp_path / "pack.fg").write_text('pack cv-wheels { name "Wheels"; depends core conveyances-test }\n',
                                      encoding="utf-8")
    (tmp_path / "mod.fg").write_text(
        'module cv-mod {\n  name "Wheels"\n  for scenario cv-depot {\n'
        '    replace conveyance cv-cart { name "Barrow"; start at cv-yard; goes always }\n'
        '    conveyance cv-sled { name "Sled"; start at cv-dock; enters tag outdoor }\n  }\n}\n', encoding="utf-8")
    rs2, diags = load_content([*bundled_paths(), PACK, tmp_path])
    assert rs2 is not None, [d.message for d in diags]
    st, _ = new_game(rs2, scenario="cv-depot", seed=1, modules=("cv-mod",))
    names = [c.name for c in st.game.conveyances]
    assert names == ["Barrow", "Trolley", "Sled"]
    assert [(c.start, c.taken) for c in st.game.conveyances] == [("cv-yard", "always"), ("cv-shed", "always"),
                                                                 ("cv-dock", "chosen")]
    assert len(st.conveyances) == 3
