"""Rule-level tests of the fourth film's scenario: the U.S.S. Konrad (docs/rules.md S1), on the bundled
content (scenarios/uss-konrad.fg): the passes, six cards of one item each holding its own pass
(S1.1-S1.3); the maintenance ducts, shut to everyone until a pass opens them for her and her
followers (S1.4); the four repairs and what their devices do (S1.5); losing a repair (S1.6); the
super freighter and its key (S1.7); the airlock and the self-destruct taking her down with the
killer, a loss (S1.8); and every bundled killer playing there."""

from __future__ import annotations

import pytest
from conftest import L, fx, make_work, need, settle, texts

from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.engine.statics import enemy_tables, fg_tables, victim_tables
from lastbreath.interpreter.state import HeldItem

SCENARIO = "uss-konrad"
REPAIRS = {"trash-compactor": "crusher", "furnace": "incinerator", "hangar": "airlock", "bridge": "self-destruct"}
DUCTS = {"fore-duct": ("bridge", "cryo-bay"), "galley-duct": ("mess-hall", "armory"),
         "sickbay-duct": ("medbay", "furnace"), "hangar-duct": ("engineering", "hangar")}
KILLERS = ("big-bad-wolf", "intruders", "ratchet-lady", "zombies")


@pytest.fixture(scope="module")
def ship(rs):
    """The Big Bad Wolf aboard the Konrad, seed 1, settled in the Action phase: no victims, no event in
    play, fear 2, time 6, the Final Girl on the bridge with her pass card (copy 3) and its pass, two
    pass cards with theirs on the table, the killer far aft in the docking port."""
    state, _ = api.new_game(rs, killer="big-bad-wolf", scenario=SCENARIO, seed=1)
    killer = engine.evolve_killer(state.killers[0], loc=L(state, "docking-port"))
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, fear=2, time=6, events_active=(),
                  phase="action", sub=1, fg_loc=L(state, "bridge"), killers=(killer,), tokens=())


def menu(s) -> list[str]:
    return need(make_work(s), engine.step_action).keys()


def act(s, *answers):
    """Her Action-phase step with these answers; the working copy after it."""
    w = make_work(s, answers)
    engine.step_action(w)
    return w


def on_holder(s, holder: str, token: str = "pass") -> int:
    """Tokens of a type on a holder ('item:pass-card#3', 'card:crusher')."""
    return sum(1 for h, t, *_ in s.token_on if h == holder and t == token)


def on(s, holder: str) -> int:
    return on_holder(s, holder)


def passes(s) -> dict[str, int]:
    """Her pass cards, each with the passes it holds."""
    return {f"item:{h.id}#{h.copy}": on(s, f"item:{h.id}#{h.copy}") for h in (*s.held, *s.pack) if h.id == "pass-card"}


def on_card(s, card: str, token: str = "pass") -> int:
    """Tokens of a type on a card lying on the table (a repair card, a duct's slot)."""
    return on_holder(s, f"card:{card}", token)


def with_passes(s, n: int, **fields):
    """She holds n pass cards, each with its pass (her own is copy 3; the others are new copies)."""
    cards = tuple(HeldItem("pass-card", 0, c) for c in range(3, 3 + n))
    mine = tuple(t for t in s.token_on if not t[0].startswith("item:pass-card#") or t[0] in ("item:pass-card#1",
                                                                                                 "item:pass-card#2"))
    token_on = mine + tuple((f"item:pass-card#{c}", "pass", "pass", True) for c in range(3, 3 + n))
    return settle(s, pack=cards, token_on=token_on, item_seq=max(s.item_seq, 2 + n), **fields)


def run(s, text: str, answers=()):
    w = make_work(s, answers)
    engine.run(w, fx(text), Ctx())
    return w


def at(s, where: str, **fields):
    return settle(s, fg_loc=L(s, where), **fields)


def killer_at(s, where: str, **changes):
    return (engine.evolve_killer(s.killers[0], loc=L(s, where), **changes),)


# === the box ======================================================================================
def test_konrad_components(rs):
    """S1: 10 events, 8 terror cards, 5 setup cards; 20 item cards (six pass cards of one item, the
    freighter key and 13 more); 3 search locations (three item piles), 2 exits; four repair
    locations with four repair cards of different numbers; four ducts."""
    s = rs.scenarios[SCENARIO]
    assert (len(s.events), len(s.terror), len(s.setups)) == (10, 8, 5)
    cards = sum(i.copies for i in s.items)
    assert cards == 17 and [i.copies for i in s.items if i.id == "pass-card"] == [3]  # + 3 handed out at setup
    assert sum(loc.search for loc in s.locations) == 3 and sum(loc.exit for loc in s.locations) == 2
    numbers = {loc.id: dict(loc.numbers)["repair"] for loc in s.locations if "repair" in loc.tags}
    assert set(numbers) == set(REPAIRS) and sorted(numbers.values()) == [1, 2, 3, 4]
    assert {c.id for d in s.decks if d.id == "repairs" for c in d.cards} == set(REPAIRS.values())
    ducts = [p for p in s.paths if "duct" in p.tags]
    assert len(ducts) == 4 and all(p.closed for p in ducts)


def test_every_scenario_terror_card_works_with_any_killer(rs):
    """C8.3: the Konrad's terror cards hunt with 'enemies' and name no body or mode."""
    from lastbreath.dsl import nodes as n

    hunts = 0
    for t in rs.scenarios[SCENARIO].terror:
        for e in n.walk(t.effects):
            assert not isinstance(e, (n.ModeBlock, n.AllKillers, n.SwitchActive, n.MakeActive)), t.id
            if isinstance(e, n.Hunt):
                hunts += 1
                assert e.who == "enemies", t.id
    assert hunts >= 5


# === S1.1 setup ===================================================================================
@pytest.mark.parametrize("seed", range(5))
def test_S1_1_setup_passes_on_the_map_on_her_card_and_on_the_table(rs, seed):
    """S1.1: the setup card's two locations get a pass token each; she holds one pass card carrying a
    pass, two more lie on the table, each with its own; the freighter stands in the hangar; the
    repair cards lie face up."""
    state, events = api.new_game(rs, killer="zombies", scenario=SCENARIO, seed=seed)
    setup = next(c for c in state.game.scenario.setups if c.id == state.setup_card)
    marked = sorted(state.game.board.ids[loc] for t, _k, loc in state.tokens if t == "pass")
    assert marked == sorted(loc for tok, loc in setup.tokens if tok == "pass")
    assert len(marked) == 2
    mine = passes(state)
    assert list(mine.values()) == [1]
    table = [x for x in state.table if x.startswith("pass-card#")]
    assert len(table) == 2 and all(on(state, f"item:{x}") == 1 for x in table)
    assert state.conveyances == (L(state, "hangar"),)
    kept = set(state.kept)
    assert {f"repairs/{c}" for c in REPAIRS.values()} <= kept and {f"duct-slots/{d}" for d in DUCTS} <= kept
    assert any(e.rule == "C18.3" for e in events)


def test_S1_1_the_other_three_pass_cards_are_shuffled_in_with_the_items(rs):
    """S1.1: the last three pass cards go into the item deck; a dealt one lies in a pile without a
    pass (it gets one when she takes it, S1.2). Over seeds some piles hold them, never more than three."""
    seen = 0
    for seed in range(12):
        state, _ = api.new_game(rs, killer="big-bad-wolf", scenario=SCENARIO, seed=seed)
        dealt = sum(1 for pile in state.piles for item, _up in pile if item == "pass-card")
        assert dealt <= 3
        seen += dealt
    assert seen > 0


# === S1.2 picking up passes =======================================================================
def test_S1_2_a_pass_on_the_map_is_taken_for_1_time_with_a_card_from_the_table(ship):
    """S1.2 (default): where she stands, 1 time: a pass card from the table, its pass on it; the token
    leaves the map."""
    s = at(ship, "armory", tokens=(("pass", "pass", L(ship, "armory")),))
    assert "action:take-pass" in menu(s)
    supply = len(s.supply)
    w = act(s, "action:take-pass")
    got = passes(w)
    assert len(got) == 2 and all(v == 1 for v in got.values())
    assert w.time == 5 and w.tokens == () and len(w.supply) == supply + 1
    assert sum(1 for x in w.table if x.startswith("pass-card#")) == 1


def test_S1_2_no_pass_where_none_lies_nor_without_a_card_on_the_table(ship):
    """S1.2: nothing to pick up without a token there, or with no pass card left on the table."""
    assert "action:take-pass" not in menu(at(ship, "armory"))
    s = at(ship, "armory", tokens=(("pass", "pass", L(ship, "armory")),), table=())
    assert "action:take-pass" not in menu(s)


def test_S1_2_passing_through_picks_nothing_up(ship):
    """S1.2: only where she starts or ends a move: a move of two steps through a location with a pass
    leaves it there, and her cards as they were."""
    s = at(ship, "central-corridor", tokens=(("pass", "pass", L(ship, "armory")),))
    w = run(s, "move up to 2", ["move:armory", "move:cargo-hold"])
    assert w.fg_loc == L(ship, "cargo-hold") and w.tokens == s.tokens and passes(w) == passes(s)


def test_S1_2_a_pass_card_from_a_search_or_an_event_gets_a_pass(ship):
    """S1.2: a pass card that comes to her otherwise, from a search pile or by an effect, is given a
    pass of its own as she gains it."""
    w = run(ship, "gain item pass-card")
    assert sorted(passes(w).values()) == [1, 1]
    here = L(ship, "crew-quarters")
    pile = ship.game.board.pile_of[here]
    piles = tuple(((("pass-card", True),) + p) if i == pile else p for i, p in enumerate(ship.piles))
    w = run(at(ship, "crew-quarters", piles=piles), "search take 1")
    assert sorted(passes(w).values()) == [1, 1]


# === S1.3 using passes ============================================================================
def test_S1_3_spending_a_pass_costs_no_time_and_the_card_stays_with_her(ship):
    """S1.3: a pass spent on a duct's slot costs no time; her card stays, empty, and the pass lies on
    the slot for good."""
    w = act(ship, "action:open-fore-duct")
    assert w.time == 6 and list(passes(w).values()) == [0]
    assert on_card(w, "fore-duct") == 1
    assert "spends a pass token from her items, onto Fore Duct" in texts(w)


def test_S1_3_an_empty_pass_card_is_never_discarded(ship):
    """S1.3: a card with no pass is left alone by any discard, by name, by choice or at random (the
    Loose Cargo event); a full one may go, its pass back to the supply (the default)."""
    empty = act(ship, "action:open-fore-duct").freeze()
    for effect in ("discard a random item", "discard an item", "discard item pass-card"):
        w = run(empty, effect)
        assert list(passes(w).values()) == [0], effect
    w = run(empty, "draw event")  # whatever the event, the empty card stays
    assert "pass-card" in [h.id for h in (*w.held, *w.pack)]
    supply = len(ship.supply)
    w = run(ship, "discard item pass-card")
    assert passes(w) == {} and len(w.supply) == supply + 1


def test_S1_3_two_cards_hold_their_passes_apart(ship):
    """S1.3: each card holds its own pass: spending one empties one card; the other keeps its pass."""
    s = with_passes(ship, 2)
    w = act(s, "action:open-fore-duct")
    assert sorted(passes(w).values()) == [0, 1]


def test_S1_3_placed_passes_never_return(ship):
    """S1.3: a pass put on a slot or a repair card stays there: nothing of the scenario moves it back
    to her cards."""
    s = with_passes(ship, 2)
    w = act(s, "action:open-fore-duct")
    w = act(w.freeze(), "action:repair-self-destruct")
    assert on_card(w, "fore-duct") == 1 and on_card(w, "self-destruct") == 1 and sum(passes(w).values()) == 0
    from lastbreath.dsl import nodes as n

    moves_back = [e for a in ship.game.actions for e in n.walk(a.effects)
                  if isinstance(e, n.MoveTokens) and "card" in str(getattr(e, "source", ""))]
    assert moves_back == []


# === S1.4 maintenance ducts =======================================================================
@pytest.mark.parametrize("duct", sorted(DUCTS))
def test_S1_4_a_duct_is_shut_to_everyone_until_a_pass_opens_it_from_either_end(ship, duct):
    """S1.4 (default 'next to' = either end): the duct is no path for anyone at first; at either end,
    with a pass, she may open it (free); it then joins its ends for her and her followers, never
    for enemies; it is not offered again."""
    a, b = DUCTS[duct]
    w = make_work(ship)
    ia, ib = L(ship, a), L(ship, b)
    assert fg_tables(w)[1][ia][ib] > 1 and victim_tables(w)[1][ia][ib] > 1
    enemy = enemy_tables(w)[1][ia][ib]
    assert enemy > 1
    for end in (a, b):
        assert f"action:open-{duct}" in menu(at(ship, end))
    assert f"action:open-{duct}" not in menu(at(ship, "observation-deck"))
    assert f"action:open-{duct}" not in menu(at(with_passes(ship, 0), a)), "no pass: no opening"
    w = act(at(ship, b), f"action:open-{duct}")
    assert fg_tables(w)[1][ia][ib] == 1 and victim_tables(w)[1][ia][ib] == 1
    assert enemy_tables(w)[1][ia][ib] == enemy, "enemies never use a duct"
    assert f"action:open-{duct}" not in menu(settle(w.freeze(), token_on=w.token_on + (
        ("item:pass-card#9", "pass", "pass", True),), pack=w.pack + (HeldItem("pass-card", 0, 9),), item_seq=9))


def test_S1_4_victims_follow_her_through_an_open_duct(ship):
    """S1.4: once open, victims following her may use it."""
    s = at(ship, "mess-hall", victims=tuple(2 if i == L(ship, "mess-hall") else 0 for i in range(ship.game.board.n)))
    w = act(s, "action:open-galley-duct")
    w = run(w.freeze(), "move up to 1", ["move:armory", "follow:2"])
    assert w.fg_loc == L(ship, "armory") and w.victims[L(ship, "armory")] == 2


def test_S1_4_panicking_victims_never_flee_into_a_duct(rs):
    """S1.4 (default): no duct carries a panic number at either end, so a victim in a panic never
    runs down one, open or shut."""
    s = rs.scenarios[SCENARIO]
    for p in s.paths:
        if "duct" in p.tags:
            assert p.a_panic == () and p.b_panic == (), p


def test_S1_4_the_killer_goes_the_long_way_round(ship):
    """S1.4: enemies can never use a duct, open or closed: the wolf on the bridge hunting her in the
    cryo bay goes around, though the duct there is open."""
    w = act(at(ship, "bridge", killers=killer_at(ship, "observation-deck")), "action:open-fore-duct")
    w.fg_loc = L(ship, "cryo-bay")
    w.killers = killer_at(ship, "bridge")
    w.phase = "killer"
    engine.hunt(w, "killer", "fg", 1, 0)
    assert w.killers[0].loc != L(ship, "cryo-bay")


# === S1.5 repairs =================================================================================
@pytest.mark.parametrize("where", sorted(REPAIRS))
def test_S1_5_a_repair_card_takes_passes_only_while_she_stands_at_its_location(ship, where):
    """S1.5: each repair location takes passes onto its own card (free), not from elsewhere."""
    card = REPAIRS[where]
    assert f"action:repair-{card}" in menu(at(with_passes(ship, 1), where))
    others = [w for w in REPAIRS if w != where]
    for other in others:
        assert f"action:repair-{REPAIRS[other]}" not in menu(at(with_passes(ship, 1), where))
    w = act(at(with_passes(ship, 1), where), f"action:repair-{card}")
    assert on_card(w, card) == 1 and w.time == 6


def test_S1_5_each_card_demands_its_own_number_and_takes_no_more(ship):
    """S1.5: the compactor's crusher takes one pass, the furnace's incinerator two, the hangar's
    airlock three, the bridge's self-destruct four; no two alike; a full card is offered no more."""
    w = act(at(with_passes(ship, 2), "trash-compactor"), "action:repair-crusher")
    assert on_card(w, "crusher") == 1 and "action:repair-crusher" not in menu(w.freeze())
    s = at(with_passes(ship, 4), "bridge")
    for _ in range(4):
        assert "action:repair-self-destruct" in menu(s)
        s = act(s, "action:repair-self-destruct").freeze()
    assert on_card(s, "self-destruct") == 4 and "action:repair-self-destruct" not in menu(s)


def test_S1_5_the_airlock_is_repaired_over_several_visits(ship):
    """S1.5 (default): passes go on over as many visits as she likes; the device works from the
    moment the card holds its number (the airlock: three)."""
    s = at(with_passes(ship, 3), "hangar", killers=killer_at(ship, "hangar"))
    s = act(s, "action:repair-airlock").freeze()
    s = act(s, "action:repair-airlock").freeze()
    s = at(s, "cargo-hold")  # she goes away, and comes back
    assert "action:open-airlock" not in menu(s), "two of three: not yet"
    s = at(s, "hangar")
    s = act(s, "action:repair-airlock").freeze()
    assert on_card(s, "airlock") == 3
    assert "action:open-airlock" in menu(at(s, "cargo-hold"))


def test_S1_5_the_crusher_closes_on_the_enemies_in_the_compactor_as_the_killer_phase_ends(ship):
    """S1.5: with its pass, the crusher deals 2 damage to each enemy in the compactor at the end of
    the Killer phase; without it, or with nobody there, nothing happens."""
    s = at(with_passes(ship, 1), "trash-compactor")
    fixed = act(s, "action:repair-crusher").freeze()
    for state, where, hurt in ((fixed, "trash-compactor", 2), (s, "trash-compactor", 0), (fixed, "furnace", 0)):
        w = make_work(settle(state, fg_loc=L(ship, "bridge"), killers=killer_at(ship, where), phase="killer"))
        health = w.killers[0].health
        engine.fire(w, "end:killer")
        assert w.killers[0].health == health - hurt, (where, hurt)


def test_S1_5_the_incinerator_burns_what_is_at_or_next_to_the_furnace(ship):
    """S1.5: the incinerator working (two passes) has three flames; each blast (1 time, from anywhere)
    deals 2 damage to the enemies at the furnace and next to it."""
    s = at(with_passes(ship, 2), "furnace")
    s = act(s, "action:repair-incinerator").freeze()
    assert on_card(s, "incinerator", "flame") == 0, "one of two: not yet"
    w = act(s, "action:repair-incinerator")
    assert on_card(w, "incinerator", "flame") == 3
    far = at(w.freeze(), "bridge", killers=killer_at(ship, "engineering"))
    assert "action:fire-incinerator" in menu(far)
    assert "action:fire-incinerator" not in menu(at(w.freeze(), "bridge", killers=killer_at(ship, "hangar")))
    health = far.killers[0].health
    w = act(far, "action:fire-incinerator")
    assert w.killers[0].health == health - 2 and on_card(w, "incinerator", "flame") == 2 and w.time == 5


# === S1.6 losing a repair =========================================================================
def test_S1_6_a_pass_taken_off_the_incinerator_puts_out_its_flames(ship):
    """S1.6: a pass coming off a working card (the Coolant Leak event) stops its device on the spot,
    and its tokens, the flames, go with it."""
    s = at(with_passes(ship, 2), "furnace")
    s = act(act(s, "action:repair-incinerator").freeze(), "action:repair-incinerator").freeze()
    assert on_card(s, "incinerator", "flame") == 3
    w = run(s, "remove 1 token pass from card incinerator")
    assert on_card(w, "incinerator") == 1 and on_card(w, "incinerator", "flame") == 0
    assert "action:fire-incinerator" not in menu(at(w.freeze(), "bridge", killers=killer_at(ship, "furnace")))


def test_S1_6_a_false_alarm_stops_the_countdown(ship):
    """S1.6: the self-destruct loses a pass: its countdown tokens are taken away, and no Upkeep
    blows the ship apart."""
    s = at(with_passes(ship, 4), "bridge")
    for _ in range(4):
        s = act(s, "action:repair-self-destruct").freeze()
    assert on_card(s, "self-destruct", "countdown") == 3
    w = run(s, "remove 1 token pass from card self-destruct")
    assert on_card(w, "self-destruct", "countdown") == 0
    event = next(e for e in ship.game.scenario.events if e.id == "false-alarm")
    w = make_work(s)
    engine.run(w, event.effects, w.game.source_ctx[event.id])
    assert on_card(w, "self-destruct", "countdown") == 0 and on_card(w, "self-destruct") == 3


# === S1.7 the freighter ===========================================================================
def _key_in_hand(s, **fields):
    return settle(s, held=(HeldItem("freighter-key", 0),), **fields)


def test_S1_7_the_freighter_goes_with_her_only_while_she_holds_the_key(ship):
    """S1.7: from the hangar she may take the freighter along while the key is in her hand; without
    it the freighter is not offered, and stays where it stands."""
    s = at(_key_in_hand(ship), "hangar")
    w = run(s, "move up to 1", ["move:cargo-hold:super-freighter"])
    assert w.fg_loc == L(ship, "cargo-hold") and w.conveyances == (L(ship, "cargo-hold"),)
    bare = at(settle(ship, held=()), "hangar")
    w = make_work(bare)
    with pytest.raises(engine.NeedChoice) as got:
        engine.run(w, fx("move up to 1"), Ctx())
    assert "move:cargo-hold:super-freighter" not in got.value.choice.keys()
    w = run(bare, "move up to 1", ["move:cargo-hold"])
    assert w.conveyances == (L(ship, "hangar"),)


def test_S1_7_the_key_is_held_in_hand_never_packed(ship):
    """S1.7 (default: having it means holding it in hand): the key goes to her hands, never to the
    backpack."""
    w = run(settle(ship, held=(), pack=()), "gain item freighter-key")
    assert [h.id for h in w.held] == ["freighter-key"] and "freighter-key" not in [h.id for h in w.pack]
    assert ship.game.items["freighter-key"].hand_only


def test_S1_7_the_freighter_never_goes_through_a_duct(ship):
    """S1.7: the freighter does not fit a maintenance duct: through the open hangar duct she goes
    alone, and it stays in the hangar."""
    s = act(at(_key_in_hand(with_passes(ship, 1)), "hangar"), "action:open-hangar-duct").freeze()
    w = make_work(s)
    with pytest.raises(engine.NeedChoice) as got:
        engine.run(w, fx("move up to 1"), Ctx())
    keys = got.value.choice.keys()
    assert "move:engineering" in keys and "move:engineering:super-freighter" not in keys
    assert "move:cargo-hold:super-freighter" in keys


def test_S1_7_three_victims_ride_with_the_freighter(ship):
    """S1.7: as she moves with it, up to three victims come along (on foot only two may follow)."""
    v = tuple(3 if i == L(ship, "hangar") else 0 for i in range(ship.game.board.n))
    s = at(_key_in_hand(ship, victims=v), "hangar")
    w = run(s, "move up to 1", ["move:cargo-hold:super-freighter", "follow:3"])
    assert w.victims[L(ship, "cargo-hold")] == 3


# === S1.8 suicide =================================================================================
def _airlock_ready(ship, where: str, health: int):
    s = at(with_passes(ship, 3), "hangar", killers=killer_at(ship, "hangar"))
    for _ in range(3):
        s = act(s, "action:repair-airlock").freeze()
    return settle(s, fg_loc=L(ship, where), fg_health=health, fg_breath=1, breath_bag=(0,) * len(s.breath_bag))


def test_S1_8_the_airlock_taking_both_of_them_is_a_loss(ship):
    """S1.8: opened while she stands in the hangar, the airlock blows the killer out, and her with it
    when its blow is her last: that is suicide, a loss, not her win (the exception to C13.2, read from
    the cause: the airlock's action)."""
    s = _airlock_ready(ship, "hangar", 2)
    w = make_work(s, ["action:open-airlock"])
    with pytest.raises(engine.GameOver):
        engine.step_action(w)
    assert w.result == "killer" and "suicide" in w.end_reason


def test_S1_8_the_airlock_from_outside_the_hangar_is_her_win(ship):
    """S1.8: opened from elsewhere, the airlock takes the killer alone: her win (C13.1)."""
    s = _airlock_ready(ship, "cargo-hold", 2)
    w = make_work(s, ["action:open-airlock"])
    with pytest.raises(engine.GameOver):
        engine.step_action(w)
    assert w.result == "fg"


def test_S1_8_the_airlock_a_blow_she_survives_is_no_end(ship):
    """S1.8: the killer gone and she standing (health left): her win, no suicide."""
    s = _airlock_ready(ship, "hangar", 6)
    w = make_work(s, ["action:open-airlock"])
    with pytest.raises(engine.GameOver):
        engine.step_action(w)
    assert w.result == "fg" and w.fg_health == 2


@pytest.mark.parametrize(("where", "result"), [("bridge", "killer"), ("escape-pods", "fg")])
def test_S1_8_the_self_destruct_takes_everyone_not_in_the_escape_pods(ship, where, result):
    """S1.8: the countdown's last token gone (three Upkeeps), the ship blows apart: the killer with
    it, every victim outside the escape pod bay, and her unless she stands there; going down with the
    killer is suicide, a loss."""
    s = at(with_passes(ship, 4), "bridge")
    for _ in range(4):
        s = act(s, "action:repair-self-destruct").freeze()
    v = tuple(1 if i in (L(ship, "escape-pods"), L(ship, "mess-hall")) else 0 for i in range(ship.game.board.n))
    s = settle(s, fg_loc=L(ship, where), fg_health=3, fg_breath=1, breath_bag=(0,) * len(s.breath_bag), victims=v,
               phase="upkeep", sub=0)
    over = None
    for _ in range(3):
        w = make_work(s)
        try:
            engine.fire(w, "start:upkeep")
        except engine.GameOver:
            over = w
            break
        s = w.freeze()
    assert over is not None and over.result == result
    assert over.victims[L(ship, "mess-hall")] == 0 and over.victims[L(ship, "escape-pods")] == 1
    if result == "killer":
        assert "suicide" in over.end_reason


# === every killer aboard ============================================================================
@pytest.mark.parametrize("killer", KILLERS)
def test_every_killer_plays_a_whole_game_aboard(rs, killer):
    """S1 with every bundled killer: greedy and random games end, without errors."""
    from lastbreath.interpreter.bots import BOTS

    for bot in ("greedy", "random"):
        for seed in range(2):
            state, _ = api.new_game(rs, killer=killer, scenario=SCENARIO, seed=seed)
            state = api.play(state, BOTS[bot](seed))
            assert state.over and state.result in ("fg", "killer")


CRUSHED_ON_ENTRY = """
module cz-crusher-on-entry {
  name "Crusher on entry"
  about "The Konrad's crusher as first written: it closes on the enemies in the compactor as one comes in."
  for scenario uss-konrad {
    replace deck repairs {
      name "Repair Cards"
      card crusher {
        name "Crusher"
        start table
        when enemy enters trash-compactor if count tokens pass on card crusher at least 1 {
          damage (enemies at trash-compactor) 2
        }
      }
      card incinerator { name "Incinerator"; start table }
      card airlock { name "Airlock"; start table }
      card self-destruct { name "Self-Destruct"; start table }
    }
  }
}
"""


def test_S1_5_a_minion_crushed_as_it_enters_does_not_break_the_hunt(tmp_path):
    """What the crusher first was (S1.5): damage dealt to the enemies of a location as one enters it.
    A zombie that walks in and dies there must not break the Killer phase (greedy, seed 237): the
    hunt goes on with the minions still in play (C9.4, K6.4; enemies.py finds each by its uid)."""
    from conftest import load_with

    from lastbreath.interpreter.bots import BOTS

    rs = load_with(tmp_path, CRUSHED_ON_ENTRY)
    state, _ = api.new_game(rs, killer="zombies", scenario=SCENARIO, final_girl="nell-arden", seed=237,
                            modules=("cz-crusher-on-entry",))
    state = api.play(state, BOTS["greedy"](237))
    assert state.over


def test_S1_content_json_lists_the_konrad(capsys):
    """Issue #36: `lastbreath content --json` lists the U.S.S. Konrad (S1) among the bundled content."""
    import json

    from lastbreath.interpreter.cli import main

    assert main(["content", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ids = {r["id"]: r for r in data["scenarios"]}
    assert ids[SCENARIO] == {"id": SCENARIO, "name": "U.S.S. Konrad", "pack": "core"}


@pytest.mark.parametrize("killer", KILLERS)
def test_S1_the_final_girl_wins_10_to_70_percent_aboard_against_every_killer(rs, killer):
    """Issue #36 (docs/balance.md): a small version of the balance measure, 60 greedy games a killer,
    seed 1, Nell Arden: the Final Girl wins between 10% and 70% of them."""
    from lastbreath.interpreter.simulate import run_games

    games = 60
    records = run_games(rs, {"killer": killer, "scenario": SCENARIO, "final_girl": "nell-arden"}, games, 1,
                        "greedy", jobs=1)
    assert not [r.error for r in records if r.error]
    wins = sum(r.result == "fg" for r in records)
    assert 0.10 * games <= wins <= 0.70 * games, (killer, wins)
