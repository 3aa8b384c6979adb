"""The sources of abilities in play, kept by the working copy (engine/statics.abilities).

A working copy keeps the sources it found, and what it looked up among them (the rules answering
a question, the triggers of a happening), until one of the fields that decide them is written
(working.SOURCE_FIELDS, written through their setters: fields.SETTERS). Games played with that memory and without it are the same, event
for event (K1.6, C11.1: cards revealed, dark powers and items coming into play mid-step)."""

from __future__ import annotations

import pytest
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.engine import fields, statics, working

SETUPS = [("big-bad-wolf", "storybook-woods"), ("zombies", "wolfe-asylum"), ("ratchet-lady", "wolfe-asylum"),
          ("intruders", "wingard-cottage"), ("ratchet-lady", "storybook-woods"), ("evomorph", "wolfe-asylum")]


def _played(rs, killer, scenario, seed):
    policy = BOTS["random"](seed)
    st, events = new_game(rs, killer=killer, scenario=scenario, seed=seed)
    seen = [list(events)]
    while not st.result and len(seen) < 600:
        st, events = engine.apply(engine.replace(st), policy(st, st.choice))  # a copy: every step replays
        seen.append(list(events))
    return seen, st.result, st.end_reason


@pytest.mark.parametrize("killer,scenario", SETUPS)
def test_games_are_the_same_without_the_kept_sources(rs, killer, scenario, monkeypatch):
    kept = [_played(rs, killer, scenario, seed) for seed in range(4)]
    # a working copy that never keeps them: every lookup finds the sources again
    monkeypatch.setattr(working.Work, "sources", property(lambda w: None, lambda w, v: None))
    fresh = [_played(rs, killer, scenario, seed) for seed in range(4)]
    assert kept == fresh
    assert all(result for _ev, result, _why in kept)


def test_writing_a_field_that_decides_the_sources_forgets_them(rs):
    state, _ = new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=3)
    for field in working.SOURCE_FIELDS:
        w = engine.work(state)
        found = statics.abilities(w)
        assert w.sources is found and statics.abilities(w) is found
        statics.rules_in_play(w, next(iter(w.game.rule_queries), "dice"))
        fields.SETTERS[field](w, getattr(w, field))  # the same value, written: the sources are found again
        assert w.sources is None
        assert statics.abilities(w) == found and w.found == {}


def test_the_sources_follow_a_revealed_dark_power(rs):
    """C11.1: the dark power revealed with the finale brings its abilities into play at once."""
    state, _ = new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=5)
    w = engine.work(state)
    before = statics.abilities(w)
    assert w.dark_power and not w.dark_revealed
    fields.set_dark_revealed(w, True)
    after = statics.abilities(w)
    dark = w.game.dark_powers[w.dark_power].abilities
    assert (dark in after) == bool(dark) and (dark not in before or not dark)
    assert after == statics._abilities(w)


def test_an_answer_asked_with_no_arguments_is_kept_with_the_rules_in_play(rs):
    """statics.modified: the rule functions are pure, so an answer from rules without ``while`` is
    kept while those rules are in play (the enemies' barred path tags, at every enemy act)."""
    state, _ = new_game(rs, killer="zombies", scenario="storybook-woods", seed=2)
    w = engine.work(state)
    statics.abilities(w)
    assert statics.modified(w, "enemy-bans", frozenset()) == frozenset()
    assert w.found[("enemy-bans", frozenset())] == (frozenset(),)
    fields.set_events_active(w, w.events_active + ("troll-under-the-bridge",))  # a lasting event with the rule
    first = statics.modified(w, "enemy-bans", frozenset())
    assert first == {"bridge"}  # the rules in play changed: found again
    assert statics.modified(w, "enemy-bans", frozenset()) is first  # kept: the same object
    fields.set_flipped(w, w.flipped)  # a source field written: forgotten with the sources
    again = statics.modified(w, "enemy-bans", frozenset())
    assert again == first and again is not first  # found again (a new set, equal)


def test_a_rule_with_while_is_read_again_at_every_question(rs):
    """C2.4 with a condition ('rule dice +1 while killer at here'): its answer follows the board."""
    state, _ = new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=2,
                        final_girl="wren-halvorsen")
    w = engine.work(state)
    w.flipped = True
    here = w.fg_loc
    away = next(i for i in range(w.game.board.n) if i != here)
    answers = []
    for at in (away, here, away, here):
        w.killers = tuple(engine.evolve_killer(k, loc=at) for k in w.killers)
        answers.append(statics.modified(w, "dice", 2))
    assert answers == [2, 3, 2, 3]
    assert ("dice", 2) not in w.found


def test_no_rule_function_reads_the_state():
    """modified keeps the answers of rule functions while the same rules are in play, so none may
    read the board: a rule whose answer follows it (C9.2's hidden victims) answers with what to read
    (its places), and its caller reads them now (tracks.hidden_victims)."""
    import inspect

    given_w = {statics.QUERY_OF[cls] for cls, fn in statics.RULE_FUNCTIONS.items()
               if any("Work" in str(p.annotation) for p in inspect.signature(fn).parameters.values())}
    assert given_w == set()
    assert "hidden-victims" in statics.QUERY_OF.values()


def test_an_answer_asked_with_arguments_is_kept_by_its_arguments(rs):
    """S5.5's question (does this status stop a move?) is asked with the piece's status: each
    status its own answer, kept while the same rules are in play."""
    state, _ = new_game(rs, killer="ratchet-lady", scenario="wolfe-asylum", seed=2)
    w = engine.work(state)
    statics.abilities(w)
    rule = next(r for r in statics.rules_in_play(w, "stops-moves"))
    stopped = statics.modified(w, "stops-moves", False, frozenset({rule.status}))
    free = statics.modified(w, "stops-moves", False, frozenset())
    assert (stopped, free) == (True, False)
    assert w.found[("stops-moves", False, frozenset({rule.status}))] == (True,)
    assert w.found[("stops-moves", False, frozenset())] == (False,)


def test_the_keys_kept_in_found_cannot_collide():
    """Work.found keeps three kinds of entry: the rules answering a question (by the question), the
    triggers of a happening (by field and kind) and kept answers (by question, value, arguments):
    no question is named as one of the trigger fields."""
    assert not set(statics.QUERY_OF.values()) & {"triggers", "replacements", "modifications"}


def test_shared_contexts_are_made_once_and_bounded():
    """The contexts shared by a source's effects and by triggers (a Ctx is never written) hold what
    a context made anew would, one per key; the triggers' table is cleared when it is full."""
    from lastbreath.interpreter.engine.tables import SourceContexts, TriggerContexts

    srcs = SourceContexts()
    c = srcs["terror-1"]
    assert srcs["terror-1"] is c and (c.source, c.attack, c.that, c.killer, c.spent, c.cause) == (
        "terror-1", None, 0, -1, (), "")
    trig = TriggerContexts()
    trig.limit = 3
    t = trig[("damage", 2, 1, "killer", "walk")]
    assert trig[("damage", 2, 1, "killer", "walk")] is t
    assert (t.source, t.attack, t.that, t.killer, t.spent, t.spent_token, t.cause, t.by) == (
        "damage", None, 2, 1, (), "", "killer", "walk")
    for k in range(10):
        trig[("fear-raised", k, -1, "", "")]
        assert len(trig) <= 3


def test_matchers_fire_skips_answer_every_happening_of_their_kind():
    """fire calls no matcher for events that answer every happening of their kind (a phase's start
    or end, fear rising or falling, a card's own event, the game's start): those are the ones."""
    from lastbreath.dsl import nodes as n
    from lastbreath.interpreter.engine.triggers import MATCH, MATCHES_EVERY, Happening

    assert MATCHES_EVERY == {n.PhaseEvent, n.FearChanges, n.OwnEvent, n.GameStarts}
    h = Happening("end:killer", None, 3, 2, "kill", "x")
    assert all(MATCH[cls](None, None, h) is True for cls in MATCHES_EVERY)
    assert n.PieceEvent not in MATCHES_EVERY and n.TokenEvent not in MATCHES_EVERY
