"""Properties (hypothesis): whole games keep their invariants; games replay exactly; the
language front end never raises on any input.

(a) A seeded random bot plays whole games for random seeds and setups; after every transition
    the state is checked: victims accounted for, health, time and fear within their ranges, a
    choice pending unless the game is over, unique option keys, every event renders, and the
    state handed to ``apply`` is unchanged afterwards.
(b) The same seed and the same answers give the same event log, also on a ruleset whose caches
    are empty; the same state and answer give the same result twice.
(c) ``parse_text`` on arbitrary text, and ``load_content`` on arbitrary files, return
    diagnostics and never raise.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from lastbreath.interpreter import fuzz as _fuzz

from lastbreath.dsl import Diagnostic, IllegalChoice, load_content, load_ruleset, parse_text
from lastbreath.dsl import nodes as n
from lastbreath.dsl.diagnostics import CODES
from lastbreath.dsl.ruleset import Caches
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import first_policy, new_game, random_policy
from lastbreath.interpreter.engine import apply

RS = load_ruleset()
# derandomized: the same examples on every run, so a long game found once is found every time
GAMES = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
MAX_CHOICES = 20_000

# A pending choice of one of these kinds is asked first thing in its step, so the state holds
# no half-done work: the point where every victim must be accounted for exactly.
STEP_BOUNDARY_KINDS = frozenset({"action", "buy", "swap"})
PLACED = re.compile(r"(\d+) victim")


@st.composite
def setups(draw):
    """Keyword arguments for new_game: any bundled content, side, tie policy and seed."""
    return {
        "killer": draw(st.sampled_from(sorted(RS.killers))),
        "scenario": draw(st.sampled_from(sorted(RS.scenarios))),
        "final_girl": draw(st.sampled_from(sorted(RS.final_girls))),
        "difficulty": draw(st.sampled_from([s.id for s in RS.player_board().sides])),
        "tie_policy": draw(st.sampled_from(engine.TIE_POLICIES)),
        "legendary": draw(st.booleans()),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


# --- (a) invariants after every transition ---------------------------------------------------
def placed_by(events) -> int:
    """Victims put on the board by 'place N victims' effects in these events."""
    total = 0
    for e in events:
        if e.kind == "victims":
            m = PLACED.match(e.text)
            assert m, f"a 'victims' event without a count: {e.render()!r}"
            total += int(m.group(1))
    return total


def node_types(*roots) -> set[type]:
    """Every node class used anywhere in these content declarations (a walk over attrs fields)."""
    seen: set[int] = set()
    found: set[type] = set()
    todo = list(roots)
    while todo:
        x = todo.pop()
        if isinstance(x, (tuple, list, frozenset, set)):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif attrs.has(type(x)) and id(x) not in seen:
            seen.add(id(x))
            found.add(type(x))
            todo.extend(getattr(x, f.name) for f in attrs.fields(type(x)))
    return found


# effects that move victims off the board without a death or a rescue (and back)
TURNING = {getattr(n, name) for name in ("TurnVictims", "TurnMinions") if hasattr(n, name)}


def victims_are_conserved(game) -> bool:
    """True when no content in play turns victims into minions: then every victim is on the
    board, dead or rescued, and only 'place N victims' adds new ones."""
    key = ("victims-conserved", game.killer.id, game.scenario.id, game.fg.id)
    got = _CACHE.get(key)
    if got is None:
        rs = game.ruleset
        items = [it for it in rs.items.values() if getattr(it, "owner", "") in ("", game.fg.id)]
        used = node_types(game.killer, game.scenario, game.fg, list(game.cards.values()), items)
        got = _CACHE[key] = not (used & TURNING)
    return got


_CACHE: dict = {}


def check_state(state, events, expected_victims: int, before=None) -> None:
    g = state.game
    side = g.side
    for e in events:
        text = e.render()
        assert isinstance(text, str) and text.strip(), f"event renders empty: {e!r}"
        assert e.kind
    assert min(state.victims) >= 0, state.victims
    if before is not None:  # the dead stay dead, the rescued stay rescued
        assert state.dead >= before.dead and state.rescued >= before.rescued
    if victims_are_conserved(g):
        accounted = sum(state.victims) + state.dead + state.rescued
        assert accounted <= expected_victims, "victims appeared from nowhere"
        if state.over or state.choice.kind in STEP_BOUNDARY_KINDS:
            assert accounted == expected_victims, "victims vanished"
    assert 0 <= state.fg_health <= g.fg.health
    assert side.time_min <= state.time <= side.time_max
    assert side.fear_min <= state.fear <= side.fear_max
    assert all(k.health >= 0 for k in state.killers)
    assert 0 <= state.bloodlust < len(g.levels)
    if state.over:
        assert state.choice is None
        assert state.result in ("fg", "killer")
        assert state.phase == "over"
    else:
        assert state.choice is not None, "no choice pending, yet the game is not over"
        keys = state.choice.keys()
        assert len(keys) >= 2, "a choice with one option is answered by the engine, never asked"
        assert len(set(keys)) == len(keys), f"duplicate option keys in {state.choice.kind}: {keys}"
        assert all(k and o.label for k, o in zip(keys, state.choice.options))


# the state's fields by identity, before and after apply (shared with the fuzzer)
snapshot = _fuzz._snapshot
unchanged = _fuzz._unchanged


@GAMES
@given(setup=setups(), bot=st.integers(0, 2**32 - 1))
def test_game_invariants_hold_after_every_transition(setup, bot):
    state, events = new_game(RS, **setup)
    expected = sum(state.victims) + state.dead + state.rescued
    check_state(state, events, expected)
    policy = random_policy(bot)
    for _ in range(MAX_CHOICES):
        if state.over:
            break
        snap = snapshot(state)
        key = policy(state, state.choice)
        new, events = apply(state, key)
        assert unchanged(state, snap), "apply changed the state it was given"
        expected += placed_by(events)
        check_state(new, events, expected, before=state)
        state = new
    assert state.over, f"the game did not end within {MAX_CHOICES} choices"
    assert state.result in ("fg", "killer")
    with pytest.raises(IllegalChoice):
        apply(state, "end")


def test_victims_accounted_for_while_a_rescue_waits_for_a_slot(game):
    """C5.4–C5.5: while the player places the first of two rescued victims, the second one is
    still somewhere: on the board or already rescued."""
    board = game.game.board
    exit_ = board.index["hollow-gate"]
    victims = tuple(2 if i == exit_ else 0 for i in range(board.n))
    settled = engine.replace(game, choice=None, answers=(), checkpoint=None, events_seen=0, phase="action", sub=1,
                             fg_loc=exit_, victims=victims, dead=0, rescued=0, time=6)
    state, _ = engine.advance(settled, (), 0)
    assert state.choice.kind == "action" and "rescue" in state.choice.keys()
    mid, _ = apply(state, "rescue")
    assert mid.choice is not None and mid.choice.kind == "slot"
    assert sum(mid.victims) + mid.dead + mid.rescued == 2
    assert mid.rescued == 1 and mid.victims[exit_] == 1




def test_a_game_ends_when_the_final_girl_stays_passive():
    """C9.1 (open): with no victims left, an action aimed at victims aims at the Final Girl, so games end."""
    if "big-bad-wolf" not in RS.killers or "wolfe-asylum" not in RS.scenarios:
        pytest.skip("needs the wolf and the asylum")
    state, _ = new_game(RS, killer="big-bad-wolf", scenario="wolfe-asylum", seed=7)
    for _ in range(3_000):
        if state.over:
            break
        state, _ = apply(state, first_policy(state, state.choice))
    assert state.over, f"still playing in round {state.round}, {sum(state.victims)} victims on the board"


def test_an_option_not_offered_is_refused_and_the_state_is_untouched(game):
    snap = snapshot(game)
    with pytest.raises(IllegalChoice):
        apply(game, "no-such-option")
    assert unchanged(game, snap)
    new, _ = apply(game, game.choice.options[0].key)
    assert new is not game


# --- (b) determinism -------------------------------------------------------------------------
def play_recorded(rs, setup, bot):
    """Play a whole game; returns the answers given and the full event log."""
    state, events = new_game(rs, **setup)
    log = list(events)
    answers = []
    policy = random_policy(bot)
    while not state.over and len(answers) < MAX_CHOICES:
        key = policy(state, state.choice)
        answers.append(key)
        state, events = apply(state, key)
        log.extend(events)
    return answers, log, state


@settings(GAMES, max_examples=10)
@given(setup=setups(), bot=st.integers(0, 2**32 - 1))
def test_same_seed_and_answers_give_the_same_log(setup, bot):
    answers, log, end = play_recorded(RS, setup, bot)
    fresh = attrs.evolve(RS, caches=Caches())  # same content, empty caches: nothing may depend on earlier games
    state, events = new_game(fresh, **setup)
    replay = list(events)
    for key in answers:
        state, events = apply(state, key)
        replay.extend(events)
    assert replay == log
    assert (state.result, state.end_reason, state.round) == (end.result, end.end_reason, end.round)


@settings(GAMES, max_examples=10)
@given(setup=setups(), bot=st.integers(0, 2**32 - 1), every=st.integers(1, 7))
def test_apply_twice_to_the_same_state_gives_the_same_result(setup, bot, every):
    state, _ = new_game(RS, **setup)
    policy = random_policy(bot)
    for i in range(2_000):
        if state.over:
            break
        key = policy(state, state.choice)
        a, ea = apply(state, key)
        if i % every == 0:
            b, eb = apply(state, key)
            assert ea == eb
            assert a.choice == b.choice
            fields = set(a.__dict__) - {"game", "checkpoint"}
            assert {f: a.__dict__[f] for f in fields} == {f: b.__dict__[f] for f in fields}
        state = a


# --- (c) the language front end never raises --------------------------------------------------
STRUCTURE = list('{}()";#-\n\r\t \\+') + ["--", "\r\n", "\x00", "\ufeff", "é", "\U0001f480"]
any_text = st.lists(st.one_of(st.sampled_from(STRUCTURE), st.characters()), max_size=400).map("".join)
binaryish = st.binary(max_size=400).map(lambda b: b.decode("latin-1"))


def check_diagnostics(diags, text: str) -> None:
    assert isinstance(diags, list)
    last_line = text.count("\n") + 1
    for d in diags:
        assert isinstance(d, Diagnostic)
        assert d.code in CODES, d
        assert 1 <= d.span.line <= last_line, d
        assert d.span.col >= 1, d
        assert isinstance(d.format(text), str)


def _phrase_words() -> list[str]:
    """The words of the effect and rule phrases, and the keywords of the expression grammar."""
    import re as _re

    words = set()
    for cls in (*n.EFFECT_NODES, *n.RULE_NODES):
        for phrase in cls.PHRASES:
            words.update(w for w in phrase.split() if not w.startswith("{"))
    grammar = (Path(n.__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    words.update(w for w in _re.findall(r'"([a-z]+)"', grammar))
    return sorted(words)


# words a content file is made of: declarations, the lines they accept, phrases and ids
VOCABULARY = sorted({
    *_phrase_words(),
    "card", "item", "final_girl", "killer", "scenario", "player_board", "minion", "name", "kind", "cost",
    "copies", "start", "hand", "dice", "fail", "success", "great", "best", "reroll", "fails", "weapon",
    "hands", "range", "bonus", "uses", "use", "keep", "health", "rescues", "slot", "flipped", "reward",
    "signature", "fear", "modes", "bloodlust", "level", "move", "damage", "max", "finale", "legendary",
    "back", "face", "dark_power", "terror", "effect", "secondary", "limit", "tags", "location", "search",
    "exit", "path", "closed", "link", "when", "followers", "setup", "victims", "event", "lasting", "side",
    "time", "reset", "zone", "last", "breath", "rule", "win", "lose", "instead", "of", "if", "else",
    "repeat", "choose", "roll", "on", "revealed", "gained", "drawn", "dies", "enters", "upkeep", "action",
    "planning", "panic", "here", "killer-location", "fg", "fg-or-victims", "that", "walk", "hollow-gate",
    "big-bad-wolf", "nell-arden", "arden-billhook", "blood-seeking", "river", "bridge", "x",
})
atoms = st.one_of(
    st.sampled_from(VOCABULARY),
    st.sampled_from(VOCABULARY),
    st.integers(-3, 12).map(str),
    st.sampled_from(['"A Name"', '""', '"x\\"y"', "--", "()", "(1 2)", "(1) -- (2)"]),
)


def _lines(children):
    line = st.tuples(st.lists(atoms, min_size=1, max_size=6), st.lists(children, max_size=1))
    return st.lists(line.map(lambda t: " ".join(t[0] + t[1])), max_size=5)


blocks = st.recursive(st.just("{ }"), lambda inner: _lines(inner).map(lambda ls: "{\n" + "\n".join(ls) + "\n}"),
                      max_leaves=12)
DECLARATIONS = ["card", "item", "final_girl", "killer", "scenario", "player_board", "minion"]
declaration = st.tuples(st.sampled_from(DECLARATIONS), st.sampled_from(["t-one", "walk", "x"]), blocks).map(" ".join)
# mostly declarations with random bodies, so that building and checking get exercised too
content_soup = st.lists(st.one_of(declaration, declaration, _lines(blocks).map("\n".join)), max_size=4).map("\n".join)

# strings of the grammar itself (terminals drawn from small samples: generating them from their
# regular expressions costs ~0.1 s an example)
grammar_text = from_lark(
    Lark((Path(n.__file__).with_name("grammar.lark")).read_text(encoding="utf-8"), parser="lalr"),
    explicit={"NAME": st.sampled_from(VOCABULARY + ["Big-Bad", "a_b", "x--y"]),
              "NUMBER": st.sampled_from(["0", "-1", "+3", "12", "007"]),
              "STRING": st.sampled_from(['"A"', '""', '"a\\"b"', '"# not a comment"', '"{"']),
              "COMMENT": st.sampled_from(["# c", "#{", "#", '# "']),
              "_NL": st.sampled_from(["\n", "\r\n", "\n\n"]),
              "__IGNORE_0": st.sampled_from([" ", "\t", "  "])},
)


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(any_text, binaryish, content_soup))
def test_parse_text_never_raises(text):
    lines, diags = parse_text(text, "fuzz.fg")
    check_diagnostics(diags, text)
    if diags:
        assert lines == ()
        assert all(d.code.startswith("E1") for d in diags)


def load_bytes(data: bytes):
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "junk.fg"
        f.write_bytes(data)
        return load_content([f])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=grammar_text)
def test_grammar_strings_load_without_raising(text):
    rs, diags = load_bytes(text.encode("utf-8"))
    check_diagnostics(diags, text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(content_soup.map(lambda s: s.encode("utf-8")), st.binary(max_size=600)))
def test_load_content_never_raises_on_junk(data):
    rs, diags = load_bytes(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert rs is None and [d.code for d in diags] == ["E100"]
        return
    check_diagnostics(diags, text)
    if any(d.severity == "error" for d in diags):
        assert rs is None


def test_node_walk_sees_the_effects_in_content():
    """The walk that decides whether victims can leave the board other than by death or rescue
    must see into cards (else the victim check above could be skipped or wrong)."""
    k = RS.killers[sorted(RS.killers)[0]]
    assert n.Hunt in node_types(k)
    assert n.Card in node_types(list(RS.cards.values()))


# --- the generator ------------------------------------------------------------------------------
@given(st.integers(min_value=-(2 ** 63), max_value=2 ** 64), st.integers(min_value=0, max_value=10 ** 6),
       st.integers(min_value=1, max_value=1000))
def test_rng_draw_equals_splitmix64(seed, counter, k):
    """``rng.draw`` inlines ``splitmix64``; the two must give the same numbers."""
    from lastbreath.interpreter import rng
    assert rng.draw(seed, counter, k) == (rng.splitmix64((seed * 0x100000001B3 + counter) & rng.MASK) >> 11) % k


@given(st.integers(min_value=-(2 ** 63), max_value=2 ** 64), st.integers(min_value=0, max_value=10 ** 6))
def test_a_die_is_the_draw_of_its_counter(seed, counter):
    """``roll_die`` writes ``rng.draw(seed, counter, 6) + 1`` out; the two must give the same faces
    and move the counter by one (a forced face, from a position, moves nothing)."""
    from types import SimpleNamespace

    from lastbreath.interpreter import rng
    from lastbreath.interpreter.engine.draws import roll_die
    w = SimpleNamespace(seed=seed, rng=counter, dice=())
    assert roll_die(w) == rng.draw(seed, counter, 6) + 1 and w.rng == counter + 1  # type: ignore[arg-type]
    w = SimpleNamespace(seed=seed, rng=counter, dice=(4, 2))
    assert roll_die(w) == 4 and w.dice == (2,) and w.rng == counter  # type: ignore[arg-type]


@given(st.integers(min_value=-(2 ** 63), max_value=2 ** 64), st.integers(min_value=0, max_value=10 ** 6),
       st.integers(min_value=0, max_value=70), st.integers(min_value=-3, max_value=3))
def test_rng_raw_draws_are_the_draws_of_consecutive_counters(seed, counter, m, near_wrap):
    """``rng.raw_draws`` computes many SplitMix64 draws in one big integer (lanes of 128 bits):
    each is the draw of its counter, also where the lanes would wrap past 64 bits (taken one by
    one); ``shuffled`` is Fisher–Yates with those draws, as with ``rand`` one card at a time."""
    from lastbreath.interpreter import rng
    from lastbreath.interpreter.engine import draws
    if near_wrap:  # a counter whose first lane lies just below 2**64: the lanes wrap within m
        counter = (rng.MASK - ((seed * 0x100000001B3 + 0x9E3779B97F4A7C15) & rng.MASK) + near_wrap) % (2 ** 64)
    raw = rng.raw_draws(seed, counter, m)
    assert len(raw) == m
    for k, v in enumerate(raw):
        for n in (1, 2, 7, 53):
            assert v % n == rng.draw(seed, counter + k, n)

    class W:  # the two fields shuffled reads and moves on
        pass
    w = W()
    w.seed, w.rng = seed, counter
    items = list(range(m + 1))
    got = draws.shuffled(w, items)
    expected, c = list(items), counter
    for i in range(len(expected) - 1, 0, -1):
        j = rng.draw(seed, c, i + 1)
        c += 1
        expected[i], expected[j] = expected[j], expected[i]
    assert got == tuple(expected) and w.rng == (c if m else counter)
