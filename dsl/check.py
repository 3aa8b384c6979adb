"""Stage three: cross-references and consistency across all loaded declarations.

Collects, never raises. Checks: duplicate ids; unknown items, locations, modes, minions and
tags (with "did you mean"); signature items; scenario maps (path ends, panic numbers, exits,
search piles, setup cards, connectivity); killers (bloodlust, finales, dark powers); packs (an id
declared by two packs, a name used from a pack the user does not depend on, unknown packs).
"""

from __future__ import annotations

import difflib
import functools
from collections import defaultdict
from typing import Callable, Optional, Union

import attrs

from . import nodes as n
from .diagnostics import Diagnostic, Span, settle_shown
from .modules import check_modules
from .refs import REF_KINDS, Ref
from .refs import SPECIAL_PLACES as SPECIAL_LOCS

KIND_TABLE = {n.Card: "cards", n.Item: "items", n.FinalGirl: "final_girls", n.Killer: "killers",
              n.Scenario: "scenarios", n.PlayerBoard: "player_boards", n.Minion: "minions", n.Module: "modules"}


def _hint(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def _hint_or_known(word: str, choices, what: str) -> str:
    """'did you mean', or else the known names (the first few)."""
    known = sorted(choices)
    if not known:
        return ""
    shown = ", ".join(known[:8]) + (f" and {len(known) - 8} more" if len(known) > 8 else "")
    return _hint(word, known) or f"known {what}: {shown}"


def _or(first: Callable[[], str], otherwise: str) -> str:
    return first() or otherwise


P = functools.partial


CORE = "core"  # the pack of the bundled content


def check_content(decls: list, refs: list[Ref], packs: Optional[dict[str, n.Pack]] = None,
                  file_pack: Optional[dict[str, str]] = None) -> tuple[dict, list[Diagnostic]]:
    """Check everything; ``packs`` (id -> Pack) and ``file_pack`` (path -> pack id) turn on the
    pack rules: an id declared by two packs, and a name used from a pack not in ``depends``.
    The tables come back with ``pack_of`` (table -> id -> pack id) when packs are given."""
    diags: list[Diagnostic] = []

    def err(span: Span, code: str, msg: str, hint: Union[str, Callable[[], str]] = "") -> None:
        if callable(hint):  # a 'did you mean', worked out only if the diagnostic is shown
            diags.append(Diagnostic(span, code, msg, suggest=hint))
        else:
            diags.append(Diagnostic(span, code, msg, hint))

    def warn(span: Span, code: str, msg: str, hint: Union[str, Callable[[], str]] = "") -> None:
        diags.append(Diagnostic(span, code, msg, hint if isinstance(hint, str) else hint(), severity="warning"))

    def pack(span: Span) -> str:
        return file_pack.get(span.path, "") if file_pack is not None else ""

    tables: dict[str, dict] = {name: {} for name in KIND_TABLE.values()}
    # nested declarations join the global tables
    flat: list = []
    for d in decls:
        flat.append(d)
        if isinstance(d, n.Scenario):
            flat.extend(d.items)
            flat.extend(d.cards)
        if isinstance(d, n.Killer):
            flat.extend(d.minions)
            flat.extend(d.cards)
            flat.extend(d.items)
    if file_pack is not None:  # the bundled pack first: a fan pack can never replace its declarations
        flat.sort(key=lambda d: pack(d.span) != CORE)
    for d in flat:
        table = tables[KIND_TABLE[type(d)]]
        if d.id in table:
            first = table[d.id]
            other, mine = pack(first.span), pack(d.span)
            if other != mine:
                kind = KIND_TABLE[type(d)].rstrip("s").replace("_", " ")
                err(d.span, "E203", f"duplicate id '{d.id}': pack '{other}' already declares a {kind} with this id "
                    f"at {first.span}", f"rename it, e.g. '{mine}-{d.id}': ids are shared by every loaded pack")
            else:
                err(d.span, "E203", f"duplicate id '{d.id}'", f"first declared at {first.span}")
            continue
        table[d.id] = d

    killers: dict[str, n.Killer] = tables["killers"]
    scenarios: dict[str, n.Scenario] = tables["scenarios"]
    all_modes = {m for k in killers.values() for m in k.modes}
    packs = packs or {}

    def reachable(user: str, owner: str) -> bool:
        return file_pack is None or owner in (user, CORE) or owner in getattr(packs.get(user), "depends", ())

    def from_pack(r: Ref, table: str) -> None:
        user, owner = pack(r.span), pack(tables[table][r.name].span)
        if not reachable(user, owner):
            declared = user in packs and packs[user].span.line > 0  # it has a pack.fg
            hint = (f"add '{owner}' to the 'depends' line of pack '{user}' in {packs[user].span.path}" if declared
                    else f"give the folder a pack.fg: 'pack {user} {{ name \"…\"; depends core {owner} }}'")
            err(r.span, "E212", f"'{r.name}' comes from pack '{owner}', which pack '{user}' does not declare in "
                f"'depends'", hint + ", or declare your own")

    # victim kinds (issue #16 item 3): declared once, never a minion's id; read by the references below
    tables["victim_kinds"] = _victim_kinds(tables, killers, scenarios, err)
    tables["conveyances"] = _conveyances(tables, scenarios, err)
    # modules (section 10): checked against the hosts as each leaves them; a name one of its lines
    # uses is resolved in each host its section applies to, as the module leaves it
    mods = check_modules(tables["modules"], tables, refs, err, warn, pack, reachable, _check_scenario, _check_killer)
    at = RefScope(tables, err, from_pack, file_pack is not None, packs, all_modes)
    for r, ks, ss in mods.resolve(refs, tables["killers"], tables["scenarios"]):
        REF_CHECKS[r.kind](at, r, ks, ss)
    # the numbers bloodlust levels print that nothing reads ('bloodlust NAME' reads one)
    read = {r.name for r in refs if r.kind == "level-stat"}
    for k in killers.values():
        for lvl in k.bloodlust:
            for name in sorted({s for s, _v in lvl.stats} - read):
                diags.append(Diagnostic(lvl.span, "W202", f"the level prints '{name}', but nothing reads "
                                        f"'bloodlust {name}'", "read it in an amount, or drop it",
                                        severity="warning"))
    for fg in tables["final_girls"].values():
        if fg.rescues not in (4, 5, 6):
            err(fg.span, "E209", f"rescues must be 4, 5 or 6, not {fg.rescues}")
        if fg.health < 1:
            err(fg.span, "E209", "health must be at least 1")
    _check_piles(killers, scenarios, err)
    _check_made_and_taken(tables, killers, scenarios, warn)
    _check_piece_events(decls, tables, err)
    _check_drawn(killers, scenarios, err)
    for k in killers.values():
        _check_killer(k, err)
    for s in scenarios.values():
        _check_scenario(s, err)
        _check_drawn_at(s, err, warn)
    for pb in tables["player_boards"].values():
        _check_board(pb, err)
    if decls and not tables["player_boards"]:
        pass  # a partial pack may rely on another pack's board; new_game checks presence
    seen: set[tuple] = set()  # a line of a module checked in several hosts is reported once
    unique: list[Diagnostic] = []
    for d in diags:
        if (d.span, d.code, d.message) not in seen:
            seen.add((d.span, d.code, d.message))
            unique.append(d)
    diags[:] = unique
    if file_pack is not None:
        tables["pack_of"] = {name: {i: pack(d.span) for i, d in table.items()} for name, table in tables.items()}
    return tables, settle_shown(diags)


def _check_killer(k: n.Killer, err) -> None:
    if not k.dark:  # K2.7: a line of its own that would reveal none is a line that does nothing
        for x in n.walk(k):
            if isinstance(x, n.RevealDarkPower):
                err(x.span, "E210", f"'{k.id}' has no dark power: 'reveal dark power' does nothing here",
                    "drop the line, or give the killer dark_power cards")
    if k.health < 1:
        err(k.span, "E209", "killer health must be at least 1")
    ids: set[str] = set()
    cards: tuple[n.Finale | n.DarkPower | n.Terror, ...] = (*k.finales, *k.dark_powers, *k.terror)
    for c in cards:
        if c.id in ids:
            err(c.span, "E203", f"duplicate card id '{c.id}' in killer '{k.id}'")
        ids.add(c.id)
    if len(set(k.modes)) != len(k.modes):
        err(k.span, "E203", "a mode is declared twice")
    for lvl in k.bloodlust:
        if lvl.move < 0 or lvl.damage < 0:
            err(lvl.span, "E209", "move and damage cannot be negative")


def _check_scenario(s: n.Scenario, err) -> None:
    locs = {loc.id: loc for loc in s.locations}
    if len(locs) != len(s.locations):
        seen: set[str] = set()
        for loc in s.locations:
            if loc.id in seen:
                err(loc.span, "E203", f"duplicate location '{loc.id}'")
            seen.add(loc.id)
    if not any(loc.exit for loc in s.locations):
        err(s.span, "E210", "the scenario has no exit", "mark a location with 'exit'")
    if not any(loc.search for loc in s.locations):
        err(s.span, "E210", "the scenario has no search location", "mark a location with 'search'")
    faces: dict[str, dict[int, Span]] = defaultdict(dict)
    pairs: set[frozenset] = set()
    for p in s.paths:
        if p.a == p.b:
            err(p.span, "E210", "a path joins a location to itself")
        key = frozenset((p.a, p.b))
        if key in pairs:
            err(p.span, "E203", f"a second path between '{p.a}' and '{p.b}'")
        pairs.add(key)
        for end, nums in ((p.a, p.a_panic), (p.b, p.b_panic)):
            for f in nums:
                if f in faces[end]:
                    err(p.span, "E210", f"panic number {f} is used twice at '{end}'",
                        f"the other path is at line {faces[end][f].line}")
                faces[end][f] = p.span
    # connectivity over open paths
    adj: dict[str, set[str]] = defaultdict(set)
    for p in s.paths:
        if not p.closed:
            adj[p.a].add(p.b)
            adj[p.b].add(p.a)
    if s.locations:
        start = s.locations[0].id
        seen_l = {start}
        todo = [start]
        while todo:
            cur = todo.pop()
            for nxt in adj[cur] - seen_l:
                seen_l.add(nxt)
                todo.append(nxt)
        for loc in s.locations:
            if loc.id not in seen_l:
                err(loc.span, "E210", f"location '{loc.id}' cannot be reached by any open path")
    for su in s.setups:
        if su.killer_at in locs and locs[su.killer_at].exit:
            pass  # allowed, though unusual
        if not su.victims:
            err(su.span, "E202", "this setup card places no victims", "add 'victims at LOC N'")
    for cv in s.conveyances:  # a piece that travels with her and can never go anywhere does nothing
        if cv.enters and not any(set(cv.enters) & set(loc.tags) for loc in s.locations):
            err(cv.span, "E210", f"no location of '{s.id}' has the tag{'s' if len(cv.enters) > 1 else ''} "
                f"{', '.join(cv.enters)}: the conveyance '{cv.id}' could never go anywhere",
                "tag the locations it may enter, or drop its 'enters' line")
    ids: set[str] = set()
    parts: tuple[n.EventCard | n.Terror | n.SetupCard, ...] = (*s.events, *s.terror, *s.setups)
    for c in parts:
        if c.id in ids:
            err(c.span, "E203", f"duplicate card id '{c.id}' in scenario '{s.id}'")
        ids.add(c.id)


def _check_drawn_at(s: n.Scenario, err, warn) -> None:
    """Where the locations are drawn (``at X Y``): all or none of them (W250: a map drawn in part is
    drawn from the computed layout, interpreter/display.py), and no two at one point (E210)."""
    drawn = [loc for loc in s.locations if loc.at is not None]
    if not drawn:
        return
    undrawn = [loc for loc in s.locations if loc.at is None]
    if undrawn:  # (at the first location without a point)
        shown = ", ".join(x.id for x in undrawn[:8]) + (f" and {len(undrawn) - 8} more" if len(undrawn) > 8 else "")
        warn(undrawn[0].span, "W250", f"{len(drawn)} of the {len(s.locations)} locations of '{s.id}' say where "
             f"they are drawn, but not {shown}: the map is drawn from the computed layout",
             "give each location 'at X Y', or none")
    where: dict[tuple[int, int], str] = {}
    for loc in s.locations:
        if loc.at is None:
            continue
        if loc.at in where:
            err(loc.span, "E210", f"the locations '{where[loc.at]}' and '{loc.id}' are drawn at the same point "
                f"{loc.at[0]} {loc.at[1]}", "move one of them: each location has a point of its own")
        else:
            where[loc.at] = loc.id


def _check_board(pb: n.PlayerBoard, err) -> None:
    for side in pb.sides:
        if side.fear_min <= side.fear_max:  # (the builder reports a reversed range)
            covered: set[int] = set()
            for z in side.zones:
                if not side.fear_min <= z.low <= z.high <= side.fear_max:  # also bounds the loop below
                    err(z.span, "E209", f"the zone {z.low}–{z.high} is outside the fear range "
                        f"{side.fear_min}–{side.fear_max}", "")
                    continue
                for f in range(z.low, z.high + 1):
                    if f in covered:
                        err(z.span, "E210", f"fear {f} is in two zones")
                    covered.add(f)
            missing = [f for f in range(side.fear_min, side.fear_max + 1) if f not in covered]
            if missing:
                err(side.span, "E210", f"fear values {missing} are in no zone")
        if side.time_min <= side.time_max and not side.time_min <= side.time_reset <= side.time_max:
            err(side.span, "E209", "the time reset is outside the time range")
    if not pb.last_breath:
        err(pb.span, "E202", "no last-breath tokens")


# --- the names content uses: one checker for each kind of reference ---------------------------------
@attrs.define
class RefScope:
    """What every reference is resolved against (besides the killers and scenarios of its host)."""

    tables: dict[str, dict]
    err: Callable[..., None]
    from_pack: Callable[[Ref, str], None]
    packs_on: bool  # the pack rules are in force (content loaded as packs)
    packs: dict[str, n.Pack]
    all_modes: set[str]


RefCheck = Callable[[RefScope, Ref, dict, dict], None]
REF_CHECKS: dict[str, RefCheck] = {}  # kind -> its checker: every kind of refs.REF_KINDS has one (a test checks)


def checks(*kinds: str) -> Callable[[RefCheck], RefCheck]:
    """Register a checker for these kinds of reference (each kind once)."""
    def mark(fn: RefCheck) -> RefCheck:
        for kind in kinds:
            if kind in REF_CHECKS:
                raise ValueError(f"two checkers for references of kind {kind!r}")
            if kind not in REF_KINDS:
                raise ValueError(f"{kind!r} is no kind of reference (refs.REF_KINDS)")
            REF_CHECKS[kind] = fn
        return fn
    return mark


def _owner(r: Ref, killers: dict, scenarios: dict) -> Optional[n.Scenario | n.Killer]:
    return scenarios.get(r.scope) or killers.get(r.scope)


@checks("item", "minion")
def _ref_table(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    table = at.tables[r.kind + "s"]
    if r.name not in table:
        at.err(r.span, "E204", f"unknown {r.kind} '{r.name}'", P(_hint_or_known, r.name, tuple(table), r.kind + "s"))
    else:
        at.from_pack(r, r.kind + "s")


@checks("pack")
def _ref_pack(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    if at.packs_on and r.name != CORE and r.name not in at.packs:
        at.err(r.span, "E204", f"unknown pack '{r.name}'",
               P(_or, P(_hint, r.name, [p for p in at.packs if p != r.scope]), "load it too, with another --content"))


@checks("body")
def _ref_body(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    bodies = ({b.id for b in killers[r.scope].bodies} if r.scope in killers else
              {b.id for k in killers.values() for b in k.bodies})
    if r.name not in bodies:
        where = f"killer '{r.scope}'" if r.scope in killers else "any killer"
        at.err(r.span, "E204", f"unknown body '{r.name}' ({where} declares none by that name)",
               P(_or, P(_hint, r.name, tuple(sorted(bodies))), "declare it with 'body ID { name \"…\"; health N }'"))


@checks("mode")
def _ref_mode(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    modes = killers[r.scope].modes if r.scope in killers else at.all_modes
    if r.name not in modes:
        at.err(r.span, "E204", f"unknown mode '{r.name}'", P(_or, P(_hint, r.name, tuple(modes)),
                                                               "declare it with 'modes …'"))


@checks("loc")
def _ref_loc(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    locs = set(SPECIAL_LOCS)
    if r.scope in scenarios:
        locs |= {loc.id for loc in scenarios[r.scope].locations}
    if r.name not in locs:
        hint = (P(_hint_or_known, r.name, tuple(locs), "locations") if r.scope in scenarios else
                P(_or, P(_hint, r.name, tuple(locs)),
                  "outside a scenario only here, killer-location, killer-start and it are known"))
        at.err(r.span, "E204", f"unknown location '{r.name}'", hint)


@checks("tag")
def _ref_tag(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    # (a tag outside a scenario is read against the map the game is played on: any tag may be there)
    if r.scope in scenarios and r.name not in scenarios[r.scope].tags:
        at.err(r.span, "E211", f"unknown location tag '{r.name}'",
               P(_or, P(_hint, r.name, tuple(scenarios[r.scope].tags)), "declare it in 'tags …'"))


@checks("token", "deck", "track", "holding", "pile")
def _ref_owned(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """Declared in the same killer or scenario."""
    owner = _owner(r, killers, scenarios)
    attr = {"token": "tokens", "deck": "decks", "track": "tracks", "holding": "holdings", "pile": "piles"}[r.kind]
    declared = {x.id for x in getattr(owner, attr)} if owner else set()
    if r.name not in declared:
        where = f"in '{r.scope}'" if owner else "outside a killer or scenario"
        how = ("'pile ID { name \"…\"; row N }'" if r.kind == "pile" else f"'{r.kind} ID {{ … }}'")
        at.err(r.span, "E204", f"unknown {r.kind} '{r.name}' {where}",
               P(_or, P(_hint, r.name, tuple(declared)), f"declare it with {how} in the same killer or scenario"))


@checks("fear")
def _ref_fear(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """A killer's starting fear, on every side of every player board."""
    for pb in at.tables["player_boards"].values():
        for side in pb.sides:
            if side.fear_min <= side.fear_max and not side.fear_min <= int(r.name) <= side.fear_max:
                at.err(r.span, "E209", f"the killer's starting fear {r.name} is outside the fear range "
                       f"{side.fear_min}–{side.fear_max} of player board '{pb.id}' (side '{side.id}')", "")


@checks("path")
def _ref_path(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """open/close path A B: the path must be on the map (read against the game's map elsewhere)."""
    if r.scope not in scenarios:
        return
    a, z = r.name.split(" ", 1)
    sc = scenarios[r.scope]
    ids = {loc.id for loc in sc.locations}
    if a in ids and z in ids and not any({p.a, p.b} == {a, z} for p in sc.paths):
        at.err(r.span, "E210", f"there is no path between '{a}' and '{z}' to open or close",
               "declare it with 'path A (…) -- (…) B' (with 'closed' inside its block if it starts closed)")


@checks("pathtag")
def _ref_pathtag(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    # (outside a scenario: read against the map the game is played on, which may have it)
    if r.scope in scenarios:
        ptags = {t for p in scenarios[r.scope].paths for t in p.tags}
        if r.name not in ptags:
            at.err(r.span, "E211", f"no path has the tag '{r.name}'", P(_hint, r.name, tuple(ptags)))


@checks("level-stat")
def _ref_level_stat(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'bloodlust NAME': a number some killer's bloodlust level prints (the engine reads move and damage)."""
    printed = {"move", "damage"} | {name for k in killers.values() for lvl in k.bloodlust for name, _v in lvl.stats}
    if killers and r.name not in printed:
        at.err(r.span, "E204", f"no bloodlust level prints '{r.name}'",
               P(_or, P(_hint, r.name, tuple(sorted(printed))),
                 f"print it on a level: 'level move 1 damage 1 {r.name} 2'"))


@checks("location-number")
def _ref_location_number(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'number NAME of PLACE': a number the locations declare ('number cost 3')."""
    host = scenarios.get(r.scope)
    declared = ({name for loc in host.locations for name, _v in loc.numbers} if host is not None else
                {name for s in scenarios.values() for loc in s.locations for name, _v in loc.numbers})
    if r.name not in declared and (host is not None or scenarios):
        where = f"scenario '{host.id}'" if host is not None else "any scenario"
        at.err(r.span, "E204", f"no location of {where} declares the number '{r.name}'",
               P(_or, P(_hint, r.name, tuple(sorted(declared))),
                 f"declare it on a location: 'location ID {{ …; number {r.name} 3 }}'"))


@checks("deck-card")
def _ref_deck_card(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'shuffle card DECK/CARD into …': a card of that deck of the same killer or scenario."""
    owner = _owner(r, killers, scenarios)
    deck, card = r.name.split("/", 1)
    got = next((d for d in (owner.decks if owner else ()) if d.id == deck), None)
    if got is not None and card not in {c.id for c in got.cards}:
        at.err(r.span, "E204", f"unknown card '{card}' in deck '{deck}'",
               P(_hint_or_known, card, tuple(c.id for c in got.cards), "cards of the deck"))


@checks("recipe-makes")
def _ref_recipe_makes(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """The item a recipe makes must be able to lie on the table (S3.4)."""
    items: dict[str, n.Item] = at.tables["items"]
    if r.name not in items:
        return  # (an unknown item: its 'item' reference says so)
    it = items[r.name]
    rows = {p.id for o in (*scenarios.values(), *killers.values()) for p in o.piles if p.row > 0}
    if not (it.start == "table" or it.returns or (it.start == "pile" and it.pile in rows)
            or any(z == "table" for z, _k in it.starts)):
        at.err(r.span, "E210", f"a recipe makes '{r.name}', which never lies on the table",
               "a recipe takes the item it makes from the table: give the item 'start table', "
               "'returns to the table when discarded', or 'start pile PILE' of a pile with a row")


@checks("kind")
def _ref_kind(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """A minion or a victim kind, where either goes ('count ID', 'when ID dies')."""
    minions, kinds = at.tables["minions"], at.tables["victim_kinds"]
    if r.name in at.tables["conveyances"]:  # one piece, not a kind of them: it is where it stands, not counted
        at.err(r.span, "E204", f"unknown minion or victim kind '{r.name}'",
               f"'{r.name}' is a conveyance, a single piece: '{r.name} at PLACE' says where it stands")
    elif r.name not in minions and r.name not in kinds:
        at.err(r.span, "E204", f"unknown minion or victim kind '{r.name}'",
               P(_hint_or_known, r.name, (*minions, *kinds), "minions and victim kinds"))


@checks("piece")
def _ref_piece(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """A piece named by its id ('when ID moves', 'ID at PLACE'): a minion kind, a victim kind or a
    conveyance."""
    minions, kinds, conveyances = at.tables["minions"], at.tables["victim_kinds"], at.tables["conveyances"]
    if r.name not in minions and r.name not in kinds and r.name not in conveyances:
        what = "minion, victim kind or conveyance" if conveyances else "minion or victim kind"
        known = "minions, victim kinds and conveyances" if conveyances else "minions and victim kinds"
        at.err(r.span, "E204", f"unknown {what} '{r.name}'",
               P(_hint_or_known, r.name, (*minions, *kinds, *conveyances), known))


@checks("conveyance")
def _ref_conveyance(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'move ID to PLACE': a conveyance of the same scenario (elsewhere: of any scenario loaded)."""
    host = scenarios.get(r.scope)
    declared = {c.id for c in host.conveyances} if host is not None else set(at.tables["conveyances"])
    if r.name not in declared:
        where = f"in '{r.scope}'" if host is not None else "in any scenario"
        at.err(r.span, "E204", f"unknown conveyance '{r.name}' {where}",
               P(_or, P(_hint, r.name, tuple(sorted(declared))),
                 "declare it in the scenario: 'conveyance ID { name \"…\"; start at LOC }'"))


@checks("victim-kind")
def _ref_victim_kind(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    kinds = at.tables["victim_kinds"]
    if r.name not in kinds:
        at.err(r.span, "E204", f"unknown victim kind '{r.name}'",
               P(_or, P(_hint, r.name, tuple(kinds)), "declare it with 'victim ID { name \"…\" }' in a scenario or "
                 "a killer"))


@checks("token-kind")
def _ref_token_kind(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    owner = _owner(r, killers, scenarios)
    token, kind = r.name.split(" ", 1)
    t = next((x for x in owner.tokens if x.id == token), None) if owner is not None else None
    if t is not None and kind not in t.kinds:
        at.err(r.span, "E204", f"unknown kind '{kind}' of the token '{token}'",
               P(_hint_or_known, kind, t.kinds, "kinds"))


@checks("card-of-deck")
def _ref_card_of_deck(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """Tokens on a card: a card of a deck of the same killer or scenario."""
    owner = _owner(r, killers, scenarios)
    if owner is None:
        return  # (outside a killer or scenario: any card of the game's decks)
    cards = {c.id for d in owner.decks for c in d.cards}
    if r.name not in cards:
        at.err(r.span, "E204", f"unknown card '{r.name}' (no deck of '{r.scope}' has it)",
               P(_or, P(_hint, r.name, tuple(cards)),
                 "tokens lie on the cards of its decks: 'deck D { card ID { … } }'"))


@checks("card", "action", "event", "terror")
def _ref_cause(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'the cause is card|action|event|terror ID': a card (of the action cards, or of a deck), an
    action, an event or a terror card of its killer or scenario (or, outside one, of any)."""
    owner = _owner(r, killers, scenarios)
    hosts = [owner] if owner is not None else [*scenarios.values(), *killers.values()]
    if r.kind == "card":
        known = {*at.tables["cards"], *(c.id for h in hosts for d in h.decks for c in d.cards)}
    else:
        attr = {"action": "actions", "event": "events", "terror": "terror"}[r.kind]
        known = {x.id for h in hosts for x in getattr(h, attr, ())}
    if r.name not in known:
        where = f"in '{r.scope}'" if owner is not None else "anywhere"
        at.err(r.span, "E204", f"unknown {r.kind} '{r.name}' {where}", P(_hint_or_known, r.name, tuple(known),
                                                                         f"{r.kind}s"))


@checks("hand-card")
def _ref_hand_card(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'gain card CARD' / 'remove card CARD': an action card (the core deck's, a killer's or a scenario's)."""
    cards = at.tables["cards"]
    if r.name not in cards:
        at.err(r.span, "E204", f"unknown action card '{r.name}'", P(_hint_or_known, r.name, tuple(cards), "cards"))


@checks("scenario", "killer")
def _ref_host(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """A module section's host: checked with the module (modules.check_modules), which keeps these
    references from the loop that calls the other checkers."""
    raise AssertionError(f"a {r.kind} reference reached the checkers: modules.check_modules resolves it")


@checks("card-place")
def _ref_card_place(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'it' in the effects of a deck card is the place the card is drawn at (issue #33 item 7): every
    'draw card DECK' of its deck gives one ('at PLACE'); the forms drawing an identity always do."""
    owner = _owner(r, killers, scenarios)
    if owner is None:
        return  # (a deck outside a killer or scenario: its 'deck' reference says so)
    bare = next((x for x in n.walk(owner) if isinstance(x, n.DrawCard) and x.deck == r.name and not x.loc), None)
    if bare is not None:
        where = f"line {bare.span.line}" if bare.span.path == r.span.path else f"{bare.span.path}:{bare.span.line}"
        at.err(r.span, "E204", f"'it' in a card of the deck '{r.name}' is the place the card is drawn at, but "
               f"'draw card {r.name}' at {where} gives it none",
               f"write 'draw card {r.name} at PLACE' there (every draw of the deck gives its cards a place), "
               "or name the location here ('here' is hers when a card is drawn at no place)")


@checks("body-deck", "minion-deck")
def _ref_identity_deck(at: RefScope, r: Ref, killers: dict, scenarios: dict) -> None:
    """'a killer drawn from DECK' / 'minions of a kind drawn from DECK': a deck of the same killer or
    scenario each card of which names a body ('body BODY') / a minion kind ('minion MINION')."""
    owner = _owner(r, killers, scenarios)
    decks = {d.id: d for d in owner.decks} if owner is not None else {}
    what, line = ("bodies", "body BODY") if r.kind == "body-deck" else ("minion kinds", "minion MINION")
    deck = decks.get(r.name)
    if deck is None:
        where = f"in '{r.scope}'" if owner is not None else "outside a killer or scenario"
        at.err(r.span, "E204", f"unknown deck '{r.name}' {where}",
               P(_or, P(_hint, r.name, tuple(decks)), "declare it with 'deck ID { … }' in the same killer or scenario"))
        return
    blank = [c.id for c in deck.cards if not (c.body if r.kind == "body-deck" else c.minion)]
    if blank:
        at.err(r.span, "E210", f"the deck '{r.name}' is not a deck of {what}: its card '{blank[0]}' names none",
               f"give each of its cards a '{line}' line (what the card turns up)")


def _check_drawn(killers: dict, scenarios: dict, err) -> None:
    """Lines of issue #33 item 8 that would do nothing (a line that checks clean does something in
    play): 'killer catches up with bloodlust' / '… with track TRACK' where no bloodlust level above the
    first of the killer has a one-time effect, or no step of the track stands above its start space;
    'spawn N minions of a random kind' in a killer with no minion kind."""
    for host in (*killers.values(), *scenarios.values()):
        for x in n.walk(host):
            if isinstance(x, n.SpawnDrawn) and not x.deck and isinstance(host, n.Killer) and not host.minions:
                err(x.span, "E210", f"'{host.id}' has no minion kind: no minion of a random kind can be spawned",
                    "declare one, 'minion ID { … }', or name a kind: 'spawn N MINION at PLACE'")
            if not isinstance(x, n.CatchUp):
                continue
            if not x.track:
                if isinstance(host, n.Killer) and not any(lvl.effects for lvl in host.bloodlust[1:]):
                    err(x.span, "E210", f"no bloodlust level of '{host.id}' above the first has a one-time effect: "
                        "catching up with it does nothing", "give a level one, 'level move 1 damage 1 { … }', "
                        "or drop the line")
                continue
            t = next((t for t in host.tracks if t.id == x.track), None)
            if t is not None and not any(st.at > t.start for st in t.steps):
                err(x.span, "E210", f"the track '{t.id}' has no 'at N' step above its start space {t.start}: "
                    "catching up with it does nothing", f"give it a step, 'at {min(t.start + 1, t.high)} {{ … }}', "
                    "or drop the line")


# --- events a piece never has --------------------------------------------------------------------
_PIECE_WORDS = {"fg": "the Final Girl", "killer": "a killer", "minion": "a minion", "victim": "a victim",
                "conveyance": "a conveyance"}


def _listed(pieces: frozenset[str]) -> str:
    """'a killer, a minion and a victim'."""
    words = [_PIECE_WORDS[p] for p in sorted(pieces)]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _check_piece_events(decls: list, tables: dict, err) -> None:
    """E215: a trigger, a replacement or a modification answering an event its piece never has
    (nodes.PIECE_EVENT_PIECES): it would check clean and never resolve."""
    kinds, minions, conveyances = tables["victim_kinds"], tables["minions"], tables["conveyances"]
    for x in n.walk(tuple(decls)):
        if not isinstance(x, (n.Trigger, n.Replacement, n.Modification)) or not isinstance(x.event, n.PieceEvent):
            continue
        e = x.event
        ref = e.piece
        pieces = n.pieces_of(ref)
        if ref.kind == "minion" and ref.minion:  # a kind of minion or of victim, or a conveyance, as declared
            pieces = frozenset({"minion"} if ref.minion in minions else {"victim"} if ref.minion in kinds else
                               {"conveyance"} if ref.minion in conveyances else pieces)
        before = not isinstance(x, n.Trigger)
        allowed = n.PIECE_EVENT_PIECES[e.what][1 if before else 0]
        if pieces & allowed:
            continue
        what = e.what.replace("-", " ")
        subject = to_words(ref)
        if before:
            form = "replacement" if isinstance(x, n.Replacement) else "modification"
            who = _listed(allowed) if allowed else ""
            after = n.PIECE_EVENT_PIECES[e.what][0] & pieces
            err(e.span, "E215", f"nothing changes '{what}' for {subject} before it happens: this {form} never resolves",
                (f"it can be changed for {who}" if who else "nothing can change it before it happens")
                + ("; a trigger ('when …') answers it after it happens" if after else ""))
        elif e.what == "would-be-defeated":
            err(e.span, "E215", "'would be defeated' is asked only before a defeat: a trigger never answers it",
                f"write 'instead of {ref_text(ref)} would be defeated {{ … }}'")
        else:
            err(e.span, "E215", f"{subject} never {what}: this trigger never fires",
                f"'{what}' happens to {_listed(allowed)}")


def ref_text(ref: n.PieceRef) -> str:
    """The piece as the language writes it."""
    if ref.kind == "minion" and ref.minion:
        return ref.minion
    return f"killer {ref.body}" if ref.body else ref.kind


def to_words(ref: n.PieceRef) -> str:
    """The piece in words."""
    if ref.kind == "minion" and ref.minion:
        return f"'{ref.minion}'"
    if ref.body:
        return f"killer '{ref.body}'"
    return {"fg": "the Final Girl", "killer": "the killer", "minion": "a minion", "victim": "a victim",
            "enemy": "an enemy"}.get(ref.kind, ref.kind)


# --- item and card zones (issue #16 item 6) --------------------------------------------------------
def _check_piles(killers: dict, scenarios: dict, err) -> None:
    """Named piles hold items, and are not smaller than their row."""
    for owner in (*scenarios.values(), *killers.values()):
        for p in owner.piles:
            size = sum(it.copies for it in owner.items if it.start == "pile" and it.pile == p.id)
            if size == 0:
                err(p.span, "E210", f"no item starts in the pile '{p.id}'", f"give items 'start pile {p.id}'")
            elif p.row > size:
                err(p.span, "E210", f"a row of {p.row} from the pile '{p.id}', which holds {size} item"
                    f"{'s' if size != 1 else ''}", f"lay at most {size} on the table, or add items to the pile")


# --- victim kinds and tokens everywhere (issue #16 items 3 and 5) ----------------------------------
def victim_kinds_of(hosts) -> list[n.VictimKind]:
    """The victim kinds declared in scenarios, killers and modules' sections (ids shared by all)."""
    out: list[n.VictimKind] = []
    for h in hosts:
        if isinstance(h, n.Module):
            out.extend(v for sec in h.sections for v in sec.adds.victim_kinds)
        else:
            out.extend(h.victim_kinds)
    return out


def _victim_kinds(tables: dict, killers: dict, scenarios: dict, err) -> dict[str, n.VictimKind]:
    """Victim kinds: declared once, never with a minion's id."""
    kinds: dict[str, n.VictimKind] = {}
    for v in victim_kinds_of([*scenarios.values(), *killers.values(), *tables["modules"].values()]):
        if v.id in kinds and kinds[v.id] is not v and kinds[v.id].span != v.span:
            err(v.span, "E203", f"duplicate victim kind '{v.id}'", f"first declared at {kinds[v.id].span}")
            continue
        if v.id in tables["minions"]:
            err(v.span, "E203", f"'{v.id}' is a minion and a victim kind",
                "a kind of piece is named by its id alone ('count ID', 'when ID dies'): give them different ids")
        kinds[v.id] = v
    return kinds


def _conveyances(tables: dict, scenarios: dict, err) -> dict[str, n.Conveyance]:
    """Pieces that travel with her (issue #33 item 2): each declared once, never with the id of a
    minion or a victim kind (a piece is named by its id alone: 'when ID moves', 'ID at PLACE')."""
    out: dict[str, n.Conveyance] = {}
    hosts = [*scenarios.values(), *(sec.adds for m in tables["modules"].values() for sec in m.sections)]
    for c in (c for h in hosts for c in getattr(h, "conveyances", ())):
        first = out.get(c.id)
        if first is not None and first is not c and first.span != c.span:
            err(c.span, "E203", f"duplicate conveyance '{c.id}'", f"first declared at {first.span}")
            continue
        if c.id in tables["minions"] or c.id in tables["victim_kinds"]:
            what = "a minion" if c.id in tables["minions"] else "a victim kind"
            err(c.span, "E203", f"'{c.id}' is {what} and a conveyance",
                "a piece is named by its id alone ('when ID moves', 'ID at PLACE'): give them different ids")
        out[c.id] = c
    if any(not c.start for c in out.values()):  # one that starts off the board needs 'move ID to PLACE'
        moved = {x.conveyance for x in n.walk((*scenarios.values(), *tables["killers"].values(),
                                               *tables["modules"].values(), *tables["items"].values(),
                                               *tables["cards"].values(), *tables["final_girls"].values()))
                 if isinstance(x, n.MoveConveyance)}
        for c in out.values():
            if not c.start and c.id not in moved:
                err(c.span, "E210", f"the conveyance '{c.id}' starts off the board and nothing puts it on it",
                    f"give it 'start at LOC', or put it somewhere with 'move {c.id} to PLACE'")
    return out


def _check_made_and_taken(tables: dict, killers: dict, scenarios: dict, warn) -> None:
    """A token type something takes but nothing ever puts anywhere (W240); a victim kind nothing
    makes (W241)."""
    kinds: dict[str, n.VictimKind] = tables["victim_kinds"]
    made: set[str] = set()
    if kinds:
        for x in n.walk((*scenarios.values(), *killers.values(), *tables["modules"].values(),
                         *tables["cards"].values(), *tables["items"].values())):
            if isinstance(x, n.TurnVictims):
                made.add(x.minion)
            elif isinstance(x, n.TurnRandomVictims):
                made.add(x.kind)
    for v in kinds.values():
        if v.id not in made:
            warn(v.span, "W241", f"nothing turns a victim into '{v.id}'",
                 f"'turn N random victims into {v.id}' (at setup: 'when game starts {{ … }}') or "
                 f"'turn N victims at PLACE into {v.id}'")
    for host in (*scenarios.values(), *killers.values()):
        _check_token_flow(host, warn)


def _check_token_flow(host, warn) -> None:
    """W240: a token type of this host that its token lines take from somewhere (``spend``, ``remove``,
    ``move N token …``) but that nothing puts anywhere (a setup card, ``place token``, ``gain N token
    …``) never leaves the supply."""
    placed: set[str] = {t for su in getattr(host, "setups", ()) for t, _loc in (*su.tokens, *su.tokens_down)}
    taken: dict[str, Span] = {}
    for x in n.walk(host):
        t = type(x)
        if t in (n.PlaceToken, n.GainTokens):
            placed.add(x.token)
        elif t in (n.SpendTo, n.RemoveTokens, n.MoveTokens):
            if x.src.kind in ("supply", "discard"):
                placed.add(x.token)
            else:
                taken.setdefault(x.token, x.span)
    for token, span in taken.items():
        if token not in placed and any(tk.id == token for tk in host.tokens):
            warn(span, "W240", f"the token '{token}' is taken here, but nothing ever places one",
                 f"place some first: a setup card's 'tokens {token} at LOC', 'place token {token} at PLACE' or "
                 f"'gain N token {token} on …'")
