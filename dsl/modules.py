"""Modules (LANGUAGE.md section 10): content switched on by name, applied as a game is built.

A ``module ID { … }`` adds declarations to the scenarios and killers its sections name (or to
every one), replaces declarations by id and removes parts at setup. Modules are off unless a game
switches them on (``new_game(…, modules=(…))``, ``--module ID``). ``game_content`` gives the
content of one game: its killer and scenario with the modules' sections applied, and the tables of
cards, items and minions with the modules' own; the engine's ``Game`` is built from it, so the
engine plays a module like any other content and knows nothing of modules.

``check_modules`` is the checker's part (called by ``check.check_content``): the hosts a section
names, what a change replaces or removes (E230 when it is not there), the content of every host
as a module leaves it (checked again like a scenario or a killer; the names its lines use are
resolved against it), ids added twice (E203) and two modules that change the same thing (W230:
they cannot be played together, and ``game_content`` refuses it).
"""

from __future__ import annotations

import difflib
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, cast

import attrs

from . import nodes as n
from .diagnostics import RulesError, Span

# what a change may name, by where it stands -> the field of the host (or table) that holds it
HOST_FIELDS: dict[str, dict[str, str]] = {
    "scenario": {"item": "items", "event": "events", "terror": "terror", "token": "tokens", "action": "actions",
                 "deck": "decks", "card": "cards", "setup": "setups", "rules": "groups", "conveyance": "conveyances"},
    "killer": {"finale": "finales", "dark_power": "dark_powers", "terror": "terror", "minion": "minions",
               "token": "tokens", "action": "actions", "deck": "decks", "card": "cards", "rules": "groups"},
    "module": {"item": "items", "card": "cards"},
}
# what may be removed: the parts nothing else names by id (a token type or a deck may be used by lines
# the module does not change, so they are replaced, never removed)
REMOVABLE: dict[str, tuple[str, ...]] = {
    "scenario": ("item", "event", "terror", "action", "card", "setup", "rules"),
    "killer": ("finale", "dark_power", "terror", "action", "card", "rules"),
    "module": ("item", "card"),
}
SCOPE = "module:"  # the scope of the names used in a module (Ref.scope): "module:ID" or "module:ID:SECTION"


def section_scope(module: str, index: int) -> str:
    return f"{SCOPE}{module}:{index}"


def module_of(scope: str) -> str:
    """The module id of a module scope ("" for any other scope)."""
    return scope[len(SCOPE):].split(":")[0] if scope.startswith(SCOPE) else ""


# --- applying ------------------------------------------------------------------------------------
@attrs.frozen
class GameContent:
    """The content of one game with its modules: what ``Game`` is built from."""

    killer: n.Killer
    scenario: n.Scenario
    cards: dict[str, n.Card]
    items: dict[str, n.Item]
    minions: dict[str, n.Minion]
    modules: tuple[str, ...] = ()


def _swap(seq: Sequence[Any], old: Sequence[Any], new: Sequence[Any]) -> tuple[Any, ...]:
    """``seq`` with the nodes of ``old`` (the same objects) taken out and ``new`` put where the first
    of them stood (at the end when none is there)."""
    gone = {id(x) for x in old}
    out: list[Any] = []
    placed = False
    for x in seq:
        if id(x) in gone:
            if not placed:
                out.extend(new)
                placed = True
            continue
        out.append(x)
    if not placed:
        out.extend(new)
    return tuple(out)


def _swap_abilities(ab: n.Abilities, old: n.Abilities, new: n.Abilities) -> n.Abilities:
    return n.Abilities(**{name: _swap(value, getattr(old, name), getattr(new, name)) for name, value in n.fields(ab)})


def _merge_abilities(a: n.Abilities, b: n.Abilities) -> n.Abilities:
    return n.Abilities(**{name: value + getattr(b, name) for name, value in n.fields(a)})


def _owned(node: Any, owner: str) -> Any:
    """A card, item or terror card built in a module, owned as the host's own (``owner``)."""
    return attrs.evolve(node, owner=owner) if hasattr(node, "owner") else node


class _Tables:
    """The game-wide tables a module changes: cards (the market), items, minions."""

    def __init__(self, cards: dict[str, n.Card], items: dict[str, n.Item], minions: dict[str, n.Minion]):
        self.cards = cards
        self.items = items
        self.minions = minions


def apply_section(host: Any, sec: n.ModuleSection, tables: _Tables, matched: set[int]) -> Any:
    """``host`` (a scenario or a killer) with a section applied: its changes first, then its
    additions. The ids of the changes that found what they name are added to ``matched``."""
    fields = HOST_FIELDS[sec.host]
    upd: dict[str, Any] = {}

    def cur(name: str) -> Any:
        return upd.get(name, getattr(host, name))

    for ch in sec.changes:
        if ch.kind == "card" and ch.deck:  # remove card ID from DECK
            decks = list(cur("decks"))
            for i, d in enumerate(decks):
                if d.id == ch.deck and any(c.id == ch.id for c in d.cards):
                    decks[i] = attrs.evolve(d, cards=tuple(c for c in d.cards if c.id != ch.id))
                    upd["decks"] = tuple(decks)
                    matched.add(id(ch))
            continue
        if ch.kind == "card":  # a card of the market: the bundled ones, and the host's own
            old = tables.cards.get(ch.id)
            if old is not None and old.owner in ("", host.id):
                matched.add(id(ch))
                if ch.how == "replace":
                    tables.cards[ch.id] = _owned(ch.new, old.owner)
                else:
                    del tables.cards[ch.id]
                upd["cards"] = tuple(c for c in cur("cards") if c.id != ch.id) + (
                    (tables.cards[ch.id],) if ch.how == "replace" and old.owner == host.id else ())
            continue
        seq = list(cur(fields[ch.kind]))
        at = next((i for i, x in enumerate(seq) if x.id == ch.id), None)
        if at is None:
            continue
        matched.add(id(ch))
        old = seq[at]
        if ch.kind == "rules":
            new_group = cast(Optional[n.RuleGroup], ch.new) if ch.how == "replace" else None
            new_ab = new_group.abilities if new_group is not None else n.NO_ABILITIES
            upd["abilities"] = _swap_abilities(cur("abilities"), old.abilities, new_ab)
            if old.links or (new_group is not None and new_group.links):
                upd["links"] = _swap(cur("links"), old.links, new_group.links if new_group is not None else ())
        if ch.how == "replace":
            seq[at] = _owned(ch.new, getattr(old, "owner", ""))
            if ch.kind == "item":
                tables.items[ch.id] = seq[at]
            elif ch.kind == "minion":
                tables.minions[ch.id] = seq[at]
        else:
            del seq[at]
        upd[fields[ch.kind]] = tuple(seq)
    # the additions: every list of the partial host joins the host's, its lines join the host's
    for name, value in n.fields(sec.adds):
        if isinstance(value, n.Abilities):
            if value:
                upd[name] = _merge_abilities(cur(name), value)
        elif isinstance(value, tuple) and value:
            if name == "tags":
                upd[name] = tuple(dict.fromkeys(cur(name) + value))
                continue
            added = tuple(_owned(x, host.id) for x in value)
            upd[name] = cur(name) + added
            for x in added:
                if isinstance(x, n.Item):
                    tables.items[x.id] = x
                elif isinstance(x, n.Card):
                    tables.cards[x.id] = x
                elif isinstance(x, n.Minion):
                    tables.minions[x.id] = x
    return attrs.evolve(host, **upd) if upd else host


def apply_top(mod: n.Module, scenario: n.Scenario, tables: _Tables, matched: set[int]) -> n.Scenario:
    """A module's own cards and items added to the tables, its top-level changes made (an item
    replaced or removed in the scenario's piles too)."""
    for c in mod.cards:
        tables.cards[c.id] = c
    for it in mod.items:
        tables.items[it.id] = it
    items = scenario.items
    for ch in mod.changes:
        if ch.kind == "item":
            if any(it.id == ch.id for it in items):  # in this scenario's piles
                matched.add(id(ch))
                if ch.how == "replace":
                    items = tuple(_owned(ch.new, it.owner) if it.id == ch.id else it for it in items)
                else:
                    items = tuple(it for it in items if it.id != ch.id)
            old_item = tables.items.get(ch.id)
            if ch.how == "replace" and old_item is not None:  # a removed item can still be gained
                matched.add(id(ch))
                tables.items[ch.id] = _owned(ch.new, old_item.owner)
            continue
        old_card = tables.cards.get(ch.id)
        if old_card is not None:
            matched.add(id(ch))
            if ch.how == "replace":
                tables.cards[ch.id] = _owned(ch.new, old_card.owner)
            else:
                del tables.cards[ch.id]
    return attrs.evolve(scenario, items=items) if items is not scenario.items else scenario


def _applies(sec: n.ModuleSection, host: Any) -> bool:
    return not sec.targets or host.id in sec.targets


def touched(mod: n.Module, killer: Optional[n.Killer], scenario: Optional[n.Scenario]) -> dict[tuple[str, ...], Span]:
    """What a module replaces or removes in a game of that killer and scenario (None: any), by key:
    (kind, id) for the game-wide cards and items, (host, kind, id) for the rest."""
    out: dict[tuple[str, ...], Span] = {}
    for ch in mod.changes:
        out.setdefault((ch.kind, ch.id), ch.span)
    for sec in mod.sections:
        host = killer if sec.host == "killer" else scenario
        if host is not None and not _applies(sec, host):
            continue
        where = (host.id,) if host is not None else (sec.targets or ("*",))
        for ch in sec.changes:
            for hid in where:
                key = (ch.kind, ch.id) if ch.kind in ("card", "item") and not ch.deck else \
                    (sec.host, hid, ch.kind, ch.id, ch.deck)
                out.setdefault(key, ch.span)
    return out


def _clash(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return len(a) == len(b) and all(x == y or "*" in (x, y) for x, y in zip(a, b))


def _describe(key: tuple[str, ...]) -> str:
    if len(key) == 2:
        return f"{_kind_word(key[0])} '{key[1]}'"
    host, hid, kind, cid, deck = key
    where = f"every {host}" if hid == "*" else f"{host} '{hid}'"
    what = f"card '{cid}' of the deck '{deck}'" if deck else f"{_kind_word(kind)} '{cid}'"
    return f"{what} in {where}"


def conflicts(a: n.Module, b: n.Module, killer: Optional[n.Killer] = None,
              scenario: Optional[n.Scenario] = None) -> list[tuple[tuple[str, ...], Span]]:
    """What both modules replace or remove (keys of ``touched`` and the span of ``b``'s change)."""
    mine = touched(a, killer, scenario)
    return [(key, span) for key, span in touched(b, killer, scenario).items() if any(_clash(key, k) for k in mine)]


def pick(ruleset: Any, modules: Iterable[Any]) -> tuple[n.Module, ...]:
    """The modules named (ids), in id order, each once; ``RulesError`` for an id that is not a
    string or not a loaded module (with a 'did you mean' or the list of the known ones)."""
    table: dict[str, n.Module] = getattr(ruleset, "modules", {}) or {}
    if isinstance(modules, (str, bytes)) or not isinstance(modules, (list, tuple, set, frozenset)):
        raise RulesError(f"the modules must be a list of module ids (got {modules!r:.60})")
    ids: list[str] = []
    for m in modules:
        if not isinstance(m, str):
            raise RulesError(f"a module must be an id string (got {m!r:.60})")
        if m not in table:
            close = difflib.get_close_matches(m, list(table), n=1)
            known = ", ".join(sorted(table)) or "none is loaded"
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise RulesError(f"unknown module '{m[:60]}' ({hint}known modules: {known})")
        ids.append(m)
    return tuple(table[m] for m in sorted(set(ids)))


def game_content(ruleset: Any, killer: n.Killer, scenario: n.Scenario, modules: Iterable[Any] = ()) -> GameContent:
    """The content of a game of ``killer`` in ``scenario`` with ``modules`` (ids) switched on.
    ``RulesError`` for an unknown module, or two that replace or remove the same thing."""
    mods = pick(ruleset, modules)
    if not mods:
        return GameContent(killer, scenario, ruleset.cards, ruleset.items, ruleset.minions)
    for i, a in enumerate(mods):
        for b in mods[i + 1:]:
            both = conflicts(a, b, killer, scenario)
            if both:
                raise RulesError(f"the modules '{a.id}' and '{b.id}' both replace or remove the "
                                 f"{_describe(both[0][0])}: they cannot be played together")
    tables = _Tables(dict(ruleset.cards), dict(ruleset.items), dict(ruleset.minions))
    matched: set[int] = set()
    for mod in mods:
        scenario = apply_top(mod, scenario, tables, matched)
        for sec in mod.sections:
            if sec.host == "killer" and _applies(sec, killer):
                killer = apply_section(killer, sec, tables, matched)
            elif sec.host == "scenario" and _applies(sec, scenario):
                scenario = apply_section(scenario, sec, tables, matched)
    return GameContent(killer, scenario, tables.cards, tables.items, tables.minions, tuple(m.id for m in mods))


# --- what a module changes, in words (lastbreath content) ------------------------------------------
def _kind_word(kind: str) -> str:
    return "rules group" if kind == "rules" else kind.replace("_", " ")


def summary(mod: n.Module) -> list[str]:
    """One line for each thing a module adds, replaces or removes."""
    out: list[str] = []
    for c in mod.cards:
        out.append(f"adds the card '{c.id}' to the market")
    for it in mod.items:
        out.append(f"adds the item '{it.id}' to the game")
    for ch in mod.changes:
        verb = "replaces" if ch.how == "replace" else "removes"
        out.append(f"{verb} the {_kind_word(ch.kind)} '{ch.id}'")
    for sec in mod.sections:
        where = f"every {sec.host}" if not sec.targets else \
            f"{sec.host} " + ", ".join(f"'{t}'" for t in sec.targets)
        for ch in sec.changes:
            verb = "replaces" if ch.how == "replace" else "removes"
            what = f"card '{ch.id}' from the deck '{ch.deck}'" if ch.deck else f"{_kind_word(ch.kind)} '{ch.id}'"
            out.append(f"{verb} the {what} in {where}")
        for name, value in n.fields(sec.adds):
            if isinstance(value, n.Abilities):
                lines = sum(len(v) for _k, v in n.fields(value)) - sum(
                    len(v) for g in sec.adds.groups for _k, v in n.fields(g.abilities))
                if lines > 0:
                    out.append(f"adds {lines} rule and trigger line{'s' if lines != 1 else ''} to {where}")
            elif isinstance(value, tuple) and value and name != "tags":
                named = [getattr(x, "id", "") for x in value]
                kind = name.rstrip("s") if name not in ("terror",) else name
                if name == "groups":
                    kind = "rules group"
                elif name == "dark_powers":
                    kind = "dark power"
                if all(named):
                    out.append(f"adds the {kind} " + ", ".join(f"'{x}'" for x in named) + f" to {where}")
                else:
                    out.append(f"adds {len(value)} {kind}{'s' if len(value) != 1 else ''} to {where}")
    return out


# --- checking (called by check.check_content) ------------------------------------------------------
Err = Callable[..., None]


def _did_you_mean(word: str, choices: Iterable[str], what: str) -> Callable[[], str]:
    def hint() -> str:
        known = sorted(set(choices))
        close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
        if close:
            return f"did you mean '{close[0]}'?"
        if not known:
            return f"it has no {what}"
        return f"known {what}: " + ", ".join(known[:8]) + (f" and {len(known) - 8} more" if len(known) > 8 else "")
    return hint


def _ids_of(host: Any, sec_host: str, kind: str, tables: _Tables, deck: str = "") -> list[str]:
    if kind == "card" and deck:
        return [c.id for d in host.decks if d.id == deck for c in d.cards]
    if kind == "card":
        return [c for c, card in tables.cards.items() if card.owner in ("", host.id)]
    return [x.id for x in getattr(host, HOST_FIELDS[sec_host][kind])]


@attrs.define
class ModuleCheck:
    """What ``check_modules`` worked out: the hosts as each module leaves them, by section scope,
    for resolving the names the modules' lines use (``resolve``)."""

    hosts: dict[str, list[tuple[str, Any]]] = attrs.field(factory=dict)  # section scope -> (host kind, host)
    own_items: dict[str, set[str]] = attrs.field(factory=dict)  # module id -> the items it declares
    own_minions: dict[str, set[str]] = attrs.field(factory=dict)
    own_cards: dict[str, set[str]] = attrs.field(factory=dict)  # module id -> the action cards it declares

    def resolve(self, refs: Iterable[Any], killers: dict[str, n.Killer], scenarios: dict[str, n.Scenario]
                ) -> Iterator[tuple[Any, dict[str, n.Killer], dict[str, n.Scenario]]]:
        """Each name used, with the killers and scenarios to resolve it against: for a line of a
        module's section, once for each host the section applies to (its scope becomes the host's
        id, and the host is the one the module leaves); the items and minions a module declares
        itself are known in its own lines."""
        for r in refs:
            mod = module_of(r.scope)
            if not mod:
                yield r, killers, scenarios
                continue
            if (r.kind == "item" and r.name in self.own_items.get(mod, ())) or \
                    (r.kind == "minion" and r.name in self.own_minions.get(mod, ())) or \
                    (r.kind == "hand-card" and r.name in self.own_cards.get(mod, ())):
                continue
            if r.kind in ("scenario", "killer"):
                continue  # a section's hosts: checked by check_modules
            contexts = self.hosts.get(r.scope)
            if contexts is None:  # a module's top level: like any card or item outside a host
                yield attrs.evolve(r, scope=""), killers, scenarios
                continue
            for kind, host in contexts:
                if kind == "scenario":
                    yield attrs.evolve(r, scope=host.id), killers, {**scenarios, host.id: host}
                else:
                    yield attrs.evolve(r, scope=host.id), {**killers, host.id: host}, scenarios


def _host_problems(host: Any, kind: str, check: Callable[[Any, Err], None]) -> list[tuple[Span, str, str, str]]:
    out: list[tuple[Span, str, str, str]] = []

    def err(span: Span, code: str, msg: str, hint: Any = "") -> None:
        out.append((span, code, msg, hint if isinstance(hint, str) else ""))

    check(host, err)
    ids: set[str] = set()
    for g in host.groups:
        if g.id in ids:
            err(g.span, "E203", f"duplicate rules group '{g.id}' in {kind} '{host.id}'")
        ids.add(g.id)
    if kind == "scenario" and not host.setups:
        err(host.span, "E210", f"the scenario '{host.id}' has no setup card left", "keep at least one")
    if kind == "killer":
        for key, what in (("finales", "finale"), ("dark_powers", "dark_power")):
            if not [c for c in getattr(host, key) if not c.legendary]:
                err(host.span, "E210", f"the killer '{host.id}' has no normal {what.replace('_', ' ')} left",
                    "keep at least one")
    for d in host.decks:
        if not d.cards:
            err(d.span, "E210", f"the deck '{d.id}' of {kind} '{host.id}' has no card left", "keep at least one")
    return out


def check_modules(modules: dict[str, n.Module], tables: dict[str, dict], refs: Sequence[Any], err: Err, warn: Err,
                  pack: Callable[[Span], str], reachable: Callable[[str, str], bool],
                  check_scenario: Callable[[Any, Err], None], check_killer: Callable[[Any, Err], None]) -> ModuleCheck:
    """Check every module against the loaded content (see the module's docstring); the result
    resolves the names the modules' lines use."""
    out = ModuleCheck()
    killers: dict[str, n.Killer] = tables["killers"]
    scenarios: dict[str, n.Scenario] = tables["scenarios"]
    for kind, hosts in (("scenario", scenarios), ("killer", killers)):
        for h in hosts.values():  # the bundled and fan hosts: their rules groups
            for span, code, msg, hint in _host_problems(h, kind, lambda *_: None):
                if code == "E203":
                    err(span, code, msg, hint)
    added: dict[tuple[str, str], Span] = {}  # (table, id) -> where a module adds it
    for mod in modules.values():
        out.own_items[mod.id] = {it.id for it in mod.items} | {
            x.id for sec in mod.sections for x in getattr(sec.adds, "items", ())}
        out.own_minions[mod.id] = {x.id for sec in mod.sections for x in getattr(sec.adds, "minions", ())}
        out.own_cards[mod.id] = {c.id for c in mod.cards} | {
            x.id for sec in mod.sections for x in getattr(sec.adds, "cards", ())}
        news = [("cards", c) for c in mod.cards] + [("items", it) for it in mod.items] + [
            (table, x) for sec in mod.sections for table in ("cards", "items", "minions")
            for x in getattr(sec.adds, table, ())]
        for table, x in news:
            first = tables[table].get(x.id)
            where = first.span if first is not None else added.get((table, x.id))
            if where is not None:
                word = table.rstrip("s")
                article = "an" if word[0] in "aeiou" else "a"
                err(x.span, "E203", f"duplicate id '{x.id}': {article} {word} with this id is declared at {where}",
                    f"to change it, write 'replace {word} {x.id} {{ … }}'" if first is not None and table != "minions"
                    else "ids are shared by everything loaded: choose another")
            else:
                added[(table, x.id)] = x.span
        _check_one(mod, tables, refs, err, pack, reachable, check_scenario, check_killer, out)
    mods = sorted(modules.values(), key=lambda m: m.id)
    for i, a in enumerate(mods):
        for b in mods[i + 1:]:
            for key, span in conflicts(a, b):
                warn(span, "W230", f"the modules '{a.id}' and '{b.id}' both replace or remove the {_describe(key)}",
                     "a game with both is refused; fine if they are alternatives")
    return out


def _check_one(mod: n.Module, tables: dict[str, dict], refs: Sequence[Any], err: Err, pack: Callable[[Span], str],
               reachable: Callable[[str, str], bool], check_scenario: Callable[[Any, Err], None],
               check_killer: Callable[[Any, Err], None], out: ModuleCheck) -> None:
    killers: dict[str, n.Killer] = tables["killers"]
    scenarios: dict[str, n.Scenario] = tables["scenarios"]
    # one change of a thing at a time: a second would find it changed already
    keyed: list[tuple[tuple[str, ...], n.ModuleChange]] = []
    twice: set[int] = set()
    every: list[tuple[tuple[str, ...], n.ModuleChange]] = [
        (("*", "*", ch.kind, ch.id, ch.deck) if ch.kind not in ("card", "item") or ch.deck else (ch.kind, ch.id), ch)
        for ch in mod.changes]
    for sec in mod.sections:
        for ch in sec.changes:
            for t in sec.targets or ("*",):
                every.append(((ch.kind, ch.id) if ch.kind in ("card", "item") and not ch.deck else
                              (sec.host, t, ch.kind, ch.id, ch.deck), ch))
    for key, ch in every:
        first = next((c for k, c in keyed if c is not ch and _clash(k, key)), None)
        if first is not None and id(ch) not in twice:
            twice.add(id(ch))
            err(ch.span, "E206", f"the module '{mod.id}' changes the {_describe(key)} twice",
                f"the first change is at line {first.span.line}: one change of a thing, replace or remove")
        keyed.append((key, ch))
    # the hosts each section names
    for r in refs:
        if r.kind in ("scenario", "killer") and module_of(r.scope) == mod.id:
            table = scenarios if r.kind == "scenario" else killers
            if r.name not in table:
                err(r.span, "E204", f"unknown {r.kind} '{r.name}'", _did_you_mean(r.name, table, f"{r.kind}s"))
            elif not reachable(pack(r.span), pack(table[r.name].span)):
                owner = pack(table[r.name].span)
                err(r.span, "E212", f"'{r.name}' comes from pack '{owner}', which pack '{pack(r.span)}' does not "
                    f"declare in 'depends'", f"add '{owner}' to its 'depends' line")
    # the top level: the cards and items it replaces or removes
    every_item = {it.id for s in scenarios.values() for it in s.items}
    for ch in mod.changes:
        there = ch.id in tables["cards"] if ch.kind == "card" else (
            ch.id in tables["items"] if ch.how == "replace" else ch.id in every_item)
        if not there:
            known = tables["cards"] if ch.kind == "card" else (tables["items"] if ch.how == "replace" else every_item)
            where = "in a scenario's items" if ch.kind == "item" and ch.how == "remove" else "loaded"
            err(ch.span, "E230", f"there is no {ch.kind} '{ch.id}' {where} to {ch.how}",
                _did_you_mean(ch.id, known, f"{ch.kind}s"))
    # every host a section applies to, as the module leaves it
    host_kind: str
    for host_kind, hosts, check in (("scenario", scenarios, check_scenario), ("killer", killers, check_killer)):
        kind = host_kind
        secs = [(i, s) for i, s in enumerate(mod.sections) if s.host == kind]
        if not secs:
            continue
        matched_anywhere: set[int] = set()
        for host in hosts.values():
            mine = [(i, s) for i, s in secs if _applies(s, host)]
            if not mine:
                continue
            tabs = _Tables(dict(tables["cards"]), dict(tables["items"]), dict(tables["minions"]))
            matched: set[int] = set()
            eff = host
            for _i, s in mine:
                eff = apply_section(eff, s, tabs, matched)
            matched_anywhere |= matched
            for i, s in mine:
                scope = section_scope(mod.id, i)
                out.hosts.setdefault(scope, []).append((kind, eff))
                if s.targets:  # named: each change must find what it names in each of them
                    for ch in s.changes:
                        if id(ch) not in matched and id(ch) not in twice:
                            what = f"card '{ch.id}' in its deck '{ch.deck}'" if ch.deck else \
                                f"{_kind_word(ch.kind)} '{ch.id}'"
                            if ch.deck and ch.deck not in {d.id for d in eff.decks}:
                                continue  # the deck itself is unknown: said by the names' check (E204)
                            err(ch.span, "E230", f"the {kind} '{host.id}' has no {what} to {ch.how}",
                                _did_you_mean(ch.id, _ids_of(host, kind, ch.kind, tabs, ch.deck),
                                              f"{_kind_word(ch.kind)}s"))
            base = {(c, m) for _s, c, m, _h in _host_problems(host, kind, check)}
            seen: set[tuple[str, str]] = set()
            for span, code, msg, hint in _host_problems(eff, kind, check):
                if (code, msg) not in base and (code, msg) not in seen:
                    seen.add((code, msg))
                    err(span, code, f"with the module '{mod.id}': {msg}", hint)
        for _i, s in secs:  # every: each change must find what it names somewhere
            if not s.targets:
                for ch in s.changes:
                    if id(ch) not in matched_anywhere and id(ch) not in twice:
                        what = f"a card '{ch.id}' in a deck '{ch.deck}'" if ch.deck else \
                            f"a {_kind_word(ch.kind)} '{ch.id}'"
                        err(ch.span, "E230", f"no {kind} has {what} to {ch.how}", "")
