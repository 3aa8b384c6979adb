"""A form of the language cannot be half-added: one test names, at once, every piece a node class
still lacks (docs/adding-a-form.md walks through adding one).

For each node class of the language (dsl/nodes.py), the pieces are:

- the engine's function for it, found by name (``exec_``, ``eval_``, ``amount_``, ``place_``,
  ``rule_``, ``match_``; declarations are written, not resolved: none);
- its English (``_render_<snake>`` in dsl/render.py) and its way back to the language (``PHRASES``
  on the class, or ``_dsl_<snake>``);
- a sample of it in tests/test_render.py's tables, which builds to that very class (so a phrase or
  a grammar rule makes it);
- its row in dsl/LANGUAGE.md: the words of its phrase, or of its sample's keywords, in order on one
  line; and, for a form of an expression slot (condition, amount, place, event, piece), its entry in
  the hints of dsl/expr.py (``FORMS``), with the same words;
- a checker entry for each name it reads: every name of its sample reaches the checker as a
  reference (dsl/refs.py; each kind of reference has its checker: dsl/check.py ``REF_CHECKS``),
  unless the name is free by design (``FREE_NAMES`` below, each with why).
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
from lastbreath.dsl import nodes as n
from lastbreath.dsl import parse_text
from lastbreath.dsl.build import TARGETS, Pattern, build_file
from lastbreath.dsl.check import REF_CHECKS
from lastbreath.dsl.expr import HINTS
from lastbreath.dsl.refs import REF_KINDS, Ref
from lastbreath.dsl.render import dsl_writer_for, renderer_for
from lastbreath.interpreter.engine import statics, tables, triggers
from test_render import SAMPLES, _build_sample

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE = (ROOT / "dsl" / "LANGUAGE.md").read_text(encoding="utf-8")
GRAMMAR = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")

# family -> (the engine's table of its functions, where they are written, their prefix)
ENGINE = {
    n.Effect: (tables.EXEC, "interpreter/engine/ (effects.py or the module of its rules family)", "exec_"),
    n.Condition: (tables.EVAL, "interpreter/engine/conditions.py", "eval_"),
    n.Amount: (tables.AMOUNT, "interpreter/engine/amounts.py", "amount_"),
    n.Place: (tables.PLACE, "interpreter/engine/places.py", "place_"),
    n.Rule: (statics.RULE_FUNCTIONS, "interpreter/engine/statics.py", "rule_"),
    n.Event: (triggers.MATCH, "interpreter/engine/triggers.py", "match_"),
    n.Piece: (triggers.MATCH, "interpreter/engine/triggers.py", "match_"),
}
EXPRESSION_SLOTS = {n.Condition: "condition", n.Amount: "amount", n.Place: "place", n.Event: "event",
                    n.Piece: "piece"}

# names a form takes that no declaration resolves, by design: (class, field) -> why
FREE_NAMES = {
    (n.SetFlag, "flag"): "a flag is made by setting it",
    (n.ClearFlag, "flag"): "a flag is made by setting it",
    (n.FlagSet, "flag"): "a flag is made by setting it",
    (n.AddStatus, "status"): "a status is made by adding it",
    (n.ClearStatus, "status"): "a status is made by adding it",
    (n.HasStatus, "status"): "a status is made by adding it",
    (n.SpentCovers, "kinds"): "the kinds of the tokens spent: any kind of the token the block spends",
    (n.AddStatusTo, "status"): "a status is made by adding it",
    (n.ClearStatusFrom, "status"): "a status is made by adding it",
    (n.StatusStopsMoves, "status"): "a status is made by adding it",
    (n.Each, "kind"): "a kind of the token the enclosing spend block spends",
}

# where each family's sample stands, to be built with its references
_CARD = 'card t {\n  name "T"\n  cost 0\n  fail {\n    for each any {\n@\n    }\n  }\n}\n'
TEMPLATES = {
    n.Effect: _CARD,
    n.Condition: _CARD.replace("@", "if @ { lose 1 time }"),
    n.Amount: _CARD.replace("@", "lose (@) time"),
    n.Place: _CARD.replace("@", "move killer to (@)"),
    n.Rule: 'item t { name "T"; rule @ }\n',
    n.Event: 'item t { name "T"; when @ { lose 1 time } }\n',
    n.Piece: 'item t { name "T"; when @ dies { lose 1 time } }\n',
}


def _keywords() -> set[str]:
    """The language's own words: the grammar's words, the words of every phrase, and the words its
    slots take literally (targets, sides, ways)."""
    words = set(re.findall(r"[a-z][a-z-]*", GRAMMAR)) | set(TARGETS) | {"win", "lose", "up", "down"}
    for cls in (*n.EFFECT_NODES, *n.RULE_NODES):
        for phrase in cls.PHRASES:
            words.update(p for p in Pattern.compile(cls, phrase).parts if isinstance(p, str))
    return words


KEYWORDS = _keywords()


def _family(cls: type) -> type:
    return next(f for f in n.FAMILIES if issubclass(cls, f))


def _sample_texts(cls: type) -> list[str]:
    out = []
    for t in SAMPLES.get(cls, ()):
        out.append(t.values[1] if hasattr(t, "values") else t)
    return out


def _words_in_order(words: list[str], text: str) -> bool:
    """Whether the words (each maybe 'a|b') stand in this order on one line of ``text``."""
    if not words:
        return True
    alts = ["(?:" + "|".join(map(re.escape, w.split("|"))) + ")" for w in words]
    pattern = r"(?<![\w-])" + r"(?![\w-])[^\n]*?(?<![\w-])".join(alts) + r"(?![\w-])"
    return re.search(pattern, text) is not None


def _hint_words(hint: str) -> list[str]:
    """A hint's own words, in order, each maybe 'a|b' (alternatives); placeholders (upper case) and
    optional parts in brackets left out."""
    hint = re.sub(r"\[[^\]]*\]", " ", hint)
    return [w for w in re.findall(r"[a-z][a-z|-]*", hint)]


def _subsequence(words: list[str], keys: list[str]) -> bool:
    """Whether the words (each maybe 'a|b') stand in this order among ``keys``."""
    it = iter(keys)
    return all(any(k in w.split("|") for k in it) for w in words)


def _refs_of(cls: type, text: str) -> list[Ref]:
    family = _family(cls)
    template = TEMPLATES.get(family)
    if template is None:
        return []
    if family is n.Event and text.endswith(" phase"):
        src = template.replace("when @", "instead of @").replace("@", text)
    elif family is n.Effect:
        src = template.replace("@", "\n".join("      " + ln for ln in text.splitlines()))
    else:
        src = template.replace("@", text)
    lines, diags = parse_text(src, "<form>")
    if diags:
        return []
    _decls, refs, _diags = build_file(lines, "<form>", src)
    return refs


def _names(node: object) -> list[tuple[str, str]]:
    """(field, name) for each string field of a node (strings in tuples too) that is not a span."""
    out = []
    for f in attrs.fields(type(node)):
        v = getattr(node, f.name)
        if isinstance(v, str):
            out.append((f.name, v))
        elif isinstance(v, tuple):
            out.extend((f.name, x) for x in v if isinstance(x, str))
    return out


def missing_pieces(cls: type) -> list[str]:
    """What this node class still lacks, each with where it goes (empty: it is whole)."""
    snake = n.snake(cls.__name__)
    out = []
    family = _family(cls)
    if renderer_for(cls) is None:
        out.append(f"its English: _render_{snake} in dsl/render.py")
    if family is n.Decl:
        return out
    if dsl_writer_for(cls) is None:
        out.append(f"its way back to the language: PHRASES on the class, or _dsl_{snake} in dsl/render.py")
    table, where, prefix = ENGINE[family]
    if cls not in table:
        out.append(f"the engine's {prefix}{snake} in {where}")
    if family in EXPRESSION_SLOTS and not HINTS.get(cls):
        out.append("its hint in dsl/expr.py HINTS (the words of its form: 'has item ITEM', …)")
    texts = _sample_texts(cls)
    if not texts:
        out.append("a sample in the tables of tests/test_render.py (EFFECT_SAMPLES, CONDITION_SAMPLES, …)")
        return out
    built = []
    for t in texts:
        try:
            node = _build_sample(cls, t)
        except Exception as err:  # a sample that does not build: the phrase or the grammar rule is missing
            out.append(f"a phrase or grammar rule that builds its sample {t!r} ({type(err).__name__})")
            continue
        if not isinstance(node, cls):
            out.append(f"a phrase or grammar rule that builds its sample {t!r} (it builds {type(node).__name__})")
            continue
        built.append((t, node))
    # its row in LANGUAGE.md (for a form of an expression slot: its hint in dsl/expr.py HINTS, and a row
    # with the hint's words)
    if cls in (*n.EFFECT_NODES, *n.RULE_NODES):
        for phrase in cls.PHRASES:
            words = [p for p in Pattern.compile(cls, phrase).parts if isinstance(p, str)]
            if not _words_in_order(words, LANGUAGE):
                out.append(f"a row of dsl/LANGUAGE.md for its phrase {phrase!r}")
    elif family in EXPRESSION_SLOTS:
        hints = HINTS.get(cls, ())
        if hints:
            for hint in hints:
                if not _words_in_order(_hint_words(hint), LANGUAGE):
                    out.append(f"a row of dsl/LANGUAGE.md for its form {hint!r}")
            for t, _node in built:
                keys = re.findall(r"[a-z][a-z-]*", t)
                if not any(_subsequence(_hint_words(h), keys) for h in hints):
                    out.append(f"a hint in dsl/expr.py HINTS whose words its sample {t!r} has")
    elif built:
        keys = [[w for w in re.findall(r"[a-z][a-z-]*", t.split("{")[0]) if w in KEYWORDS] for t, _ in built]
        if not any(_words_in_order(k, LANGUAGE) for k in keys):
            out.append(f"a row of dsl/LANGUAGE.md with the words {' '.join(keys[0])!r} (from its samples)")
    # a checker entry for each name it reads
    for t, node in built:
        refs = _refs_of(cls, t)
        named = {r.name for r in refs} | {part for r in refs for part in re.split(r"[ /]", r.name)}
        words = set(re.findall(r"[a-z0-9][a-z0-9-]*", t))
        for field, name in _names(node):
            if (cls, field) in FREE_NAMES or name in KEYWORDS or name not in words or name in named:
                continue
            if name in ("here", "fg", "it", "killer-location", "killer-start"):
                continue
            out.append(f"a checker entry for its {field} {name!r} (sample {t!r}): the builder gives the checker no "
                       "reference for it (dsl/build.py: refs; dsl/refs.py REF_KINDS; dsl/check.py REF_CHECKS), "
                       "or list it in tests/test_forms.py FREE_NAMES with why")
    return out


ALL_NODES = [c for f in n.FAMILIES for c in n.members(f)]


def test_every_form_has_every_piece():
    """One failure names every piece every node class lacks."""
    report = {cls.__name__: missing for cls in ALL_NODES if (missing := missing_pieces(cls))}
    assert report == {}, "\n".join(f"{name}:\n  - " + "\n  - ".join(m) for name, m in report.items())


def test_every_kind_of_reference_has_one_checker():
    """The checker's reference kinds are a registry: each kind the builder may give has its checker,
    and a reference of another kind cannot be made."""
    assert set(REF_CHECKS) == set(REF_KINDS)
    import pytest

    with pytest.raises(ValueError, match="no kind of reference"):
        Ref("no-such-kind", "x", n.Span("<t>", 1, 1, 1, 2), "")


def test_a_half_added_form_is_named_with_all_it_lacks():
    """A node class with nothing but its declaration: the report names each piece it lacks."""
    @attrs.frozen(repr=False)
    class HasTrophy(n.Condition):
        __module__ = n.__name__  # (the families are sealed to dsl/nodes.py)
        span: n.Span
        trophy: str

    missing = missing_pieces(HasTrophy)
    text = "\n".join(missing)
    for piece in ("_render_has_trophy", "_dsl_has_trophy", "eval_has_trophy", "HINTS", "a sample"):
        assert piece in text, text


def test_the_check_sees_a_name_nothing_checks():
    """A form whose name reaches no checker is reported (the HasItem sample, its references dropped)."""
    import test_forms

    real = test_forms._refs_of
    test_forms._refs_of = lambda cls, text: []
    try:
        missing = missing_pieces(n.HasItem)
    finally:
        test_forms._refs_of = real
    assert any("a checker entry for its item 'raft'" in m for m in missing), missing


def test_the_adding_a_form_page_names_every_piece_and_real_places():
    """docs/adding-a-form.md walks through every piece the report above can ask for, and every path
    and table it names exists."""
    page = (ROOT / "docs" / "adding-a-form.md").read_text(encoding="utf-8")
    for where in ("dsl/nodes.py", "dsl/grammar.lark", "dsl/expr.py", "HINTS", "PHRASES", "dsl/refs.py", "REF_KINDS",
                  "dsl/check.py", "REF_CHECKS" if "REF_CHECKS" in page else "@checks", "FREE_NAMES",
                  "interpreter/engine/", "eval_", "exec_", "dsl/render.py", "_render_", "_dsl_", "dsl/LANGUAGE.md",
                  "tests/test_render.py", "fieldgen", "tests/test_forms.py"):
        assert where in page, where
    for path in re.findall(r"(?<![\w/.])((?:dsl|interpreter|tests|docs)/[\w./-]*\w)", page):
        assert (ROOT / path).exists(), path
