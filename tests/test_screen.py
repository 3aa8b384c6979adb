"""The play screen (interpreter/screen.py): stable keys, what the status shows, the map, the
Killer phase's steps, commands, and one screen at 80×24 kept as a snapshot."""

from __future__ import annotations

import io
import json
import re
import sys

import attrs
import pytest
from conftest import L, settle

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter import screen
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.session import Session
from lastbreath.interpreter.state import GameState, KillerState, MinionState

RS = load_ruleset()


def planning(seed: int = 15) -> Session:
    """A session at its first buying menu (ending the Action phase at once)."""
    s = Session(RS, seed=seed)
    while s.choice.kind != "buy":
        s.apply("end" if "end" in s.choice.keys() else s.choice.options[0].key)
    return s


# --- stable keys ----------------------------------------------------------------------------------
def test_an_option_keeps_its_key_after_a_purchase():
    s = planning()
    keys = screen.Keys()
    before = {e.option.key: e.key for e in keys.menu(s.state)}
    bought = next(k for k in before if k.startswith("buy:"))
    s.apply(bought)
    assert s.choice.kind == "buy"
    after = {e.option.key: e.key for e in keys.menu(s.state)}
    gone = set(before) - set(after)  # sold out, or no longer affordable
    assert gone and set(after) <= set(before)
    assert all(after[k] == before[k] for k in after)  # the rest keep their numbers…
    assert not {before[k] for k in gone} & set(after.values())  # …and a number gone is not given to another


def test_a_number_typed_from_the_old_menu_never_picks_another_option():
    s = planning()
    keys = screen.Keys()
    menu = keys.menu(s.state)
    s.apply(menu[1].option.key)  # a purchase: cards sell out or become too dear
    now = keys.menu(s.state)
    for e in menu:
        key, why = screen.pick(e.key, now)
        assert key == e.option.key or (key is None and "no option" in why)
    assert len(now) < len(menu)


def test_an_option_keeps_its_number_for_the_whole_game():
    """The same action, the same number, in every round (issue 35: 'end the Action phase' was 9,
    then 10, 12 and 14 in later rounds)."""
    from lastbreath.interpreter.api import random_policy

    s = Session(RS, seed=8)
    keys = screen.Keys()
    bot = random_policy(8)
    seen: dict[tuple[str, str], str] = {}
    rounds = set()
    while not s.over and s.state.round <= 8:
        menu = keys.menu(s.state, notes=False, at=len(s.history) - 1)
        assert [int(e.key) for e in menu] == sorted(int(e.key) for e in menu)
        for e in menu:
            assert seen.setdefault((s.choice.kind, e.option.key), e.key) == e.key, (s.state.round, e.option.label)
        rounds.add(s.state.round)
        s.apply(bot(s.state, s.choice))
    assert len(rounds) >= 5 and ("action", "end") in seen
    first = keys.menu(Session(RS, seed=8).state)  # a game's first menu is numbered from 1
    assert [e.key for e in first][:1] == ["1"]


def test_a_loaded_game_keeps_its_numbers_and_undo_frees_the_new_ones():
    """--load: the history is replayed, and its decisions numbered in order, so every option has the
    number it had when the game was saved; an undone decision's new numbers are given again."""
    from lastbreath.interpreter.api import random_policy

    s = Session(RS, seed=8)
    keys = screen.Keys()
    bot = random_policy(8)
    for _ in range(40):
        keys.menu(s.state, notes=False, at=len(s.history) - 1)
        s.apply(bot(s.state, s.choice))
    saved = [(e.key, e.option.key) for e in keys.menu(s.state, notes=False, at=len(s.history) - 1)]
    loaded = Session.load(RS, s.save())
    again = screen.Keys()
    again.replay([st for st, _k in loaded.history[:-1]])
    assert [(e.key, e.option.key) for e in again.menu(loaded.state, notes=False, at=len(loaded.history) - 1)] == saved
    # undo: a number first given after the decision returned to is free again, as if never given
    at = len(s.history) - 1
    before = {k: dict(v) for k, v in keys._menus.items()}
    s.apply(bot(s.state, s.choice))
    keys.menu(s.state, notes=False, at=len(s.history) - 1)
    s.undo()
    keys.forget_after(at)
    assert {k: dict(v) for k, v in keys._menus.items() if v} == {k: dict(v) for k, v in before.items() if v}


def test_pick_by_number_engine_key_and_word_prefixes():
    s = Session(RS, seed=5)
    menu = screen.Keys().menu(s.state)
    assert screen.pick("3", menu)[0] == menu[2].option.key
    assert screen.pick("play:walk", menu)[0] == "play:walk"
    assert screen.pick("play wa", menu)[0] == "play:walk"
    assert screen.pick("  Play   WA ", menu)[0] == "play:walk"
    assert screen.pick("end", menu)[0] == "end"
    key, why = screen.pick("walk", menu)  # play Walk or discard Walk
    assert key is None and "play Walk" in why and "discard Walk" in why
    assert screen.pick("zzz", menu)[0] is None


# --- the status: every fact in play, read generically --------------------------------------------
SHOWN = {"round", "phase", "result", "end_reason", "fg_loc", "fg_health", "fg_breath", "fear", "time", "hand",
         "held", "pack", "rescued", "slots", "flipped", "skip_action", "victims", "killers", "minions",
         "bloodlust", "dead", "deaths_round", "terror", "finale", "finale_revealed", "dark_power", "dark_revealed",
         "secondary", "secondary_health", "events", "events_active", "piles", "setup_card", "mode", "mode_active",
         "flags", "opened", "tokens", "supply", "collected", "token_discard", "decks", "kept", "market", "dice",
         "active", "table", "aside", "item_piles", "on_piles", "deck_discards", "cards_aside",  # zones: tests/test_zones.py
         "tracks", "holding", "delayed", "barred",  # tracks: tests/test_tracks.py
         "marked", "fg_status", "token_on",  # victim kinds, statuses, tokens on things: tests/test_pieces.py
         "cards_gone",  # action cards removed from the game: tests/test_cards_gained.py
         "conveyances",  # pieces that travel with her, where they stand: tests/test_conveyances.py
         "victims_taken",  # the victims left in the supply (C5.7)
         "tokens_down"}  # tokens face down on the board, their kinds hidden: tests/test_tokens.py
HIDDEN = {"game", "seed", "rng", "sub", "answers", "checkpoint", "events_seen", "choice",  # bookkeeping
          "fg_breath_value", "breath_bag",  # the backs of last-breath tokens: hidden from the player
          "spent",  # this round's played cards: gone from the hand, back to the market at Upkeep
          "action_over", "lust_fired", "minion_seq",  # the engine's own progress marks
          "card_number",  # the number of the last deck card drawn: said in the log as it is drawn
          "victim_seq",  # the last uid given to a victim that is not plain
          "victims_in",  # the victims that came into play: a count a load checks (the screen shows where they are)
          "arrivals",  # the order sources came into play: it orders their modifications, shown by none
          "item_seq"}  # the last number given to an item card: the numbers show with the cards' tokens


def test_every_state_field_is_shown_or_deliberately_hidden():
    """A new field of the state must be shown on the screen or named here as hidden."""
    fields = {f.name for f in attrs.fields(GameState)}
    assert fields == SHOWN | HIDDEN, (fields - SHOWN - HIDDEN, (SHOWN | HIDDEN) - fields)


def test_status_shows_flags_modes_statuses_tokens_decks_kept_cards_and_a_second_dark_power(game):
    st = game.game
    token = next(iter(st.tokens), None)
    deck = next(iter(st.decks), None)
    fields = dict(flags=frozenset({"beam-at-3"}), mode="prowling", mode_active="prowling",
                  killers=(attrs.evolve(game.killers[0], status=frozenset({"stunned"})),),
                  secondary="sec-x", secondary_health=2, deaths_round=1, skip_action=True, dice=(4, 1))
    if token:
        kinds = st.tokens[token].kinds
        fields.update(tokens=((token, kinds[0], 3),), collected=((token, kinds[-1]),), supply=((token, kinds[0]),))
    if deck:
        fields.update(decks=((deck, ("a", "b")),), kept=(f"{deck}/{st.decks[deck].cards[0].id}",))
    state = settle(game, **fields)
    facts = dict(screen.status_facts(state))
    text = "\n".join(f"{k}: {v}" for k, v in screen.status_facts(state))
    assert facts["Flags"] == "beam-at-3"
    assert "prowling" in facts["Mode"]
    assert "stunned" in text and "sec-x" in facts["Second dark power"] and "health 2" in facts["Second dark power"]
    assert facts["Killed this round"] == "1" and facts["Next Action phase"] == "skipped"
    assert facts["Next dice"].startswith("4 1")
    # the plain status block and the screen's tracks carry the same facts
    summary = screen.board_summary(state)
    assert "Flags: beam-at-3" in summary and "Mode: prowling" in summary
    assert any("flags: beam-at-3" in line for line in screen.tracks_lines(state))


@pytest.mark.parametrize("killer, scenario", [("zombies", "wolfe-asylum"), ("ratchet-lady", "wolfe-asylum")])
def test_status_of_games_with_tokens_minions_and_statuses(killer, scenario):
    """Games whose content puts tokens, minions and statuses on the board: they show, and a
    face-down token's kind does not (only its type)."""
    s = Session(RS, seed=3, killer=killer, scenario=scenario)
    state = s.state
    assert state.tokens
    text = "\n".join(f"{k}: {v}" for k, v in screen.status_facts(state))
    tok = state.tokens[0][0]
    name = state.game.tokens[tok].name
    assert f"Tokens: {name}" in text
    kinds = set(state.game.tokens[tok].kinds)
    assert not any(f"{k} {name}" in text for k in kinds)  # face down: no kind
    rows = screen.map_rows(state)
    assert sum(name in r.here for r in rows) == len({loc for _t, _k, loc in state.tokens})


# --- the map ------------------------------------------------------------------------------------------
def test_map_rows_show_paths_panic_faces_closed_paths_and_who_is_where(game):
    rows = screen.map_rows(game)
    board = game.game.board
    assert len(rows) == board.n
    you = rows[game.fg_loc]
    assert you.fg and "YOU" in you.here
    k = rows[game.killers[0].loc]
    assert k.enemy and game.game.killer.name in k.here
    for i, v in enumerate(game.victims):
        assert (f"{v} victim" in rows[i].here) == bool(v)
    closed = [(a, b) for a, b, _ap, _bp, _t, c in board.paths if c]
    assert closed, "the default scenario has a closed path"
    a, b = closed[0]
    assert any(p[0] == b + 1 and p[2] for p in rows[a].paths)  # shown closed…
    k_closed = next(k for k, p in enumerate(board.paths) if p[5])
    opened = screen.map_rows(settle(game, opened=frozenset({k_closed})))
    a, b = board.paths[k_closed][:2]
    assert any(p[0] == b + 1 and not p[2] for p in opened[a].paths)  # …and open once opened
    faces = {f for p in rows[0].paths for f in p[1]}
    assert faces == {f for _a, _b, ap, _bp, _t, _c in board.paths if _a == 0 for f in ap} | \
        {f for _a, _b, _ap, bp, _t, _c in board.paths if _b == 0 for f in bp}
    assert "→" in screen.map_text(game) and board.names[0] in screen.map_text(game)


# --- notes: what a card, a slot, an item does ---------------------------------------------------------
def test_option_notes_say_what_a_rescue_slot_gives_and_what_a_card_does(game):
    from lastbreath.interpreter.state import Option

    fg = game.game.fg
    from lastbreath.dsl.render import render_effects
    assert screen.option_note(game, Option("slot:1", "slot 1")) == render_effects(fg.slots[0])
    note = screen.option_note(game, Option("buy:walk", "buy Walk (0 time)"))
    assert note.startswith("0: -1 time │ 1: -1 time, move up to 1")
    assert screen.option_note(game, Option("end", "end the Action phase")) == ""
    hand = {name: body for name, _k, body in screen.hand_rows(game)}
    assert hand["Walk"] == ["Failure (0): Lose 1 time.", "Success (1): Lose 1 time. Move up to 1.",
                            "Great success (2+): Lose 1 time. Move up to 2."]


def test_the_tracks_say_which_faces_succeed_and_what_each_slot_gives(game):
    lines = screen.tracks_lines(game)
    assert "5–6 succeed, 3–4 for 2 cards" in lines[0]
    assert "□1 +1 time" in lines[2]  # the default Final Girl's first slot: gain 1 time
    narrow = screen.tracks_lines(game, width=80)
    assert all(len(line) <= 80 for line in narrow[:3]) and "5–6 succeed" in narrow[0]


# --- the Killer phase ---------------------------------------------------------------------------------
def _slot_choice(final_girl: str = "ruth-okafor") -> Session:
    """A five-slot Final Girl's first 'which slot?' choice (the greedy bot leads a victim out)."""
    from lastbreath.interpreter.bots import Greedy

    bot = Greedy()
    for seed in range(40):
        s = Session(RS, seed=seed, final_girl=final_girl, killer="ratchet-lady", scenario="wolfe-asylum")
        while not s.over and s.choice.kind != "slot":
            s.apply(bot(s.state, s.choice))
        if not s.over:
            return s
    raise AssertionError("no slot choice in 40 games")


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_five_slots_show_their_rewards_in_the_header_and_the_slot_menu(size):
    """Issue 35: 'slots □□□□□' and a slot menu with no rewards. The rewards get a line of their own
    before they are dropped, and each slot's option keeps its reward beside it, in columns too."""
    s = _slot_choice()
    assert len(s.state.game.fg.slots) == 5
    title = f"{s.state.game.fg.name} vs ... · seed {s.seed}"
    text = screen.screen_text(screen.Parts(s.state, title, [], screen.Keys().menu(s.state), ""), *size)
    names = screen._names(s.state)
    said = [screen.render_effects(fx, names) for fx in s.state.game.fg.slots]
    rewards = [screen._short(t) for t in said]
    head = next(ln for ln in text.splitlines() if ln.startswith("slots ") or " · slots " in ln)
    assert all(f"{i} {r}" in head for i, r in enumerate(rewards, 1)), text
    menu = text.split("Place the rescued victim on which slot?", 1)[1]
    free = [i for i, full in enumerate(s.state.slots, 1) if not full]
    # beside each slot its reward, short in columns or as said on a line of its own
    assert all(re.search(rf"\b{i} slot {i} +({re.escape(rewards[i - 1])}|{re.escape(said[i - 1])})", menu)
               for i in free), text
    assert text.splitlines()[0].startswith(f"Round {s.state.round} · Action phase · seed {s.seed}  ")


def test_health_past_its_start_reads_as_such():
    """Issue 35: 'health 12/6' read like a bug; a killer that heals without a cap (K5.1) shows
    '12 (start 6)'."""
    assert screen.health_of(4, 6) == "4/6" and screen.health_of(6, 6) == "6/6"
    assert screen.health_of(12, 6) == "12 (start 6)"
    state, _ = new_game(RS, killer="ratchet-lady", scenario="wolfe-asylum", seed=1)
    grown = settle(state, killers=(attrs.evolve(state.killers[0], health=12),))
    top = RS.killers["ratchet-lady"].health
    assert f"The Ratchet Lady health 12 (start {top})" in "\n".join(screen.tracks_lines(grown, 100))
    assert f"health 12 (start {top})" in screen.board_summary(grown)


def _killer_phase(seed: int = 5):
    s = Session(RS, seed=seed)
    while True:
        before = s.state
        key = "end" if "end" in s.choice.keys() else ("done" if "done" in s.choice.keys() else s.choice.options[0].key)
        events = s.apply(key)
        if any(e.kind == "target" for e in events):
            return before, s.state, events


def test_killer_steps_show_the_target_its_reason_and_path_before_the_move():
    """C9.2–C9.4: before the killer moves, its target, why (explain's table) and its path."""
    before, after, events = _killer_phase()
    steps = screen.killer_steps(events, before, after)
    target_steps = [st for st in steps if st.events[0].kind == "target"]
    assert target_steps
    st = target_steps[0]
    assert any("decided by" in ln for ln in st.note)
    path = next(ln for ln in st.note if ln.startswith("path: "))
    names = path[len("path: "):].split(" → ")
    board = before.game.board
    assert names[0] == board.names[before.killers[0].loc]  # from where the killer stood
    target = st.events[0].text.split(":")[0][len("target "):]
    assert names[-1] == target
    moved = next(e for e in st.events if e.kind == "enemy-move")
    assert moved.text.split(" moves to ")[1].split(",")[0] in names[1:]  # it moves along that path
    assert [e for s_ in steps for e in s_.events] == list(events)  # nothing lost, nothing reordered


# --- commands -----------------------------------------------------------------------------------------
def test_rule_and_card_commands(game):
    assert screen.rule_text("c9.4").startswith("C9.4 Moving toward the target")  # from docs/rules.md
    assert "not a rule id" in screen.rule_text("walk")
    text = screen.card_text(game, "walk")
    assert text.startswith("Walk\n") and "Move up to 2." in text
    assert screen.card_text(game, "Weak").startswith("Weak Attack")
    assert "no card or item named" in screen.card_text(game, "wlak")
    assert "could be" in screen.card_text(game, "w")  # Walk, Weak Attack, …


def test_hidden_cards_are_not_shown_by_card(game):
    assert game.dark_power and not game.dark_revealed
    name = game.game.dark_powers[game.dark_power].name
    assert "no card" in screen.card_text(game, name) or "could be" in screen.card_text(game, name)


def test_no_color_flag_and_environment():
    assert screen.use_color(False, {}) is True
    assert screen.use_color(True, {}) is False
    assert screen.use_color(False, {"NO_COLOR": "1"}) is False
    assert screen.use_color(False, {"NO_COLOR": ""}) is True  # no-color.org: only a non-empty value


# --- the screen -------------------------------------------------------------------------------------
def _screen(session: Session, width: int, height: int) -> str:
    keys = screen.Keys()
    lines = [("" if e.kind == "phase" else "  ") + e.render() for e in session.events]
    title = "Nell Arden vs The Big Bad Wolf in Storybook Woods (normal) · seed 15"
    return screen.screen_text(screen.Parts(session.state, title, lines, keys.menu(session.state), ""), width, height)


def test_the_planning_menu_fits_80x24_with_the_status_on_screen(snapshot):
    s = planning()
    text = _screen(s, 80, 24)
    lines = text.splitlines()
    assert len(lines) <= 23  # and a line for the prompt
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("Round 1 · Planning phase")
    assert "health" in lines[1] and "fear" in lines[1] and "time" in lines[1]  # the tracks
    assert "YOU" in text and " K " in text  # the map: where you and the killer stand
    assert "Buy cards" in text and "stop buying" in text
    assert text == snapshot


def test_a_tall_terminal_shows_card_texts_the_full_map_and_notes():
    s = planning()
    text = _screen(s, 120, 60)
    assert "Map of Storybook Woods" in text and "(1-3)" in text  # panic faces
    assert "Great success (2+): Lose 1 time. Move up to 2." in text  # the hand in full
    assert "buy Sprint (2 time)  0: -1 time" in text  # what a card on offer does


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (60, 20)])
def test_every_decision_of_a_game_fits_the_terminal(size):
    """Each decision's screen stays within the terminal (the tightest layout may scroll only when
    even it cannot fit, which the bundled content never needs at 80×24)."""
    from lastbreath.interpreter.api import random_policy

    width, height = size
    s = Session(RS, seed=4, killer="zombies", scenario="wolfe-asylum")
    bot = random_policy(4)
    for _ in range(40):
        if s.over:
            break
        text = _screen(s, width, height)
        assert all(len(line) <= width for line in text.splitlines())
        if size == (80, 24):
            assert len(text.splitlines()) <= height - 1, text
        s.apply(bot(s.state, s.choice))


# --- play off a terminal: the plain log ---------------------------------------------------------------
def test_plain_play_keeps_the_event_log_and_accepts_names_and_commands(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\nrule C9.4\ncard walk\nmap\nplay wa\n1\nstatus\nq\n"))
    assert main(["play", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.count("seed") == 1 and out.startswith("seed: 5\n")
    assert "Commands:" in out and "C9.4 Moving toward the target" in out and "Great success (2+)" in out
    assert "Map of Storybook Woods" in out
    assert "  plays Walk [C2.1]" in out  # the same event lines as the bot's log
    assert out.count("── Round 1 · Action phase") == 4  # at first, at the check, after it, and 'status'


def test_save_and_load_resume_at_the_decision_point(tmp_path, monkeypatch, capsys):
    save = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"1\n1\nsave {save}\nq\n"))
    assert main(["play", "--seed", "5"]) == 0
    assert f"saved the game to {save}" in capsys.readouterr().out
    data = json.loads(save.read_text())
    assert data["seed"] == 5 and len(data["choices"]) == 2
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert main(["play", "--load", str(save)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("seed: 5\n") and "Your action:" in out
    resumed = Session.load(RS, data)
    assert screen.board_summary(resumed.state) in out
    assert main(["play", "--load", str(save), "--seed", "3"]) == 2
    assert "leave out --seed" in capsys.readouterr().err
    assert main(["play", "--load", str(tmp_path / "none.json")]) == 2
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    assert main(["play", "--load", str(tmp_path / "bad.json")]) == 1
    err = capsys.readouterr().err
    assert "cannot load" in err and "Traceback" not in err


def test_a_bot_can_finish_a_loaded_game(tmp_path, capsys):
    s = Session(RS, seed=7)
    for _ in range(5):
        s.apply(s.choice.options[0].key)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(s.save()), encoding="utf-8")
    assert main(["play", "--load", str(path), "--bot", "first"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("result: ")


def test_positions_helpers_stay_in_range(game):
    """Pieces off the board (a killer not yet placed) show as such, never as an index error."""
    off = settle(game, killers=(KillerState("x", -1, 1, 0, 0, True, frozenset(), "Body 1"),),
                 minions=(MinionState(next(iter(game.game.minions)), -1, 1, frozenset(), 1),))
    assert "off the board" in "\n".join(screen.tracks_lines(off))
    assert screen.map_rows(off) and L(game, game.game.board.ids[0]) == 0
    assert new_game  # the API the screen reads is the public one


def test_a_token_kind_named_like_its_token_is_not_said_twice():
    assert screen.token_label("blue", "Pill") == "blue Pill"
    assert screen.token_label("pass", "Pass") == "Pass"
    assert screen.token_label("red", "Red Keycard") == "Red Keycard"
