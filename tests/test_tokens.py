"""Tokens that belong to one item card, tokens with kinds and faces (issue #33 items 3-4; docs/rules.md
S1.1-S1.3, S5.1-S5.2, C1.2; dsl/LANGUAGE.md section 6h).

The content is the test pack tests/packs/tokens: ``tk-ship``, a starship whose passes are tokens on
pass cards, each card holding its own (S1.1-S1.3), with crew tags that keep their marks when
discarded; and ``tk-station``, whose caches of four kinds lie face down on the map and turn face up
as she comes (a trigger of the content). Both play whole games under ``simulate`` and ``fuzz``
(last tests). A face-down token's kind reaches neither the screen, the JSON-RPC state, ``play
--json``, the choices nor the bots: twin games whose hidden kinds differ look the same until one
is revealed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest
from conftest import L, fx, make_work, settle, texts
from conftest import run_effects as run
from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.dsl.diagnostics import SaveError
from lastbreath.interpreter import api, engine, screen, serialize
from lastbreath.interpreter.bots import Greedy
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.serve import Server, public_state

PACK = Path(__file__).resolve().parent / "packs" / "tokens"
SHIP = {"killer": "big-bad-wolf", "scenario": "tk-ship", "final_girl": "nell-arden"}
STATION = {"killer": "big-bad-wolf", "scenario": "tk-station", "final_girl": "nell-arden"}
KINDS = ("food", "fuel", "trap", "empty")


@pytest.fixture(scope="module")
def trs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def ship(trs):
    """The starship, seed 1, settled in the Action phase at the Hangar, time 6: she holds one pass
    card with its pass (S1.1, S1.2), three more lie on the table, two crew tags too."""
    state, _ = api.new_game(trs, seed=1, **SHIP)
    return settle(state.checkpoint, phase="action", sub=1, fg_loc=L(state, "tk-hangar"), time=6, fear=3,
                  events_active=(), flags=frozenset())


@pytest.fixture(scope="module")
def station(trs):
    """The dark station, seed 1, settled in the Action phase at the Dock, no token on the board."""
    state, _ = api.new_game(trs, seed=1, **STATION)
    back = state.supply + tuple((t, k) for t, k, _at in (*state.tokens, *state.tokens_down))
    return settle(state.checkpoint, phase="action", sub=1, fg_loc=L(state, "tk-dock"), time=6, fear=3,
                  events_active=(), flags=frozenset(), tokens=(), tokens_down=(), supply=back, collected=())


def cards_of(w, iid: str) -> list[str]:
    return [f"item:{h.id}#{h.copy}" for h in (*w.held, *w.pack) if h.id == iid]


def on(w, key: str) -> int:
    return sum(1 for h, *_ in w.token_on if h == key)


def check(tmp_path, text: str):
    folder = tmp_path / "pack"
    folder.mkdir(exist_ok=True)
    (folder / "x.fg").write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), folder])


# === tokens that belong to one card (S1.1-S1.3) ======================================================
def test_S1_1_S1_2_each_pass_card_is_numbered_and_a_card_gained_gets_its_own_pass(trs):
    """S1.1, S1.2: the cards of an item some line names as a token holder are numbered as they come
    into play; she starts with one pass card and its pass, given by its own 'when gained'."""
    state, _ = api.new_game(trs, seed=1, **SHIP)
    (mine,) = cards_of(state, "tk-pass-card")
    assert [h for h, t, _k, _up in state.token_on if t == "tk-pass"] == [mine]
    assert sorted(state.table) == sorted(x for x in state.table if "#" in x) and len(state.table) == 5
    numbers = [int(x.partition("#")[2]) for x in state.table] + [int(mine.partition("#")[2])]
    assert sorted(numbers) == list(range(1, state.item_seq + 1))  # each card its own number


def test_S1_3_two_cards_hold_their_passes_apart_and_are_read_together_from_outside(ship):
    """S1.3: a second card taken from the table gets its own pass; 'count tokens … on item ID' from
    outside the item reads every card of it; a spend from her items comes from the card she picks."""
    w = make_work(ship)
    engine.run(w, _fx("take item tk-pass-card from table\nmove 1 token tk-pass from supply to item tk-pass-card"),
               engine.Ctx())
    first, second = cards_of(w, "tk-pass-card")
    assert sorted((on(w, first), on(w, second))) == [1, 2]  # (the move went to the card she picked)
    assert engine.amount(w, _amount("count tokens tk-pass on item tk-pass-card"), engine.Ctx()) == 3
    fuller = first if on(w, first) == 2 else second
    w = run(w.freeze(), "spend 1 token tk-pass from items to supply", answers=(f"copy:{fuller}",))
    assert (on(w, first), on(w, second)) == (1, 1)


def test_S1_3_an_empty_card_cannot_be_discarded_and_a_full_one_gives_its_pass_back_to_the_supply(ship):
    """S1.3 (open, default): a card with no pass is left alone by any discard; a card with one is
    discarded, and its pass goes back to the supply."""
    (card,) = cards_of(ship, "tk-pass-card")
    empty = settle(ship, token_on=tuple(t for t in ship.token_on if t[0] != card))
    w = run(empty, "discard a random item\ndiscard item tk-pass-card")
    assert cards_of(w, "tk-pass-card") == [card] and texts(w) == ["no item can be discarded"]
    supply = len(ship.supply)
    w = run(ship, "discard item tk-pass-card")
    assert cards_of(w, "tk-pass-card") == [] and on(w, card) == 0 and len(w.supply) == supply + 1
    assert "a pass token on Pass Card returns to the supply" in texts(w)
    assert [e.rule for e in w.ctl.events if "returns to the supply" in e.text] == ["S1.3"]


@pytest.mark.parametrize("fate, where", [("", "supply"), ("its tokens go to the discard when discarded", "discard"),
                                         ("its tokens stay on it when discarded", "card")])
def test_S1_3_the_tokens_of_a_discarded_card_go_where_its_item_says(tmp_path, fate, where):
    """S1.3 (open): back to the supply by default, to the token discard, or they stay on the card and
    come back to the table with it."""
    rs, diags = check(tmp_path, f"""
scenario fate-dock {{
  name "Fate Dock"
  location pier {{ name "Pier"; exit }}
  location shed {{ name "Shed"; search }}
  path pier (1 2 3) -- (1 2 3) shed
  setup first {{ killer at shed; fg at pier; victims at shed 2 }}
  token mark {{ name "Mark"; kinds mark; supply mark 3 }}
  item tag {{ name "Tag"; start held; returns to the table when discarded; {fate} }}
  when game starts {{ gain 2 token mark on item tag }}
}}
""".replace("; }", " }"))
    assert not diags, diags
    state, _ = api.new_game(rs, seed=1, killer="big-bad-wolf", scenario="fate-dock", final_girl="nell-arden")
    (card,) = cards_of(state, "tag")
    w = run(settle(state.checkpoint), "discard item tag")
    assert w.table == (card[5:],)  # back to the table, the same card
    assert on(w, card) == (2 if where == "card" else 0)
    assert len(w.token_discard) == (2 if where == "discard" else 0)
    assert len(w.supply) == len(state.supply) + (2 if where == "supply" else 0)
    w = run(w.freeze(), "take item tag from table\nif count tokens mark on items is 2 { set flag back }")
    assert ("back" in w.flags) == (where == "card")


def test_S1_2_a_card_put_on_the_table_keeps_its_tokens_and_she_picks_the_card_she_takes_back(ship):
    """S1.2: 'token and all': a card goes to the table with its tokens; taking one back, she picks
    among the cards there that differ (those alike are not asked about)."""
    (card,) = cards_of(ship, "tk-pass-card")
    w = run(ship, "put item tk-pass-card on table")
    assert card[5:] in w.table and on(w, card) == 1 and not cards_of(w, "tk-pass-card")
    choice = _need(w.freeze(), "take item tk-pass-card from table")
    assert choice.kind == "item-card"
    assert sorted(o.label for o in choice.options) == ["Pass Card (1 pass token)", "Pass Card (no tokens)"]
    w = run(w.freeze(), "take item tk-pass-card from table", answers=(f"copy:{card}",))
    assert cards_of(w, "tk-pass-card") == [card] and on(w, card) == 1


def test_a_card_set_aside_keeps_its_tokens_and_comes_back_with_them(ship):
    """A card set aside is not discarded: its tokens stay on it, and it comes back with them."""
    (card,) = cards_of(ship, "tk-pass-card")
    w = run(ship, "set aside item tk-pass-card\nif count tokens tk-pass on item tk-pass-card is 1 { set flag still }")
    assert w.aside == (card[5:],) and on(w, card) == 1 and "still" in w.flags
    w = run(w.freeze(), "take item tk-pass-card from aside")
    assert cards_of(w, "tk-pass-card") == [card] and on(w, card) == 1


def test_S1_3_a_cards_own_lines_read_that_card_its_use_offered_per_card(ship):
    """S1.3: inside the item's own lines 'item ID' is that card: its use is offered for each card that
    differs (its label says what it holds) while its own 'usable while' holds of it, and spends its
    own pass."""
    w = run(ship, "take item tk-pass-card from table")
    first, second = cards_of(w, "tk-pass-card")
    st = settle(w.freeze(), fg_loc=L(ship, "tk-corridor"), token_on=w.token_on + ((first, "tk-pass", "pass", True),))
    st, _ = engine.advance(st, (), 0)  # the Action menu
    uses = [o for o in st.choice.options if o.key.startswith("use:")]
    assert sorted(o.label for o in uses) == ["use Pass Card (0 time; 1 pass token)",
                                             "use Pass Card (0 time; 2 pass tokens)"]
    st, _ = api.apply(st, f"use:{second[5:]}")
    assert on(st, first) == 2 and on(st, second) == 0
    assert "use:" + second[5:] not in [o.key for o in st.choice.options]  # its 'usable while' no longer holds of it


def test_tokens_stay_on_a_card_moved_between_hands_and_backpack(ship):
    """C11.3: rearranging hands and backpack moves the card, its tokens with it."""
    (card,) = cards_of(ship, "tk-pass-card")
    h = next(x for x in ship.pack if x.id == "tk-pass-card")
    assert h.copy and f"item:tk-pass-card#{h.copy}" == card
    st = settle(ship, phase="upkeep", sub=1, pack=(), held=(h,))
    w = make_work(st, ("to-pack:tk-pass-card", "done"))
    engine.STEPS["upkeep"](w)
    assert cards_of(w, "tk-pass-card") == [card] and on(w, card) == 1


def test_content_naming_no_item_as_a_holder_numbers_no_card(rs):
    """The bundled films put no token on an item card: no card is ever numbered there (no work, no
    change: their goldens stand)."""
    for scenario in sorted(rs.scenarios):
        state, _ = api.new_game(rs, seed=2, scenario=scenario)
        state = api.play(state, api.random_policy(2), max_choices=300)
        assert state.game.copy_items == frozenset() and state.item_seq == 0
        assert not any("#" in x for x in (*state.table, *state.aside)) and not state.tokens_down
        assert all(h.copy == 0 for h in (*state.held, *state.pack))


# === tokens with kinds and faces (S5.1, S5.2) ============================================================
def test_S5_2_a_kind_is_read_face_up_only(station):
    """A face-down token's kind is read by nothing: a kind named in a condition, an amount or a take
    reads the face-up tokens; 'face down' and the kind-free forms read them all."""
    lab = L(station, "tk-lab")
    st = settle(station, tokens=(("tk-cache", "food", lab),), tokens_down=(("tk-cache", "food", lab),
                                                                          ("tk-cache", "trap", lab)))
    w = run(st, "if count tokens tk-cache food at tk-lab is 1 { set flag one-food }\n"
                "if not token tk-cache trap at tk-lab { set flag no-trap }\n"
                "if count tokens tk-cache face down at tk-lab is 2 { set flag two-down }\n"
                "if count tokens tk-cache at tk-lab is 3 { set flag three }\n"
                "if token tk-cache face up at tk-lab { set flag up }\n"
                "remove 1 token tk-cache trap from tk-lab")
    assert w.flags == {"one-food", "no-trap", "two-down", "three", "up"}
    assert len(w.tokens_down) == 2 and w.tokens == st.tokens  # no face-up trap to remove


def test_S5_2_taking_where_some_lie_face_down_offers_a_face_down_one_in_the_order_put(station):
    """Where she sees some kinds and not others, she picks a kind she sees or 'a face-down one' (the
    first put there): the choice names no hidden kind."""
    lab = L(station, "tk-lab")
    st = settle(station, fg_loc=lab, tokens=(("tk-cache", "fuel", lab),),
                tokens_down=(("tk-cache", "trap", lab), ("tk-cache", "food", lab)))
    choice = _need(st, "collect token tk-cache at here")
    assert [(o.key, o.label) for o in choice.options] == [("token:fuel", "fuel"), ("token-down", "a face-down one")]
    w = run(st, "collect token tk-cache at here", answers=("token-down",))
    assert w.collected == (("tk-cache", "trap"),) and w.tokens_down == (("tk-cache", "food", lab),)
    w = run(st, "move 1 token tk-cache from here to collection", answers=("token-down",))
    assert w.collected == (("tk-cache", "trap"),) and "a trap cache token moves" in " ".join(texts(w))


def test_S5_2_revealed_as_she_enters_by_a_trigger_of_the_content(station):
    """Turned face up where she comes (the station's 'when fg enters (any with token …)'): the log
    says the kinds, 'when token T is revealed' answers (a trap hurts her, C1.2)."""
    yard = L(station, "tk-yard")
    st = settle(station, tokens_down=(("tk-cache", "trap", yard), ("tk-cache", "food", yard)), fg_health=4)
    w = run(st, "move up to 1", answers=("move:tk-yard",))
    assert w.tokens == (("tk-cache", "food", yard),) and not w.tokens_down
    said = texts(w)
    assert "the 2 cache tokens at Yard are turned face up: trap, food" in said
    assert w.fg_health == 3  # the trap, then taken away
    assert [e.rule for e in w.ctl.events if "turned face up" in e.text] == ["C1.2"]


def test_tokens_placed_face_down_by_a_setup_card_lie_face_down(trs):
    """A setup card's 'tokens T face down at …': one random token of the supply, face down, at each;
    the log names none of their kinds until one is turned face up."""
    for seed in range(1, 9):
        state, events = api.new_game(trs, seed=seed, **STATION)
        setup = next(s for s in state.game.scenario.setups if s.id == state.setup_card)
        said = [e.text for e in events]
        for _t, loc in setup.tokens_down:
            assert f"a cache token is placed at {state.game.board.names[L(state, loc)]}" in said
        seen = next((i for i, t in enumerate(said) if "turned face up" in t), len(said))
        assert not any(f"{k} cache" in t for t in said[:seen] for k in KINDS)
        assert state.tokens_down or state.tokens  # (the setup's event may reveal, scatter or take some)


# --- a face-down kind stays hidden: the screen, the protocol, play --json, the choices, the bots -------------
def _twin(trs, first: str, second: str, seed: int) -> str:
    return f"""position {{
  killer big-bad-wolf; scenario tk-station; final_girl nell-arden; seed {seed}
  fg at tk-dock; killer at tk-yard
  tokens tk-cache fuel at tk-dock face down
  tokens tk-cache {first} at tk-mess face down
  tokens tk-cache {second} at tk-gate face down
}}"""


def _seen(state) -> dict:
    """What the player sees of a state: the screen's facts and map, the protocol's state."""
    facts = "\n".join(f"{k}: {v}" for k, v in screen.status_facts(state))
    rows = [r.here for r in screen.map_rows(state)]
    public = public_state(state)
    public.pop("supply", None)  # (a count: the same)
    return {"facts": facts, "rows": rows, "public": json.dumps(public, sort_keys=True)}


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_twin_games_whose_face_down_kinds_differ_look_the_same_until_one_is_revealed(trs, seed):
    """Two games alike but for the kinds of two face-down caches: the screen, the JSON-RPC state
    view, the choices (prompt, keys, labels), the events and both bots' answers are the same, step by
    step, until a cache is revealed or taken."""
    a = api.position(trs, _twin(trs, "food", "trap", seed))
    b = api.position(trs, _twin(trs, "trap", "food", seed))
    assert a.tokens_down != b.tokens_down
    bots = [(api.random_policy(seed), api.random_policy(seed)), (Greedy(), Greedy())]
    for bot_a, bot_b in bots:
        sa, sb = a, b
        for _ in range(400):
            if sa.over:
                assert sb.over
                break
            assert _seen(sa) == _seen(sb)
            assert (sa.choice.kind, sa.choice.prompt, sa.choice.options) == \
                   (sb.choice.kind, sb.choice.prompt, sb.choice.options)
            ka, kb = bot_a(sa, sa.choice), bot_b(sb, sb.choice)
            assert ka == kb
            sa, ea = api.apply(sa, ka)
            sb, eb = api.apply(sb, kb)
            if any("turned face up" in e.text or "collects" in e.text for e in ea):
                break
            assert [e.render() for e in ea] == [e.render() for e in eb]


def test_play_json_names_no_face_down_kind_before_it_is_seen(capsys):
    """'lastbreath play --bot … --json': no event, choice label or key names a cache's kind before one
    is turned face up or taken."""
    for seed in (1, 2, 3):
        code = main(["play", "--content", str(PACK), "--killer", "big-bad-wolf", "--scenario", "tk-station",
                     "--bot", "random", "--seed", str(seed), "--json"])
        out = json.loads(capsys.readouterr().out)
        assert code == 0
        hidden = re.compile(r"\b(food|fuel|trap|empty) cache|token:(food|fuel|trap|empty)\b")
        for r in out["log"]:
            if "turned face up" in r["text"] or "collects" in r["text"] or "her collection" in r["text"]:
                break
            assert not hidden.search(r["text"] + " " + r.get("key", "")), r


def test_the_protocol_state_nulls_a_face_down_kind(trs):
    """game.state: a face-down token's type and place, its kind null (on the board and on cards)."""
    server = Server(trs)
    reply = json.loads(server.handle_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "game.new",
                                                      "params": {**STATION, "seed": 1}})))
    gid = reply["result"]["game"]
    reply = json.loads(server.handle_line(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "game.state",
                                                      "params": {"game": gid}})))
    st = reply["result"]["state"]
    assert st["tokens_down"] and all(k is None for _t, k, _at in st["tokens_down"])
    state = server.games[gid].state if hasattr(server, "games") else None
    if state is not None:
        assert [(t, at) for t, _k, at in state.tokens_down] == [(t, at) for t, _k, at in st["tokens_down"]]
    card = settle(api.new_game(trs, seed=1, **SHIP)[0].checkpoint)
    key = cards_of(card, "tk-pass-card")[0]
    view = public_state(settle(card, token_on=((key, "tk-pass", "pass", False),)))
    assert view["token_on"] == [[key, "tk-pass", None, False]]


def test_the_screen_shows_face_up_kinds_and_face_down_tokens_as_face_down(station):
    yard, lab = L(station, "tk-yard"), L(station, "tk-lab")
    st = settle(station, tokens=(("tk-cache", "food", yard),), tokens_down=(("tk-cache", "trap", lab),))
    facts = dict(screen.status_facts(st, extras_only=True))
    assert facts["Tokens"] == "food Cache at Yard, Cache (face down) at Lab"
    rows = {r.name: r.here for r in screen.map_rows(st)}
    assert "food Cache" in rows["Yard"] and "Cache (face down)" in rows["Lab"] and "trap" not in rows["Lab"]


# === the checker ==========================================================================================
HOST = """
scenario chk-dock {
  name "Check Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2; tokens clue face down at shed }
  token clue { name "Clue"; kinds true false; supply true 2 false 2 }
  item note { name "Note"; copies 2 }
  action a { name "A"; free; effect { gain 1 token clue on item note } }
@
}
"""


@pytest.mark.parametrize("line, code, says", [
    ("when fg enters shed { reveal tokens clue in supply }", "E216", "face down for good"),
    ("when fg enters shed { reveal tokens clue on collection }", "E216", "face up"),
    ("when fg enters shed { if token clue true in supply { heal 1 } }", "E216", "lies face down"),
    ("when fg enters shed { if count tokens clue face down in discard at least 1 { heal 1 } }", "E216", "discard"),
    ("when fg enters shed { if token clue face down on collection { heal 1 } }", "E216", "face up"),
    ("when fg enters shed { gain 1 token clue on collection face down }", "E216", "face up"),
    ("when fg enters shed { if token clue maybe at here { heal 1 } }", "E204", "unknown kind 'maybe'"),
    ("when fg enters shed { if count tokens clue maybe at here at least 1 { heal 1 } }", "E204", "unknown kind"),
    ("when fg enters shed { if token clew face down at here { heal 1 } }", "E204", "unknown token 'clew'"),
    ("item chit { name \"Chit\"; its tokens go to the bin when discarded }", "E205", "its tokens"),
])
def test_the_checker_refuses_kinds_and_faces_it_cannot_read(tmp_path, line, code, says):
    _rs, diags = check(tmp_path, HOST.replace("@", line))
    assert [d.code for d in diags] == [code], [d.message for d in diags]
    d = diags[0]
    assert says in d.message + " " + d.hint and d.span.line == 11 and d.span.col > 1 and d.hint


def test_the_checker_takes_every_form_of_kinds_faces_and_cards(tmp_path):
    ok = ("when fg enters (any with token clue) { reveal tokens clue at it }\n"
          "  when token clue is revealed if count tokens clue true at it at least 1 { heal 1 }\n"
          "  action b { name \"B\"; if token clue face down at here; free; effect { collect token clue at here } }\n"
          "  item chit { name \"Chit\"; its tokens stay on it when discarded; returns to the table when discarded }")
    rs, diags = check(tmp_path, HOST.replace("@", ok))
    assert diags == [] and rs is not None


# === saves, positions, bounds ===============================================================================
def _mid_game(trs, setup: dict, seed: int, steps: int):
    state, _ = api.new_game(trs, seed=seed, **setup)
    bot = api.random_policy(seed)
    for _ in range(steps):
        if state.over:
            break
        state, _ = api.apply(state, bot(state, state.choice))
    return state


@pytest.mark.parametrize("setup", [SHIP, STATION], ids=["ship", "station"])
def test_saves_of_numbered_cards_and_face_down_tokens_round_trip(trs, setup):
    for seed in (1, 2, 3):
        state = _mid_game(trs, setup, seed, 60)
        data = json.loads(json.dumps(serialize.to_json(state)))
        again = serialize.from_json(trs, data)
        assert serialize.to_json(again) == data
        assert again.tokens_down == state.tokens_down and again.item_seq == state.item_seq
        assert (again.held, again.pack, again.table, again.token_on) == (state.held, state.pack, state.table,
                                                                          state.token_on)


def test_a_held_card_with_no_number_saves_as_before(rs):
    """A card of an item that carries no token apart saves without its number (old saves load alike)."""
    state, _ = api.new_game(rs, seed=1)
    data = serialize.to_json(state)
    assert all("copy" not in h for h in (*data["state"].get("held", []), *data["state"].get("pack", [])))
    assert "item_seq" not in data["state"] and "tokens_down" not in data["state"]


@pytest.mark.parametrize("field, change, says", [
    ("item_seq", lambda s: 10 ** 7, "item_seq"),
    ("pack", lambda s: tuple(attrs.evolve(h, copy=0) for h in s.pack), "carry tokens apart"),
    ("pack", lambda s: tuple(attrs.evolve(h, copy=s.item_seq + 1) for h in s.pack), "pack[0].copy"),
    ("table", lambda s: (s.table[0], s.table[0]) + s.table[2:], "which another card has"),
    ("table", lambda s: ("tk-pass-card#x",) + s.table[1:], "ID#N"),
    ("token_on", lambda s: (("item:tk-pass-card#99", "tk-pass", "pass", True),), "no card in play"),
    ("tokens_down", lambda s: (("tk-pass", "gold", 0),), "a kind of the token"),
    ("tokens_down", lambda s: (("tk-pass", "pass", 99),), "tokens_down[0]"),
])
def test_a_save_with_impossible_cards_or_face_down_tokens_is_refused(trs, ship, field, change, says):
    data = serialize.to_json(ship)
    bad = settle(ship, **{field: change(ship)})
    data["state"][field] = serialize.to_json(bad)["state"].get(field, [])
    if field == "pack":
        data["state"][field] = [{"id": h.id, "uses": h.uses, "copy": h.copy} for h in change(ship)]
    with pytest.raises(SaveError) as ei:
        serialize.from_json(trs, data)
    assert says in str(ei.value)


def test_positions_put_tokens_on_the_nth_card_and_face_down_on_the_board(trs):
    state = api.position(trs, """position {
  killer big-bad-wolf; scenario tk-ship; final_girl nell-arden
  fg at tk-hangar
  backpack tk-pass-card tk-pass-card
  tokens tk-pass pass at tk-corridor face down
  tokens tk-pass pass on item tk-pass-card copy 2
}""")
    first, second = cards_of(state, "tk-pass-card")
    assert on(state, second) == 1 and on(state, first) == 0 and first != second
    assert state.tokens_down == (("tk-pass", "pass", L(state, "tk-corridor")),) and not state.tokens


# === the pack plays whole games ================================================================================
def test_the_tokens_pack_plays_full_games_under_simulate(capsys):
    for bot in ("random", "greedy"):
        code = main(["simulate", "--content", str(PACK), "--matrix", "--killer", "big-bad-wolf", "--scenario",
                     "tk-ship", "--scenario", "tk-station", "--final-girl", "nell-arden", "--games", "8", "--seed",
                     "5", "--bot", bot, "--jobs", "1", "--json", "--no-progress"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0, report
        assert sorted((p["scenario"], p["games"], p["errors"]) for p in report["pairs"]) == [
            ("tk-ship", 8, 0), ("tk-station", 8, 0)], report


@pytest.mark.parametrize("scenario", ["tk-ship", "tk-station"])
def test_the_tokens_pack_passes_the_fuzzer(capsys, scenario):
    """Every invariant after every transition, save round trips included, with both bots."""
    code = main(["fuzz", "--content", str(PACK), "--killer", "big-bad-wolf", "--scenario", scenario,
                 "--games", "6", "--seed", "3", "--bot", "both", "--jobs", "1", "--json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["clean"], report["violations"][:1]
    assert report["games"] == 6


def test_the_pack_is_in_canonical_form(capsys):
    assert main(["fmt", "--check", str(PACK)]) == 0, capsys.readouterr().out


# --- helpers -------------------------------------------------------------------------------------------------
def _fx(text: str):
    return fx(text)


def _amount(text: str):
    return fx(f"lose ({text}) time")[0].n


def _need(state, text: str):
    w = make_work(state)
    with pytest.raises(engine.NeedChoice) as ei:
        engine.run(w, fx(text), engine.Ctx())
    return ei.value.choice
