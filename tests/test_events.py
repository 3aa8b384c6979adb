"""Every event of every piece fires, however the piece came to it, and the checker refuses the
events a piece never has (dsl/nodes.py PIECE_EVENT_PIECES, E215).

The pack tests/packs/events answers every event of every piece it happens to: a trigger that sets
the flag ``t-PIECE-EVENT``, a replacement armed by the flag ``arm-r-PIECE-EVENT`` that sets
``r-PIECE-EVENT``, and a prevention armed by ``arm-p-PIECE-EVENT``. For each accepted combination a
producer below makes the event happen to that piece (the way the rules make it: a hunt, a panic,
an effect, a move of hers, damage…), and the test checks the line answered it (C9.4, C10.2, C5.1,
C5.3, C3.8, C15.2, K6.6, K1.6; V4: a piece that travels with her, the cart she takes along)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fx, make_work
from lastbreath.dsl import bundled_paths, load_content
from lastbreath.dsl import nodes as n
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import MinionState

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "tests" / "packs" / "events"
PIECES = ("fg", "killer", "minion", "victim", "conveyance")
MOVES = ("moves", "enters", "leaves", "crosses")


@pytest.fixture(scope="module")
def stage():
    rs, diags = load_content([*bundled_paths(), PACK])
    assert rs is not None, [d.message for d in diags]
    state, _ = new_game(rs, killer="ev-host", scenario="ev-stage", seed=1)
    return rs, state


def L(state, lid: str) -> int:
    return state.game.board.index[lid]


def _settled(state, **changes):
    """A state between steps with these fields (its victims and pieces where a producer wants them)."""
    return engine.replace(state, choice=None, answers=(), checkpoint=None, events_seen=0, **changes)


def _victims(state, **at: int) -> tuple[int, ...]:
    v = [0] * state.game.board.n
    for lid, k in at.items():
        v[L(state, lid.replace("_", "-"))] = k
    return tuple(v)


def _imps(state, where: str, k: int):
    return tuple(MinionState("ev-imp", L(state, where), 2, frozenset(), i + 1) for i in range(k))


def _killer_at(state, where: str, **kw):
    return (engine.evolve_killer(state.killers[0], loc=L(state, where), **kw),)


# --- producers: (event, piece) -> a working copy on which the event has happened -------------------
def produce(state, event: str, piece: str, flags: frozenset[str]):
    s = state
    hall, yard = "ev-hall", "ev-yard"
    base = {"flags": flags, "minions": (), "victims": _victims(s), "dice": ()}
    if event in MOVES:
        if piece == "fg":  # she walks from the hall across the ditch to the yard (C5.1)
            w = make_work(_settled(s, fg_loc=L(s, hall), killers=_killer_at(s, "ev-shed"), **base), ["move:ev-yard"])
            act = lambda: engine.move_fg(w, 1)  # noqa: E731
        elif piece == "killer":  # it hunts her across the ditch (C9.4)
            w = make_work(_settled(s, fg_loc=L(s, "ev-gate"), killers=_killer_at(s, yard), **base))
            act = lambda: engine.hunt(w, "killer", "fg", 1, 0)  # noqa: E731
        elif piece == "conveyance":  # she takes the cart from the hall across the ditch to the yard (V4)
            w = make_work(_settled(s, fg_loc=L(s, hall), killers=_killer_at(s, "ev-shed"), **base),
                          ["move:ev-yard:ev-cart"])
            act = lambda: engine.move_fg(w, 1)  # noqa: E731
        elif piece == "minion":  # a minion hunts her across the ditch (C9.4, C15)
            w = make_work(_settled(s, fg_loc=L(s, "ev-gate"), killers=_killer_at(s, "ev-shed"),
                                   **{**base, "minions": _imps(s, yard, 1), "minion_seq": 1}))
            act = lambda: engine.hunt(w, "minions", "fg", 1, 0)  # noqa: E731
        else:  # a victim panics from the hall across the ditch (C10.2: a 3 leads to the yard)
            w = make_work(_settled(s, fg_loc=L(s, "ev-gate"), killers=_killer_at(s, "ev-shed"),
                                   **{**base, "victims": _victims(s, ev_hall=1), "dice": (3,)}))
            act = lambda: engine.panic_location(w, L(s, hall))  # noqa: E731
        return w, act
    if event in ("takes-damage", "loses-health", "would-be-defeated") and piece == "fg":
        lethal = event == "would-be-defeated"  # on her white token the next hit defeats her (C14.2)
        w = make_work(_settled(s, fg_health=1 if lethal else 3, fg_breath=1 if lethal else 2, **base))
        return w, lambda: engine.fg_damage(w, 2)
    if event in ("takes-damage", "loses-health", "would-be-defeated", "dies") and piece == "killer":
        lethal = event in ("would-be-defeated", "dies")  # C3.8: more than it has left, on its white token
        w = make_work(_settled(s, killers=_killer_at(s, hall, health=1 if lethal else 4, breath=1 if lethal else 2),
                               fg_loc=L(s, hall), **base))
        return w, lambda: engine.damage_killer(w, 0, 3 if lethal else 1)
    if event in ("takes-damage", "loses-health", "dies") and piece == "minion":
        w = make_work(_settled(s, **{**base, "minions": _imps(s, hall, 1), "minion_seq": 1}))
        return w, lambda: engine.damage_minions(w, L(s, hall), 2)  # C15.2
    if event == "dies" and piece == "victim":
        w = make_work(_settled(s, **{**base, "victims": _victims(s, ev_hall=1)}))
        return w, lambda: engine.kill_victim(w, L(s, hall), "killed")
    if event == "kills":  # C9.5: an attack on a victim where it stands
        if piece == "killer":
            w = make_work(_settled(s, killers=_killer_at(s, hall), fg_loc=L(s, "ev-gate"),
                                   **{**base, "victims": _victims(s, ev_hall=2)}))
            act = lambda: engine.hunt(w, "killer", "victims", 0, 1)  # noqa: E731
        else:
            w = make_work(_settled(s, killers=_killer_at(s, "ev-shed"), fg_loc=L(s, "ev-gate"),
                                   **{**base, "victims": _victims(s, ev_hall=2), "minions": _imps(s, hall, 1),
                                      "minion_seq": 1}))
            act = lambda: engine.hunt(w, "minions", "victims", 0, 1)  # noqa: E731
        return w, act
    if event == "forms":  # K6.6: three minions in one place become a body
        w = make_work(_settled(s, **{**base, "minions": _imps(s, yard, 3), "minion_seq": 3}))
        return w, lambda: engine.run(w, fx("turn groups of 3 ev-imp into killers"), Ctx())
    if event in ("vanishes", "appears"):  # K1.6
        start = {"vanishes": hall, "appears": None}[event]
        killers = _killer_at(s, start) if start else (engine.evolve_killer(s.killers[0], loc=-1),)
        w = make_work(_settled(s, killers=killers, **base))
        line = "killer vanishes" if event == "vanishes" else "killer appears at ev-yard"
        return w, lambda: engine.run(w, fx(line), Ctx())
    if event in ("gains-time", "loses-time"):
        w = make_work(_settled(s, time=3, **base))
        return w, lambda: (engine.gain_time if event == "gains-time" else engine.lose_time)(w, 1)
    raise AssertionError(f"no producer for {piece} {event}")


def _combinations(index: int):
    out = []
    for event, forms in n.PIECE_EVENT_PIECES.items():
        for piece in PIECES:
            if piece in forms[index]:
                out.append(pytest.param(event, piece, id=f"{piece}-{event}"))
    return out


def _ran(w, flag: str) -> bool:
    return flag in w.flags


@pytest.mark.parametrize(("event", "piece"), _combinations(0))
def test_every_trigger_an_event_of_its_piece_may_have_fires(stage, event, piece):
    """C9.4, C10.2, C5.1: e.g. 'when killer enters', 'when victim crosses TAG', 'when minion dies'."""
    rs, state = stage
    flag = f"t-{piece}-{event}"
    w = _produce_kept(state, event, piece, frozenset())
    assert _ran(w, flag), [e.text for e in w.ctl.events]


@pytest.mark.parametrize(("event", "piece"), _combinations(1))
def test_every_replacement_an_event_of_its_piece_may_have_resolves_instead(stage, event, piece):
    rs, state = stage
    w = _produce_kept(state, event, piece, frozenset({f"arm-r-{piece}-{event}"}))
    assert _ran(w, f"r-{piece}-{event}"), [e.text for e in w.ctl.events]
    assert not _ran(w, f"t-{piece}-{event}")  # replaced: it did not happen


@pytest.mark.parametrize(("event", "piece"), _combinations(1))
def test_every_prevention_an_event_of_its_piece_may_have_stops_it(stage, event, piece):
    rs, state = stage
    w = _produce_kept(state, event, piece, frozenset({f"arm-p-{piece}-{event}"}))
    assert any(e.kind == "modify" and "prevented" in e.text for e in w.ctl.events), [e.text for e in w.ctl.events]
    assert not _ran(w, f"t-{piece}-{event}")


def _produce_kept(state, event, piece, flags):
    """The working copy after the event's producer (kept when the step was cut short on the way:
    a game over, a phase ended at once)."""
    w, act = produce(state, event, piece, flags)
    try:
        act()
    except (engine.GameOver, engine.PhaseEnd):
        pass
    return w


def test_the_pack_answers_every_combination_the_checker_accepts():
    """Each accepted combination has its lines in the pack (so the tests above cover them all)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in PACK.glob("*.fg"))
    for event, (after, before) in n.PIECE_EVENT_PIECES.items():
        for piece in PIECES:
            assert (f"set flag t-{piece}-{event} " in text) == (piece in after), (piece, event)
            assert (f"set flag r-{piece}-{event} " in text) == (piece in before), (piece, event)


# --- the checker refuses the others -----------------------------------------------------------------
def _check(tmp_path, line: str):
    (tmp_path / "x.fg").write_text(f'item ev-charm {{ name "Charm"\n  {line}\n}}\n', encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), tmp_path / "x.fg"])
    return [d for d in diags if d.code == "E215"]


@pytest.mark.parametrize(("line", "needle"), [
    ("when victim takes damage { heal 1 }", "a victim never takes damage"),
    ("when fg kills { heal 1 }", "the Final Girl never kills"),
    ("when fg forms { heal 1 }", "never forms"),
    ("when minion appears { heal 1 }", "a minion never appears"),
    ("when killer gains time { heal 1 }", "the killer never gains time"),
    ("when killer would be defeated { heal 1 }", "a trigger never answers it"),
    ("instead of killer kills { heal 1 }", "nothing changes 'kills' for the killer before it happens"),
    ("prevent minion takes damage", "nothing changes 'takes damage' for a minion before it happens"),
    ("instead of victim would be defeated { heal 1 }", "nothing changes 'would be defeated' for a victim"),
    ("when zombie gains time { heal 1 }", "never gains time"),
])
def test_an_event_its_piece_never_has_is_refused(tmp_path, line, needle):
    got = _check(tmp_path, line)
    assert len(got) == 1 and needle in got[0].message, [d.message for d in got]
    assert got[0].hint


@pytest.mark.parametrize("line", [
    "when killer enters (any) { heal 1 }", "when killer leaves { heal 1 }", "when killer crosses bridge { heal 1 }",
    "prevent killer moves", "when enemy crosses bridge { heal 1 }", "instead of victim enters (any) { heal 1 }",
    "when minion takes damage { heal 1 }", "when zombie dies { heal 1 }", "prevent fg loses time"])
def test_the_events_a_piece_has_check_clean(tmp_path, line):
    assert _check(tmp_path, line) == []


def test_C9_4_a_killer_enters_leaves_and_crosses_on_a_hunt_an_effect_and_a_walk(stage):
    """C9.4: 'when killer enters', 'when killer leaves' and 'when killer crosses TAG' fire whether the
    killer hunts (a move of two locations: it enters and leaves the one between), is moved by
    'move killer to', or walks one location; and not at all for a piece that stays."""
    rs, state = stage
    s = _settled(state, fg_loc=L(state, "ev-gate"), killers=_killer_at(state, "ev-yard"), minions=(),
                 victims=_victims(state), bloodlust=1)  # move 2 (C9.4): yard -> hall -> gate
    w = make_work(s)
    engine.hunt(w, "killer", "fg", 1, 0)
    assert w.killers[0].loc == L(state, "ev-gate")
    assert {"t-killer-enters", "t-killer-leaves", "t-killer-crosses", "t-killer-moves"} <= w.flags
    w = make_work(_settled(state, killers=_killer_at(state, "ev-shed"), minions=(), victims=_victims(state)))
    engine.run(w, fx("move killer to ev-hall"), Ctx())
    assert {"t-killer-enters", "t-killer-leaves", "t-killer-moves"} <= w.flags and "t-killer-crosses" not in w.flags
    w = make_work(_settled(state, killers=_killer_at(state, "ev-gate"), fg_loc=L(state, "ev-gate"), minions=(),
                           victims=_victims(state)))
    engine.hunt(w, "killer", "fg", 1, 0)  # at its target already: it stays
    assert not any(f.startswith("t-killer-") for f in w.flags)


def test_a_prevented_move_leaves_the_piece_where_it_stood(stage):
    rs, state = stage
    w = make_work(_settled(state, flags=frozenset({"arm-p-killer-enters"}), fg_loc=L(state, "ev-gate"),
                           killers=_killer_at(state, "ev-yard"), minions=(), victims=_victims(state)))
    engine.hunt(w, "killer", "fg", 1, 0)
    assert w.killers[0].loc == L(state, "ev-yard")  # it may not enter the hall, the first step of its move


def test_the_events_pack_plays_whole_games_and_passes_the_fuzzer():
    """Its own killer and the bundled ones on its stage, to the end, every transition checked; its
    triggers (unarmed lines aside) fire in play too."""
    from lastbreath.interpreter.fuzz import run_fuzz
    from lastbreath.interpreter.simulate import run_games

    rs, diags = load_content([*bundled_paths(), PACK])
    for killer in ("ev-host", "zombies", "intruders"):
        records = run_games(rs, {"killer": killer, "scenario": "ev-stage"}, 12, 0, "random")
        assert all(not r.error for r in records), [r.error for r in records if r.error]
        assert all(r.result in ("fg", "killer") for r in records)
    report = run_fuzz(rs, games=4, seed=3, bot="both", killers=["ev-host"], scenarios=["ev-stage"])
    assert report["clean"], report.get("violations")
