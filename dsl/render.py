"""Content as English, generated from the typed syntax tree; and nodes back to DSL phrases.

``render(decl)`` gives the plain-text card of any declaration (card, item, Final Girl, killer with
its bloodlust table, finale, dark power, terror, minion, scenario with its map, setup card, event,
player board); ``render_effects(effects)`` an effect list in card-like English
("Lose 1 time. Move up to 2."). Nothing is typed by hand per card: every node class has one small
function here, ``_render_<snake_case_class_name>``, found by name, so a new node without a renderer
is caught by the registry test (tests/test_render.py).

``to_dsl(node)`` formats an effect, control, condition, rule or amount node back to the DSL: the
node's own ``PHRASES`` pattern whose slots match its fields (control nodes with their blocks).
A rule node gives its phrase without the leading ``rule`` word (``dice +1``).

Conventions of the English: a *clause* is lower case without a final period
("lose 1 time"); a *sentence* is a capitalised clause with a period. Effects inside a block are
joined with ", then "; control lines nested in a longer block are put in parentheses.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping, Optional

import attrs

from . import nodes as n

__all__ = [
    "KIND_NAMES",
    "Names",
    "count_of",
    "dsl_writer_for",
    "render",
    "render_condition",
    "render_effects",
    "renderer_for",
    "to_dsl",
]


# --- names ------------------------------------------------------------------------------------
@attrs.frozen
class Names:
    """Display names for ids used inside effects (locations, items, minions). Unknown ids show as is."""

    locations: Mapping[str, str] = attrs.field(factory=dict)
    items: Mapping[str, str] = attrs.field(factory=dict)
    minions: Mapping[str, str] = attrs.field(factory=dict)
    tokens: Mapping[str, str] = attrs.field(factory=dict)
    decks: Mapping[str, str] = attrs.field(factory=dict)
    tracks: Mapping[str, str] = attrs.field(factory=dict)
    holdings: Mapping[str, str] = attrs.field(factory=dict)
    bodies: Mapping[str, str] = attrs.field(factory=dict)
    victims: Mapping[str, str] = attrs.field(factory=dict)  # victim kinds (issue #16 item 3)
    ingredients: frozenset[str] = frozenset()  # items some recipe needs: kept used up (S3.4)
    conveyances: Mapping[str, str] = attrs.field(factory=dict)  # pieces that travel with her (issue #33 item 2)
    here: str = "your location"  # 'here' in words: in a card drawn at a place, that place (issue #33 item 7)

    @classmethod
    def from_ruleset(cls, rs: Any) -> Names:
        # the hosts, and what modules' sections add to them (their tokens, pieces that travel with her …)
        owners = [*rs.scenarios.values(), *rs.killers.values(),
                  *(sec.adds for m in getattr(rs, "modules", {}).values() for sec in m.sections)]
        return cls({loc.id: loc.name for s in rs.scenarios.values() for loc in s.locations},
                   {i: it.name for i, it in rs.items.items()},
                   {m: mn.name for m, mn in rs.minions.items()},
                   {t.id: t.name for o in owners for t in getattr(o, "tokens", ())},
                   {d.id: d.name for o in owners for d in getattr(o, "decks", ())},
                   {t.id: t.name for o in owners for t in getattr(o, "tracks", ())},
                   {h.id: h.name for o in owners for h in getattr(o, "holdings", ())},
                   {b.id: b.name for k in rs.killers.values() for b in k.bodies},
                   {v.id: v.name for o in owners for v in getattr(o, "victim_kinds", ())},
                   frozenset(i for o in owners for x in getattr(o, "recipes", ()) for i in x.needs),
                   {c.id: c.name for o in owners for c in getattr(o, "conveyances", ())})

    def within(self, decl: Any) -> Names:
        """These names plus those declared inside a scenario or killer (which take precedence)."""
        locs, items, minions = dict(self.locations), dict(self.items), dict(self.minions)
        tokens, decks = dict(self.tokens), dict(self.decks)
        tracks, holdings, bodies = dict(self.tracks), dict(self.holdings), dict(self.bodies)
        if isinstance(decl, n.Scenario):
            locs.update({loc.id: loc.name for loc in decl.locations})
            items.update({it.id: it.name for it in decl.items})
        elif isinstance(decl, n.Killer):
            minions.update({m.id: m.name for m in decl.minions})
            items.update({it.id: it.name for it in decl.items})
            bodies.update({b.id: b.name for b in decl.bodies})
        victims = dict(self.victims)
        if isinstance(decl, (n.Scenario, n.Killer)):
            tokens.update({t.id: t.name for t in getattr(decl, "tokens", ())})
            decks.update({d.id: d.name for d in getattr(decl, "decks", ())})
            tracks.update({t.id: t.name for t in getattr(decl, "tracks", ())})
            holdings.update({h.id: h.name for h in getattr(decl, "holdings", ())})
            victims.update({v.id: v.name for v in getattr(decl, "victim_kinds", ())})
        conveyances = {**self.conveyances, **{c.id: c.name for c in getattr(decl, "conveyances", ())}}
        return Names(locs, items, minions, tokens, decks, tracks, holdings, bodies, victims, self.ingredients,
                     conveyances)

    def loc(self, loc: n.Loc) -> str:
        if isinstance(loc, n.Place):
            return _clause(loc, self)
        if loc == "here":
            return self.here
        if loc == "fg":
            return "your location"
        if loc == "killer-location":
            return "the killer's location"
        if loc == "killer-start":
            return "the setup card's killer location"
        if loc == "it":
            return "that location"
        return self.locations.get(loc, loc)

    def item(self, item: str) -> str:
        return self.items.get(item, item)

    def minion(self, minion: str) -> str:
        return self.minions.get(minion, minion)

    def token(self, token: str) -> str:
        return self.tokens.get(token, token)

    def kind(self, kind: str) -> str:
        """A kind of piece: "Cub minion", "Stray victim" (a victim kind), "Handcart" (a conveyance), or the id."""
        if kind in self.conveyances:
            return self.conveyances[kind]
        if kind in self.victims:
            return f"{self.victims[kind]} victim"
        return f"{self.minion(kind)} minion"

    def deck(self, deck: str) -> str:
        return self.decks.get(deck, deck)

    def track(self, track: str) -> str:
        return self.tracks.get(track, track)

    def holding(self, holding: str) -> str:
        return self.holdings.get(holding, holding)


NO_NAMES = Names()


# --- finding a renderer -----------------------------------------------------------------------
def renderer_for(cls: type) -> Optional[Callable[..., str]]:
    """The ``_render_<snake_case_class_name>`` function of a node class, or None."""
    fn = globals().get("_render_" + n.snake(cls.__name__))
    return fn if callable(fn) else None


def dsl_writer_for(cls: type) -> Optional[Callable[..., str]]:
    """How a node class is written back to the DSL: its ``_dsl_<snake_case_class_name>`` function
    (control lines, written with their blocks), else its ``PHRASES``; None if it has neither."""
    fn = globals().get("_dsl_" + n.snake(cls.__name__))
    if callable(fn):
        return fn
    return _phrase_writer if getattr(cls, "PHRASES", None) else None


def _clause(node: Any, r: Names) -> str:
    fn = renderer_for(type(node))
    if fn is None:
        raise TypeError(f"no English renderer for {type(node).__name__}")
    return fn(node, r)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sentence(clause: str) -> str:
    return _cap(clause) + ("" if clause.endswith((".", "!", "?")) else ".")


def render_effects(effects: Iterable[Any], names: Optional[Names] = None) -> str:
    """An effect list as card text: one sentence per effect, left to right."""
    r = names or NO_NAMES
    sentences = [_sentence(_clause(e, r)) for e in effects]
    return " ".join(sentences) if sentences else "Nothing happens."


def render_condition(cond: Any, names: Optional[Names] = None) -> str:
    return _clause(cond, names or NO_NAMES)


def _block(effects: tuple, r: Names) -> str:
    """A nested block as one clause: "lose 1 time, then raise fear by 1"."""
    if not effects:
        return "nothing happens"
    parts = []
    for e in effects:
        text = _clause(e, r)
        if len(effects) > 1 and isinstance(e, n.Control):
            text = f"({text})"
        parts.append(text)
    return ", then ".join(parts)


# --- amounts ----------------------------------------------------------------------------------
def _num(a: Any) -> str:
    return str(a) if isinstance(a, int) else "X"


def _where(a: Any, r: Names) -> str:
    return "" if isinstance(a, int) else f", where X is {_clause(a, r)}"


def _amt(a: Any, r: Names, template: str, singular: Optional[str] = None) -> str:
    """Fill ``{n}`` in a clause template; ``singular`` is used when the amount is exactly 1."""
    text = singular if (singular is not None and a == 1) else template
    return text.format(n=_num(a)) + _where(a, r)


_COUNTED = {"victims": ("victim", "victims"), "dead": ("dead victim", "dead victims"),
            "rescued": ("rescued victim", "rescued victims"), "minions": ("minion", "minions"),
            "killers": ("killer", "killers"), "enemies": ("enemy", "enemies"), "exits": ("exit", "exits"),
            "items": ("item you hold", "items you hold"), "spent": ("token spent", "tokens spent")}


def _counted(node: n.Count, r: Names) -> str:
    """What a count counts, in the plural: "victims", "Walker minions", "lamp tokens"."""
    if node.what == "minion":
        return f"{r.kind(node.kind)}s"
    if node.what == "tokens":
        return f"{r.token(node.kind)} tokens"
    if node.what == "collected":
        return f"{r.token(node.kind)} tokens you have collected"
    if node.what == "cards":
        return f"cards left in the {r.deck(node.kind)} deck"
    return _COUNTED[node.what][1]


def _render_count(node: n.Count, r: Names) -> str:
    where = {"": "", "it": " there"}.get(node.where if isinstance(node.where, str) else "-")
    if where is None:
        where = f" at {r.loc(node.where)}"
    return f"the number of {_counted(node, r)}{where}"


_QUANTITY = {"fear": "your fear", "time": "your time", "health": "your health", "bloodlust": "the bloodlust level",
             "killer-health": "the killer's health"}


def _render_quantity(node: n.Quantity, r: Names) -> str:
    return _QUANTITY[node.what]


def _render_that(node: n.That, r: Names) -> str:
    return "the number of the event"


def _render_level_stat(node: n.LevelStat, r: Names) -> str:
    return f"the {node.stat} number of the current bloodlust level"


def _render_distance(node: n.Distance, r: Names) -> str:
    return f"the number of moves from {r.loc(node.a)} to {r.loc(node.b)}"


def _render_arith(node: n.Arith, r: Names) -> str:
    return f"{_value(node.a, r)} {node.op} {_value(node.b, r)}" + (" (at least 0)" if node.op == "minus" else "")


def _render_min_max(node: n.MinMax, r: Names) -> str:
    return f"the {'lower' if node.fn == 'min' else 'higher'} of {_value(node.a, r)} and {_value(node.b, r)}"


def _value(a: Any, r: Names) -> str:
    """An amount as a noun phrase: a number, or what it is worked out from."""
    return str(a) if isinstance(a, int) else _clause(a, r)


_KIND_SETS = {"any": "location", "exit": "exit", "search": "search location"}


def _render_locations(node: n.Locations, r: Names) -> str:
    if node.kind == "tag":
        return f"{node.tag} location"
    if node.kind == "adjacent":
        return f"location adjacent to {r.loc(node.near)}"
    if node.kind == "within":
        return f"location within {_value(node.n, r)} moves of {r.loc(node.near)}"
    return _KIND_SETS[node.kind]


def _render_holding(node: n.Holding, r: Names) -> str:
    if node.what == "token":
        return f"with a {r.token(node.token)} token"
    return {"victims": "with victims", "minions": "with minions", "killer": "with a killer",
            "enemies": "with enemies"}[node.what]


def _render_pick(node: n.Pick, r: Names) -> str:
    """How a pick reads after the noun it picks: "nearest to your location", "with the fewest …"."""
    where = "you" if node.place == "fg" else r.loc(node.place)
    if node.how == "nearest":
        return f"nearest to {where}"
    if node.how == "farthest":
        return f"farthest from {where}"
    if node.how in ("most", "fewest"):
        if isinstance(node.n, n.Count) and node.n.where == "it":
            return f"with the {node.how} {_counted(node.n, r)}"
        return f"where {_value(node.n, r)} is the {'greatest' if node.how == 'most' else 'least'}"
    return {"random": "at random", "chosen": "of your choice"}[node.how]


def _render_selector(node: n.Selector, r: Names) -> str:
    text = _clause(node.among, r)
    if node.holding:
        text += " " + " and ".join(_clause(h, r) for h in node.holding)
    if node.where is not None:
        text += f" where {_clause(node.where, r)}"
    if node.skip:
        text += f" other than {r.loc(node.skip)}"
    if not node.picks:
        return f"the first {text} in map order"
    first, *ties = [_clause(p, r) for p in node.picks]
    article = "a" if node.picks[0].how in ("random", "chosen") else "the"
    tail = "".join(f", ties going to the one {t}" for t in ties)
    return f"{article} {text} {first}{tail} (chosen anew for each)"


# --- effects ----------------------------------------------------------------------------------
def _render_gain_time(node: n.GainTime, r: Names) -> str:
    return _amt(node.n, r, "gain {n} time")


def _render_lose_time(node: n.LoseTime, r: Names) -> str:
    return _amt(node.n, r, "lose {n} time")


def _render_heal(node: n.Heal, r: Names) -> str:
    return _amt(node.n, r, "heal {n}")


def _render_lose_health(node: n.LoseHealth, r: Names) -> str:
    return _amt(node.n, r, "lose {n} health")


def _render_raise_fear(node: n.RaiseFear, r: Names) -> str:
    return _amt(node.n, r, "raise fear by {n}")


def _render_lower_fear(node: n.LowerFear, r: Names) -> str:
    return _amt(node.n, r, "lower fear by {n}")


def _render_move_up_to(node: n.MoveUpTo, r: Names) -> str:
    return _amt(node.n, r, "move up to {n}")


def _render_deal_damage(node: n.DealDamage, r: Names) -> str:
    return _amt(node.n, r, "deal {n} damage to one target of your choice in reach (a killer, or the minions at one "
                           "location; in a reaction, the attacker)")


def _render_prevent_damage(node: n.PreventDamage, r: Names) -> str:
    return _amt(node.n, r, "prevent {n} damage")


def _render_search_take(node: n.SearchTake, r: Names) -> str:
    return _amt(node.n, r, "search: take the top {n} cards of this location's item pile",
                "search: take the top card of this location's item pile")


def _render_search_look(node: n.SearchLook, r: Names) -> str:
    return (f"search: look at the top {_value(node.n, r)} cards of this location's item pile, keep "
            f"{_value(node.keep, r)}, and put the rest back on top face up or on the bottom face down")


def _render_end_action_phase(node: n.EndActionPhase, r: Names) -> str:
    return "end the Action phase"


def _render_draw_event(node: n.DrawEvent, r: Names) -> str:
    return "draw an event"


def _render_gain_card(node: n.GainCard, r: Names) -> str:
    return f"take the card {node.card} into your hand (a copy set aside)"


def _render_remove_card(node: n.RemoveCard, r: Names) -> str:
    return f"a copy of the card {node.card} leaves the game (from your hand, your spent cards or the market)"


def _render_gain_item(node: n.GainItem, r: Names) -> str:
    return f"gain the item {r.item(node.item)}"


def _render_discard_item(node: n.DiscardItem, r: Names) -> str:
    return f"discard the item {r.item(node.item)}"


def _render_raise_bloodlust(node: n.RaiseBloodlust, r: Names) -> str:
    return _amt(node.n, r, "raise bloodlust by {n}")


def _render_lower_bloodlust(node: n.LowerBloodlust, r: Names) -> str:
    return _amt(node.n, r, "lower bloodlust by {n}")


_WHO = {"killer": "the killer hunts", "minions": "every minion hunts",
        "enemies": "every enemy (minions first, then the killer) hunts"}
_TARGET = {"fg": "the Final Girl", "victims": "victims", "fg-or-victims": "the Final Girl or victims"}


def _count(k: int, word: str, plural: str = "") -> str:
    return f"{k} {word if k == 1 else (plural or word + 's')}"


def count_of(k: int, word: str, plural: str = "") -> str:
    """A count with its noun, plural by count: "1 victim", "2 victims", "2 copies" (for logs and screens)."""
    return _count(k, word, plural)


def _render_hunt(node: n.Hunt, r: Names) -> str:
    def many(a: Any, word: str) -> str:
        return _count(a, word) if isinstance(a, int) else f"{_value(a, r)} {word}s"
    return f"{_WHO[node.who]} {_TARGET[node.target]}: {many(node.moves, 'move')}, {many(node.attacks, 'attack')}"


def _render_kill_victims(node: n.KillVictims, r: Names) -> str:
    return _amt(node.n, r, f"kill {{n}} victims of your choice at {r.loc(node.loc)} (as many as there are)",
                f"kill 1 victim of your choice at {r.loc(node.loc)}")


def _render_place_victims(node: n.PlaceVictims, r: Names) -> str:
    return _amt(node.n, r, f"place {{n}} victims at {r.loc(node.loc)} (from the victim supply: as many as are left)",
                f"place 1 victim at {r.loc(node.loc)} (from the victim supply, if one is left)")


def _render_spawn_minions(node: n.SpawnMinions, r: Names) -> str:
    name = r.minion(node.minion)
    return _amt(node.n, r, f"spawn {{n}} {name} minions at {r.loc(node.loc)}",
                f"spawn 1 {name} minion at {r.loc(node.loc)}")


def _render_move_killer_to(node: n.MoveKillerTo, r: Names) -> str:
    return f"move the killer to {r.loc(node.loc)}"


def _render_heal_killer(node: n.HealKiller, r: Names) -> str:
    return _amt(node.n, r, "the killer heals {n}")


def _render_damage_killer(node: n.DamageKiller, r: Names) -> str:
    return _amt(node.n, r, "the killer takes {n} damage")


def _render_reveal_dark_power(node: n.RevealDarkPower, r: Names) -> str:
    return "reveal the dark power"


def _render_reveal_finale(node: n.RevealFinale, r: Names) -> str:
    return "reveal the finale"


def _render_set_mode(node: n.SetMode, r: Names) -> str:
    return f"the killer turns to {node.mode} mode from the next Killer phase"


def _render_set_flag(node: n.SetFlag, r: Names) -> str:
    return f"set the flag {node.flag}"


def _render_clear_flag(node: n.ClearFlag, r: Names) -> str:
    return f"clear the flag {node.flag}"


_FOR_MOVERS = {"": "", "fg": " for you", "victims": " for victims", "enemies": " for enemies"}


def _render_open_path(node: n.OpenPath, r: Names) -> str:
    return f"open the path between {r.loc(node.a)} and {r.loc(node.b)}{_FOR_MOVERS[node.who]}"


def _render_panic_at(node: n.PanicAt, r: Names) -> str:
    return f"the victims at {r.loc(node.loc)} panic"


def _render_collect_token(node: n.CollectToken, r: Names) -> str:
    return f"collect one {r.token(node.token)} token of your choice from {r.loc(node.loc)}"


def _render_place_token(node: n.PlaceToken, r: Names) -> str:
    return f"place a random {r.token(node.token)} token from the supply at {r.loc(node.loc)}"


def _render_draw_card(node: n.DrawCard, r: Names) -> str:
    if node.loc:
        return f"draw a card from the {r.deck(node.deck)} deck: it resolves at {r.loc(node.loc)}"
    return f"draw a card from the {r.deck(node.deck)} deck"


def _render_add_status(node: n.AddStatus, r: Names) -> str:
    if node.who == "killer":
        return f"the killer gains the status {node.status}"
    if node.who == "one":  # the player puts it under one of them
        return f"one enemy of your choice at {r.loc(node.loc)} gains the status {node.status}"
    return f"every enemy at {r.loc(node.loc)} gains the status {node.status}"


def _render_clear_status(node: n.ClearStatus, r: Names) -> str:
    return f"remove the status {node.status} from every piece"


def _render_turn_victims(node: n.TurnVictims, r: Names) -> str:
    if node.minion in r.victims:
        name = r.victims[node.minion]
        return _amt(node.n, r, f"turn {{n}} victims of no kind, of your choice, at {r.loc(node.loc)} into {name} "
                               "victims",
                    f"turn 1 victim of no kind, of your choice, at {r.loc(node.loc)} into {_a(name)} victim")
    name = r.minion(node.minion)
    return _amt(node.n, r, f"turn {{n}} victims of your choice at {r.loc(node.loc)} into {name} minions (they do not "
                           "die)",
                f"turn 1 victim of your choice at {r.loc(node.loc)} into {_a(name)} minion (it does not die)")


def _render_turn_minions(node: n.TurnMinions, r: Names) -> str:
    if node.minion in r.victims:
        name = r.victims[node.minion]
        return _amt(node.n, r, f"turn {{n}} {name} victims of your choice at {r.loc(node.loc)} back into victims of "
                               "no kind",
                    f"turn 1 {name} victim of your choice at {r.loc(node.loc)} back into a victim of no kind")
    name = r.minion(node.minion)
    return _amt(node.n, r, f"turn {{n}} {name} minions at {r.loc(node.loc)} back into victims",
                f"turn 1 {name} minion at {r.loc(node.loc)} back into a victim")


# --- control lines ----------------------------------------------------------------------------
def _render_kill_minions(node: n.KillMinions, r: Names) -> str:
    where = r.loc(node.loc)
    if node.minion in r.victims:
        name = r.victims[node.minion]
        return _amt(node.n, r, f"kill {{n}} {name} victims at {where}", f"kill 1 {name} victim at {where}")
    name = r.minion(node.minion)
    return _amt(node.n, r, f"kill {{n}} {name} minions at {where}", f"kill 1 {name} minion at {where}")


def _render_form_killers(node: n.FormKillers, r: Names) -> str:
    return (f"every location with at least {node.n} {r.minion(node.minion)} minions turns them into a new "
            "killer, with health equal to their number and no last-breath token")


def _body(body: str, r: Names) -> str:
    if not body:
        return "the killer"
    return r.bodies.get(body) or f"the body {body}"


def _render_all_killers(node: n.AllKillers, r: Names) -> str:
    return f"for each killer on the board, top to bottom: {_block(node.body, r)}"


def _render_switch_active(node: n.SwitchActive, r: Names) -> str:
    return f"move the active-killer marker {node.way} (skipping the dead and any set aside, wrapping around)"


def _render_make_active(node: n.MakeActive, r: Names) -> str:
    return f"{_body(node.body, r)} becomes the active killer (unless dead or set aside: the marker stays)"


def _render_killer_vanishes(node: n.KillerVanishes, r: Names) -> str:
    return f"{_body(node.body, r)} vanishes from the board (in a Killer phase, the phase ends at once)"


def _render_killer_appears(node: n.KillerAppears, r: Names) -> str:
    return f"{_body(node.body, r)} appears at {r.loc(node.loc)}"


def _render_end_this_phase(node: n.EndThisPhase, r: Names) -> str:
    return "this phase ends at once"


def _render_set_mode_now(node: n.SetModeNow, r: Names) -> str:
    return f"the killer turns to {node.mode} mode at once"


def _render_set_killer_health(node: n.SetKillerHealth, r: Names) -> str:
    return _amt(node.n, r, f"{_body(node.body, r)} now has {{n}} health")


def _render_set_killer_max_health(node: n.SetKillerMaxHealth, r: Names) -> str:
    return _amt(node.n, r, f"{_body(node.body, r)} may now have up to {{n}} health")


def _render_defeat_killer(node: n.DefeatKiller, r: Names) -> str:
    return f"{_body(node.body, r)} is defeated outright"


def _render_end_game(node: n.EndGame, r: Names) -> str:
    return f"the game ends: you {'win' if node.side == 'win' else 'lose'} ({node.reason})"


def _render_for_each(node: n.ForEach, r: Names) -> str:
    sel = node.among
    text = _clause(sel.among, r)
    if sel.holding:
        text += " " + " and ".join(_clause(h, r) for h in sel.holding)
    if sel.where is not None:
        text += f" where {_clause(sel.where, r)}"
    skip = f" other than {r.loc(sel.skip)}" if sel.skip else ""
    if node.count:
        picked = ", then ".join(_clause(p, r) for p in sel.picks) or "first in board order"
        head = _amt(node.count, r, f"for each of {{n}} different places among {text}{skip}, each picked {picked}")
        return f"{head}: {_block(node.body, r)}"
    return f"for each {text}{skip}: {_block(node.body, r)}"


def _render_if(node: n.If, r: Names) -> str:
    text = f"if {_clause(node.cond, r)}: {_block(node.then, r)}"
    if node.otherwise:
        text += f"; otherwise {_block(node.otherwise, r)}"
    return text


def _render_mode_block(node: n.ModeBlock, r: Names) -> str:
    return f"in {node.mode} mode: {_block(node.body, r)}"


def _render_repeat(node: n.Repeat, r: Names) -> str:
    times = {1: "once", 2: "twice"}.get(node.n, f"{_num(node.n)} times") if isinstance(node.n, int) \
        else f"X times{_where(node.n, r)}"
    return f"do this {times}: {_block(node.body, r)}"


def _render_choose_option(node: n.ChooseOption, r: Names) -> str:
    return f'"{node.label}" ({_block(node.body, r)})'


def _or_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _render_choose(node: n.Choose, r: Names) -> str:
    return "choose one: " + _or_list([_clause(o, r) for o in node.options])


def _faces(faces: tuple[int, ...]) -> str:
    fs = sorted(faces)
    if len(fs) >= 3 and fs == list(range(fs[0], fs[-1] + 1)):
        return f"{fs[0]}–{fs[-1]}"
    return _or_list([str(f) for f in fs])


def _render_roll_row(node: n.RollRow, r: Names) -> str:
    return f"on {_faces(node.faces)}: {_block(node.body, r)}"


def _render_roll(node: n.Roll, r: Names) -> str:
    return "roll a die; " + "; ".join(_clause(row, r) for row in node.rows)


def _render_spend_tokens(node: n.SpendTokens, r: Names) -> str:
    many = str(node.low) if node.low == node.high else f"{node.low} to {node.high}"
    body = render_effects(node.body, r).removesuffix(".")  # the block reads as sentences of its own
    return (f"spend {many} of your collected {r.token(node.token)} tokens, of your choice, then resolve with them: "
            f"{body}")


def _render_each(node: n.Each, r: Names) -> str:
    return f"for each {node.kind} token spent: {_block(node.body, r)}"


# --- conditions -------------------------------------------------------------------------------
# A condition renders as a clause that reads after "if"/"while"; ``Not`` asks for the negated form.


def _bound(op: str, k: int, neg: bool) -> str:
    """A number compared with ``k``: "at least 2", "below 2", "at most 3", "above 3"; never "at most 0"."""
    if op == "at-least":
        return f"below {k}" if neg else f"at least {k}"
    if k == 0 and not neg:
        return "0 or less"
    return f"above {k}" if neg else f"at most {k}"


def _how_many(op: str, k: int, neg: bool) -> str:
    """How many things, as the head of a clause: "at least 2", "no" (for at most 0 or fewer than 1)."""
    if op == "at-least":
        if neg:
            return "no" if k <= 1 else f"fewer than {k}"
        return f"at least {k}"
    if neg:
        return "at least 1" if k == 0 else f"more than {k}"
    return "no" if k == 0 else f"at most {k}"


def _one(op: str, k: int, neg: bool) -> bool:
    """Whether ``_how_many`` reads as a single thing ("at most 1 victim is")."""
    return _how_many(op, k, neg) in ("at least 1", "at most 1")


_CMP_WORDS = {"at-least": ("is at least", "is below"), "at-most": ("is at most", "is above"),
              "is": ("is", "is not"), "more-than": ("is more than", "is at most"),
              "less-than": ("is less than", "is at least")}


def _count_words(c: n.Count, r: Names) -> tuple[str, str, str]:
    """(one, many, where) for a count compared with a number: "victim", "victims", "left on the board"."""
    if c.what == "minion":
        one, many, where = r.kind(c.kind), f"{r.kind(c.kind)}s", "on the board"
    elif c.what == "tokens":
        one, many, where = f"{r.token(c.kind)} token", f"{r.token(c.kind)} tokens", "on the board"
    elif c.what == "collected":
        one, many, where = f"{r.token(c.kind)} token", f"{r.token(c.kind)} tokens", "in your collection"
    elif c.what == "cards":
        one, many, where = "card", "cards", f"left in the {r.deck(c.kind)} deck"
    else:
        one, many, where = {"victims": ("victim", "victims", "left on the board"),
                            "dead": ("victim", "victims", "dead"), "rescued": ("victim", "victims", "rescued"),
                            "minions": ("minion", "minions", "on the board"),
                            "killers": ("killer", "killers", "on the board"),
                            "enemies": ("enemy (minion or killer)", "enemies (minions and killers)", "on the board"),
                            "exits": ("exit", "exits", "on the map"),
                            "items": ("item", "items", "in your hands or backpack"),
                            "spent": ("token", "tokens", "spent")}[c.what]
    if c.where and c.what not in ("dead", "rescued", "collected", "cards", "items", "spent"):
        where = "there" if c.where == "it" else f"at {r.loc(c.where)}"
    return one, many, where


def _render_compare(node: n.Compare, r: Names, neg: bool = False) -> str:
    left, right = node.left, node.right
    if isinstance(left, n.Count) and isinstance(right, int) and node.op in ("at-least", "at-most"):
        # "at least 2 victims are …", "no victims are …": a count reads as a number of things
        one, many, where = _count_words(left, r)
        single = _one(node.op, right, neg)
        return f"{_how_many(node.op, right, neg)} {one if single else many} {'is' if single else 'are'} {where}"
    if isinstance(right, int) and node.op in ("at-least", "at-most"):
        return f"{_value(left, r)} is {_bound(node.op, right, neg)}"
    verb = _CMP_WORDS[node.op][1 if neg else 0]
    return f"{_value(left, r)} {verb} {_value(right, r)}"


def _render_all_of(node: n.AllOf, r: Names, neg: bool = False) -> str:
    parts = [_cond(c, r) for c in node.conds]
    text = ", and ".join(parts) if len(parts) > 2 else " and ".join(parts)
    return f"not all of these hold: {'; '.join(parts)}" if neg else text


def _render_any_of(node: n.AnyOf, r: Names, neg: bool = False) -> str:
    parts = [_cond(c, r) for c in node.conds]
    if neg:
        return "none of these holds: " + "; ".join(parts)
    return ", or ".join(parts) if len(parts) > 2 else " or ".join(parts)


def _cond(c: Any, r: Names, neg: bool = False) -> str:
    fn = renderer_for(type(c))
    if fn is None:
        raise TypeError(f"no English renderer for {type(c).__name__}")
    return fn(c, r, neg)


def _render_fg_at(node: n.FgAt, r: Names, neg: bool = False) -> str:
    return f"you are {'not ' if neg else ''}at {r.loc(node.loc)}"


def _render_fg_at_tag(node: n.FgAtTag, r: Names, neg: bool = False) -> str:
    return f"you are {'not ' if neg else ''}at {_a(node.tag)} location"


def _render_victims_at(node: n.VictimsAt, r: Names, neg: bool = False) -> str:
    return f"there are {'no ' if neg else ''}victims at {r.loc(node.loc)}"


def _render_killer_at(node: n.KillerAt, r: Names, neg: bool = False) -> str:
    return f"{_body(node.body, r)} is {'not ' if neg else ''}at {r.loc(node.loc)}"


_KILLER_IS = {"on-board": "on the board", "off-board": "off the board", "active": "the active killer",
              "aside": "set aside"}


def _render_killer_is(node: n.KillerIs, r: Names, neg: bool = False) -> str:
    return f"{_body(node.body, r)} is {'not ' if neg else ''}{_KILLER_IS[node.what]}"


def _render_flag_set(node: n.FlagSet, r: Names, neg: bool = False) -> str:
    return f"the flag {node.flag} is {'not ' if neg else ''}set"


def _render_in_mode(node: n.InMode, r: Names, neg: bool = False) -> str:
    return f"the killer is {'not ' if neg else ''}in {node.mode} mode"


def _render_has_item(node: n.HasItem, r: Names, neg: bool = False) -> str:
    return f"you {'do not have' if neg else 'have'} the item {r.item(node.item)}"


def _render_token_at(node: n.TokenAt, r: Names, neg: bool = False) -> str:
    return f"there is {'no' if neg else 'a'} {_token_kind_face(node, r)} at {r.loc(node.loc)}"


def _token_kind_face(node: Any, r: Names) -> str:
    """'a TOKEN token', 'face-up KIND TOKEN token' (a kind is read face up only), 'face-down TOKEN token'."""
    if node.kind:
        return f"face-up {node.kind} {r.token(node.token)} token"
    return f"face-{node.face} {r.token(node.token)} token" if node.face else f"{r.token(node.token)} token"


def _kind_face_text(node: Any) -> str:
    return f" {node.kind}" if node.kind else f" face {node.face}" if node.face else ""


def _render_spent_covers(node: n.SpentCovers, r: Names, neg: bool = False) -> str:
    kinds = _or_list(list(node.kinds)).replace(" or ", " and ")
    verb = "do not include" if neg else "include"
    return f"the spent tokens {verb} one each of {kinds} (a wild token stands in for any)"


def _render_minions_at(node: n.MinionsAt, r: Names, neg: bool = False) -> str:
    return f"there are {'no ' if neg else ''}minions at {r.loc(node.loc)}"


def _render_place_is(node: n.PlaceIs, r: Names, neg: bool = False) -> str:
    what = "an exit" if node.kind == "exit" else "a search location"
    return f"{r.loc(node.place)} is {'not ' if neg else ''}{what}"


def _render_has_tag(node: n.HasTag, r: Names, neg: bool = False) -> str:
    return f"{r.loc(node.place)} {'is not' if neg else 'is'} a {node.tag} location"


def _render_board_has_tag(node: n.BoardHasTag, r: Names, neg: bool = False) -> str:
    return f"the board {'has no' if neg else 'has a'} {node.tag} location"


def _render_same_place(node: n.SamePlace, r: Names, neg: bool = False) -> str:
    return f"{r.loc(node.a)} is {'not ' if neg else ''}{r.loc(node.b)}"


def _render_within(node: n.Within, r: Names, neg: bool = False) -> str:
    who = "you are" if node.mover == "fg" else "a killer is"
    far = f"within {_value(node.n, r)} moves of {r.loc(node.place)}"
    return f"{who} {'not ' if neg else ''}{far}"


_CAUSES = {"kill": "a victim's death", "killer": "a victim killed by a killer", "minion": "a victim killed by a minion",
           "other": "something other than a victim's death"}


def _render_caused_by(node: n.CausedBy, r: Names, neg: bool = False) -> str:
    if node.what == "deck":
        return f"it was {'not ' if neg else ''}caused by a card of the {r.deck(node.id)} deck"
    what = r.item(node.id) if node.what == "item" else node.id
    return f"it was {'not ' if neg else ''}caused by the {node.what} {what}"


def _render_cause_is(node: n.CauseIs, r: Names, neg: bool = False) -> str:
    return f"it was {'not ' if neg else ''}caused by {_CAUSES[node.cause]}"


def _render_not(node: n.Not, r: Names, neg: bool = False) -> str:
    fn = renderer_for(type(node.cond))
    if fn is None:
        raise TypeError(f"no English renderer for {type(node.cond).__name__}")
    return fn(node.cond, r, not neg)


# --- statics ("rule …") -----------------------------------------------------------------------
def _render_dice_modifier(node: n.DiceModifier, r: Names) -> str:
    k = abs(node.n)
    more = "more" if node.n >= 0 else "fewer"
    return f"fear checks roll {k} {more} {'die' if k == 1 else 'dice'}"


def _render_all_modes(node: n.AllModes, r: Names) -> str:
    return "every mode block resolves, whatever the killer's mode"


def _render_follower_limit(node: n.FollowerLimit, r: Names) -> str:
    who = "no victim" if node.n == 0 else f"at most {_count(node.n, 'victim')}"
    return f"{who} may follow you along a {node.tag} path"


def _render_killers_absorb(node: n.KillersAbsorb, r: Names) -> str:
    return (f"whenever a killer shares a location with {r.minion(node.minion)} minions, they are removed and "
            "the killer gains 1 health for each")


def _render_kills_may_hit_killers(node: n.KillsMayHitKillers, r: Names) -> str:
    return f"an effect that kills {r.minion(node.minion)} minions may deal that much damage to a killer there instead"


def _render_enemies_cannot_cross(node: n.EnemiesCannotCross, r: Names) -> str:
    return f"enemies cannot move along {node.tag} paths"


def _render_damage_taken(node: n.DamageTaken, r: Names) -> str:
    how = "reduced" if node.n < 0 else "increased"
    return f"damage to the killer is {how} by {abs(node.n)}"


def _render_no_health_cap(node: n.NoHealthCap, r: Names) -> str:
    return "the killer's health has no maximum"


def _render_extra_moves(node: n.ExtraMoves, r: Names) -> str:
    who = {"killer": "the killer makes", "minions": "minions make", "enemies": "enemies make"}[node.who]
    when = "when it hunts" if node.who == "killer" else "when they hunt"
    return f"{when}, {who} {count_of(node.n, 'more move')}"


def _render_extra_attacks(node: n.ExtraAttacks, r: Names) -> str:
    who = {"killer": "the killer makes", "minions": "minions make", "enemies": "enemies make"}[node.who]
    when = "when it hunts" if node.who == "killer" else "when they hunt"
    return f"{when}, {who} {count_of(node.n, 'more attack')}"


def _render_only_active_acts(node: n.OnlyActiveActs, r: Names) -> str:
    return "only the active killer moves and attacks"


def _render_status_stops_moves(node: n.StatusStopsMoves, r: Names) -> str:
    return (f"in the Killer phase, enemies with the status {node.status} do not move, not even when a card would "
            "move them (they still attack)")


# --- triggers, replacements, end conditions -----------------------------------------------------
def _phase(p: str) -> str:
    return f"the {p.capitalize()} phase"


_PIECES = {"fg": "you", "killer": "a killer", "victim": "a victim", "minion": "a minion", "enemy": "an enemy"}


def _render_piece_ref(node: n.PieceRef, r: Names) -> str:
    if node.kind == "minion" and node.minion in r.conveyances:
        return f"the {r.conveyances[node.minion]}"
    if node.kind == "minion" and node.minion:
        return _a(f"{r.victims[node.minion]} victim") if node.minion in r.victims else f"a {r.minion(node.minion)}"
    if node.body:
        return f"the body {node.body}"
    return _PIECES[node.kind]


_PIECE_VERBS = {"takes-damage": ("take damage", "takes damage"), "loses-health": ("lose health", "loses health"),
                "would-be-defeated": ("would be defeated", "would be defeated"), "dies": ("die", "dies"),
                "kills": ("kill a victim", "kills a victim"), "forms": ("form", "forms"), "moves": ("move", "moves"),
                "gains-time": ("gain time", "gains time"), "loses-time": ("lose time", "loses time"),
                "enters": ("enter", "enters"), "leaves": ("leave", "leaves"), "crosses": ("cross", "crosses"),
                "appears": ("appear", "appears"), "vanishes": ("vanish", "vanishes")}


def _render_piece_event(node: n.PieceEvent, r: Names) -> str:
    who = _clause(node.piece, r)
    verb = _PIECE_VERBS[node.what][0 if who == "you" else 1]
    if node.what in ("enters", "leaves") and node.place:
        place = node.place
        if isinstance(place, n.Selector) and not place.picks:  # a selector in an event: any of its set
            return f"{who} {verb} any {_render_selector(place, r)[len('the first '):-len(' in map order')]}"
        return f"{who} {verb} {r.loc(place)}"
    if node.what == "leaves":
        return f"{who} {verb} a location"
    if node.what == "crosses":
        return f"{who} {verb} a {node.tag} path"
    if node.what == "forms" and node.piece.kind == "killer":
        return "a new killer forms"
    return f"{who} {verb}"


def _render_phase_event(node: n.PhaseEvent, r: Names) -> str:
    if node.edge == "whole":
        return _phase(node.phase)
    return f"the {node.edge} of {_phase(node.phase)}"


def _render_bloodlust_rises(node: n.BloodlustRises, r: Names) -> str:
    why = {"": "", "kill": " from a victim's death", "killer": " from a victim killed by a killer",
           "minion": " from a victim killed by a minion", "other": " from anything but a victim's death"}[node.cause]
    return f"bloodlust rises{why}"


def _render_fear_changes(node: n.FearChanges, r: Names) -> str:
    return f"your fear {node.how}"


def _render_token_event(node: n.TokenEvent, r: Names) -> str:
    if node.how == "revealed":
        return f"face-down {r.token(node.token)} tokens are turned face up"
    return f"a {r.token(node.token)} token is {node.how}"


def _render_item_event(node: n.ItemEvent, r: Names) -> str:
    what = f"the item {r.item(node.item)}" if node.item else "an item"
    return f"{what} is {node.how}"


def _render_card_event(node: n.CardEvent, r: Names) -> str:
    what = f"a card of the {r.deck(node.deck)} deck" if node.deck else "a card"
    return f"{what} is {node.how}"


def _render_own_event(node: n.OwnEvent, r: Names) -> str:
    return {"revealed": "this card is revealed", "drawn": "this card is drawn",
            "gained": "you gain this item"}[node.how]


def _render_game_starts(node: n.GameStarts, r: Names) -> str:
    return "the game starts"


def _event_head(event: Any, cond: Any, r: Names) -> str:
    if isinstance(event, n.PhaseEvent):
        head = f"At the {event.edge} of {_phase(event.phase)}"
    elif isinstance(event, n.OwnEvent):
        head = {"revealed": "When revealed", "drawn": "When drawn", "gained": "When gained"}[event.how]
    elif isinstance(event, n.GameStarts):
        head = "When the game starts"
    else:
        head = f"Whenever {_clause(event, r)}"
    return head + (f", if {_cond(cond, r)}" if cond is not None else "")


def _render_trigger(node: n.Trigger, r: Names) -> str:
    return f"{_event_head(node.event, node.cond, r)}: {render_effects(node.body, r)}"


def _render_replacement(node: n.Replacement, r: Names) -> str:
    head = _clause(node.event, r) + (f", if {_cond(node.cond, r)}" if node.cond is not None else "")
    return f"Instead of when {head}: {render_effects(node.body, r)}"


def _render_modification(node: n.Modification, r: Names) -> str:
    ev = _clause(node.event, r)
    if node.how == "prevent":
        text = f"Prevent it when {ev}"
    elif node.how in ("reduce", "increase"):
        text = f"When {ev}, its number is {'reduced' if node.how == 'reduce' else 'increased'} by {_value(node.n, r)}"
    else:
        text = f"When {ev}, its number is at {'most' if node.how == 'at-most' else 'least'} {_value(node.n, r)}"
    return text + (f" while {_cond(node.cond, r)}" if node.cond is not None else "") + "."


def _render_end_condition(node: n.EndCondition, r: Names) -> str:
    why = f" ({node.reason})" if node.reason else ""
    return f"You {node.side} when {_clause(node.cond, r)}{why}."


def _abilities(ab: n.Abilities, r: Names) -> list[str]:
    lines = [_clause(t, r) for t in ab.triggers]
    lines += [_clause(x, r) for x in ab.replacements]
    lines += [_clause(x, r) for x in ab.modifications]
    lines += [_sentence(_rule_clause(x, r)) for x in ab.rules]
    lines += [_clause(x, r) for x in ab.ends]
    return lines


def _rule_clause(rule: Any, r: Names) -> str:
    """A static rule's English, with its ``while`` condition."""
    text = _clause(rule, r)
    return text + (f" while {_cond(rule.cond, r)}" if getattr(rule, "cond", None) is not None else "")


def _render_abilities(node: n.Abilities, r: Names) -> str:
    return "\n".join(_abilities(node, r)) or "No abilities."


# --- declarations -----------------------------------------------------------------------------
TIER_NAMES = {0: "Failure", 1: "Success", 2: "Great success", 3: "Best success"}


def _indent(lines: Iterable[str], by: str = "  ") -> list[str]:
    return [by + line if line else line for line in lines]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    out = []
    for row in [header, *rows]:
        cells = [str(c).ljust(w) for c, w in zip(row, widths)]
        out.append("  ".join(cells).rstrip())
    return out


def _render_outcome(node: n.Outcome, r: Names, top: int = 2) -> str:
    k = node.min_successes
    count = f"{k}+" if k >= top else str(k)
    return f"{TIER_NAMES.get(k, f'{k} successes')} ({count}): {render_effects(node.effects, r)}"


def _render_card(node: n.Card, r: Names) -> str:
    facts = [{"action": "Action card", "reaction": "Reaction card (play it when you are attacked)",
              "reroll": "Reroll card"}.get(node.kind, f"{node.kind} card"), f"cost {node.cost}",
             _count(node.copies, "copy", "copies")]
    if node.start_in_hand:
        facts.append("starts in your hand")
    if node.start_aside:
        facts.append("set aside until an effect gives it to you")
    lines = [node.name, " · ".join(facts)]
    if node.usable is not None:
        lines.append(f"Play it only while {_clause(node.usable, r)}.")
    if node.dice:
        k = abs(node.dice)
        lines.append(f"Roll {k} {'more' if node.dice > 0 else 'fewer'} {'die' if k == 1 else 'dice'} "
                     f"for this card's fear check.")
    if node.kind == "reroll":
        if node.reroll == "fails":
            lines.append("Reroll every die of a fear check showing 1 or 2.")
        elif node.reroll:
            k = int(node.reroll)
            lines.append(f"Reroll up to {_count(k, 'die', 'dice')} of a fear check that "
                         f"{'is' if k == 1 else 'are'} not a success, lowest first.")
    top = max((o.min_successes for o in node.outcomes), default=2)
    lines += [_render_outcome(o, r, top) for o in node.outcomes]
    return "\n".join(lines)


def _render_weapon(node: n.Weapon, r: Names) -> str:
    hands = "one-handed" if node.hands == 1 else "two-handed"
    reach = "same location" if node.range == 0 else \
        f"exactly {_count(node.range, 'location')} away, no nearer and no farther"  # C3.8
    return f"{hands} weapon, range {node.range} ({reach}), +{node.bonus} damage"


def _render_item_use(node: n.ItemUse, r: Names) -> str:
    return f"Use (Action phase, spend {node.time} time): {render_effects(node.effects, r)}"


def _render_item(node: n.Item, r: Names) -> str:
    facts = [_clause(node.weapon, r) if node.weapon else "held in one hand" if node.hand_only
             else "goes in the backpack"]
    if node.hand_only:
        facts.append("only ever held in hand, never in the backpack")
    if node.uses:
        facts.append(_count(node.uses, "use") + (", then kept used up (no use left) until discarded, as a recipe "
                                                  "needs it" if node.id in r.ingredients else ", then discarded"))
    if node.keep:
        facts.append("cannot be discarded" + (f" while {_clause(node.keep_cond, r)}" if node.keep_cond else ""))
    facts += _item_zone_facts(node, r)
    lines = [f"{node.name} (item): " + " · ".join(facts)]
    if node.use is not None:
        lines.append("  " + _clause(node.use, r))
        if node.usable is not None:
            lines.append(f"  Use it only while {_clause(node.usable, r)}.")
    lines += _indent(_abilities(node.abilities, r))
    return "\n".join(lines)


def _render_final_girl(node: n.FinalGirl, r: Names) -> str:
    lines = [node.name,
             f"Final Girl · health {node.health} · flips after {node.rescues} rescues · signature item: "
             f"{r.item(node.signature)}",
             "Rescue rewards:"]
    lines += [f"  {i}. {render_effects(slot, r)}" for i, slot in enumerate(node.slots, 1)]
    lines.append("Flipped:")
    flipped = [f"Each further rescue: {render_effects(node.flipped_reward, r)}"] if node.flipped_reward else []
    flipped += _abilities(node.flipped, r)
    lines += _indent(flipped or ["No ability."])
    return "\n".join(lines)


def _render_bloodlust_level(node: n.BloodlustLevel, r: Names) -> str:
    return render_effects(node.effects, r) if node.effects else "-"


def _bloodlust_table(node: n.Killer, r: Names) -> list[str]:
    stats = list(dict.fromkeys(k for lv in node.bloodlust for k, _v in lv.stats))  # e.g. spawn (K6.3)
    rows = [[str(i), str(lv.move), str(lv.damage), *(str(dict(lv.stats).get(k, "-")) for k in stats), _clause(lv, r)]
            for i, lv in enumerate(node.bloodlust, 1)]
    lines = ["Bloodlust track (the marker starts on level 1):"]
    lines += _indent(_table(["Level", "Move", "Damage", *(k.capitalize() for k in stats), "On reaching it"], rows))
    if node.at_max:
        lines.append(f"  At level {len(node.bloodlust)}, raising bloodlust does this instead: "
                     f"{render_effects(node.at_max, r)}")
    return lines


def _render_finale(node: n.Finale, r: Names) -> str:
    lines = [f"{node.name} ({'legendary ' if node.legendary else ''}finale)",
             f"  Before it is revealed (back): {render_effects(node.back, r)}"]
    if node.on_reveal:
        lines.append(f"  When revealed: {render_effects(node.on_reveal, r)}")
    lines.append(f"  Once revealed (face): {render_effects(node.face, r)}")
    lines += _indent(_abilities(node.abilities, r))
    return "\n".join(lines)


def _render_dark_power(node: n.DarkPower, r: Names) -> str:
    lines = [f"{node.name} ({'legendary ' if node.legendary else ''}dark power)"]
    if node.on_reveal:
        lines.append(f"  When revealed: {render_effects(node.on_reveal, r)}")
    lines += _indent(_abilities(node.abilities, r))
    return "\n".join(lines)


def _render_terror(node: n.Terror, r: Names) -> str:
    kind = f"secondary dark power, health {node.secondary_health}" if node.secondary_health else "terror"
    lines = [f"{node.name} ({kind})"]
    if node.effects or not node.secondary_health:
        lines.append("  " + render_effects(node.effects, r))
    lines += _indent(_abilities(node.abilities, r))
    return "\n".join(lines)


def _render_minion(node: n.Minion, r: Names) -> str:
    extra = (["those in one location attack together (damage × their number)"] if node.together else []) + \
            (["attacks victims before the Final Girl"] if node.victims_first else []) + \
            (["wanders when no target is in reach"] if node.wanders else [])
    return (f"{node.name} (minion): health {node.health} · move {node.move} · damage {node.damage} · "
            f"at most {node.limit} in play" + "".join(f" · {x}" for x in extra))


def _render_body(node: n.Body, r: Names) -> str:
    if node.formed:
        return f"{node.name} (killer body formed in play): named {node.name} 1, {node.name} 2, …; no last-breath token"
    where = " · starts off the board" if node.off_board else ""
    return f"{node.name} (killer body): health {node.health} · its own last-breath token{where}"


def _render_token(node: n.Token, r: Names) -> str:
    supply = ", ".join(f"{k} {kind}" for kind, k in node.supply) or "none"
    wild = f" ({node.wild} stands in for any kind)" if node.wild else ""
    return f"{node.name} [{node.id}] (tokens): kinds {', '.join(node.kinds)}{wild}; supply: {supply}"


def _render_action(node: n.Action, r: Names) -> str:
    cost = "free" if node.free else f"spend {node.time} time"
    where = f", while {_clause(node.cond, r)}" if node.cond is not None else ""
    if node.usable is not None:
        where += f", while {_clause(node.usable, r)}"
    return f"{node.name} (Action phase action: {cost}{where}): {render_effects(node.effects, r)}"


def _render_deck_card(node: n.DeckCard, r: Names) -> str:
    head = f"{node.name}{' (stays in play)' if node.keep else ''}" + _deck_card_facts(node)
    if node.body or node.minion:  # a deck of bodies or of minion kinds (issue #33 item 8)
        head += f" — it names {_body(node.body, r) if node.body else 'the ' + r.minion(node.minion) + ' minions'}"
    quiet = node.keep or node.halves or node.start == "table" or node.body or node.minion  # (a card with other parts:
    # no "nothing happens")
    lines = [f"{head}: {render_effects(node.effects, r)}" if node.effects or not quiet else head]
    lines += _indent([_clause(h, r) for h in node.halves])
    lines += _indent(_abilities(node.abilities, r))
    return "\n".join(lines)


def _render_deck(node: n.Deck, r: Names) -> str:
    lines = [f"{node.name} [{node.id}] (deck of {_count(sum(c.copies for c in node.cards), 'card')})"]
    lines += _indent(_deck_rules(node, r))
    for c in node.cards:
        lines += _indent(_clause(c, r).split("\n"))
    return "\n".join(lines)


def _shared_parts(node: Any, r: Names) -> list[str]:
    """The parts killers and scenarios share: start-of-game effects, tokens, actions, decks, own cards."""
    lines: list[str] = []
    if getattr(node, "on_start", ()):
        lines += ["", f"When the game starts: {render_effects(node.on_start, r)}"]
    lines += _section("Tokens", [_clause(t, r) for t in getattr(node, "tokens", ())])
    lines += _section("Actions", [_clause(a, r) for a in getattr(node, "actions", ())])
    placed = {x.deck for x in n.walk(node) if type(x) in _DRAWN_AT_A_PLACE and (x.loc if type(x) is n.DrawCard
                                                                                  else x.deck)}
    lines += _section("Decks", [_clause(d, attrs.evolve(r, here=_CARD_PLACE) if d.id in placed else r)
                                for d in getattr(node, "decks", ())])
    lines += _section("Cards", [_clause(c, r) for c in getattr(node, "cards", ())])
    lines += _section("Item piles", [_clause(p, r) for p in getattr(node, "piles", ())])
    lines += _section("Recipes", [_clause(x, r) for x in getattr(node, "recipes", ())])
    lines += _section("Tracks", [_clause(t, r) for t in getattr(node, "tracks", ())])
    lines += _section("Holding areas", [_clause(h, r) for h in getattr(node, "holdings", ())])
    lines += _section("Victim kinds", [_clause(v, r) for v in getattr(node, "victim_kinds", ())])
    lines += _section("Pieces that travel with you", [_clause(c, r) for c in getattr(node, "conveyances", ())])
    return lines


_DRAWN_AT_A_PLACE = (n.DrawCard, n.DrawnKillerAppears, n.ReplaceVictimDrawn, n.SpawnDrawn)
_CARD_PLACE = "the card's place (where it is drawn; yours if at none)"


def _section(title: str, parts: list[str]) -> list[str]:
    if not parts:
        return []
    lines = ["", f"{title}:"]
    for p in parts:
        lines += _indent(p.split("\n"))
    return lines


def _render_killer(node: n.Killer, r: Names) -> str:
    r = r.within(node)
    if node.bodies and not all(b.formed for b in node.bodies):
        body = f"{len(node.bodies)} bodies, each with its own health"
    else:
        body = f"health {node.health}" if node.board else "no killer board (its bodies form during the game)"
    lines = [node.name, f"Killer · {body} · the Final Girl starts at fear {node.fear}"]
    lines += [_render_body(b, r) for b in node.bodies]
    if node.modes:
        lines.append("Modes: " + ", ".join(f"{m} (starting)" if i == 0 else m for i, m in enumerate(node.modes)))
    lines += _abilities(node.abilities, r)
    lines.append("")
    lines += _bloodlust_table(node, r)
    lines += _section("Finales", [_clause(f, r) for f in node.finales])
    lines += (_section("Dark powers", [_clause(d, r) for d in node.dark_powers]) if node.dark else
              ["No dark power: none is drawn at setup, and none is ever revealed."])
    lines += _section("Terror cards", [_clause(t, r) for t in node.terror])
    lines += _section("Minions", [_clause(m, r) for m in node.minions])
    lines += _section("Items", [_clause(i, r) for i in node.items])
    lines += _shared_parts(node, r)
    return "\n".join(lines)


def _render_location(node: n.Location, r: Names) -> str:
    facts = (["search location (it has an item pile)"] if node.search else []) + (["exit"] if node.exit else [])
    if node.exit and node.exit_when is not None:
        facts[-1] = f"an exit while {_cond(node.exit_when, r)}"
    facts += [f"{name} {v}" for name, v in node.numbers]
    if node.tags:
        facts.append("tagged " + ", ".join(node.tags))
    return f"{node.name} [{node.id}]" + (": " + "; ".join(facts) if facts else "")


def _panic(nums: tuple[int, ...]) -> str:
    return f"(panic {', '.join(map(str, nums))})" if nums else "(no panic number)"


def _render_path(node: n.Path, r: Names) -> str:
    text = f"{r.loc(node.a)} {_panic(node.a_panic)} -- {_panic(node.b_panic)} {r.loc(node.b)}"
    facts = []
    if node.tags:
        facts.append(", ".join(node.tags) + " path")
    if node.closed:
        facts.append("closed until opened")
    return text + (f" [{'; '.join(facts)}]" if facts else "")


def _render_link(node: n.Link, r: Names) -> str:
    when = f"While {_clause(node.cond, r)}, you" if node.cond is not None else "You"
    follow = {-1: "victims follow as usual", 0: "no victim may follow"}.get(
        node.followers, f"at most {_count(node.followers, 'victim')} may follow")
    return f"{when} may move directly between any two {node.tag} locations; {follow}."


def _render_setup_card(node: n.SetupCard, r: Names) -> str:
    victims = ", ".join(f"{k} at {r.loc(loc)}" for loc, k in node.victims) or "none"
    text = (f"{node.id}: the killer starts at {r.loc(node.killer_at)}; you start at {r.loc(node.fg_at)}; "
            f"victims: {victims}")
    tokens = getattr(node, "tokens", ())
    if tokens:
        text += "; a random token at each of: " + ", ".join(f"{r.loc(loc)} ({r.token(t)})" for t, loc in tokens)
    down = getattr(node, "tokens_down", ())
    if down:
        text += "; a random token face down at each of: " + ", ".join(f"{r.loc(loc)} ({r.token(t)})"
                                                                      for t, loc in down)
    return text


def _render_event_card(node: n.EventCard, r: Names) -> str:
    lines = [f"{node.name} ({'lasting ' if node.lasting else ''}event)",
             f"  When drawn: {render_effects(node.effects, r)}"]
    if node.lasting:
        lines += _indent(["While in play:", *_indent(_abilities(node.abilities, r))] if node.abilities else [])
    else:
        lines += _indent(_abilities(node.abilities, r))
    return "\n".join(lines)


def _render_scenario(node: n.Scenario, r: Names) -> str:
    r = r.within(node)
    lines = [node.name, "Scenario" + (" · location tags: " + ", ".join(node.tags) if node.tags else "")]
    lines += _abilities(node.abilities, r)
    lines += _section("Locations", [_clause(loc, r) for loc in node.locations])
    lines += _section("Paths (panic numbers at each end)", [_clause(p, r) for p in node.paths])
    lines += _section("Links", [_clause(x, r) for x in node.links])
    lines += _section("Setup cards", [_clause(s, r) for s in node.setups])
    lines += _section("Items", [_clause(i, r) for i in node.items])
    lines += _section("Events", [_clause(e, r) for e in node.events])
    lines += _section("Terror cards", [_clause(t, r) for t in node.terror])
    lines += _shared_parts(node, r)
    return "\n".join(lines)


def _render_zone(node: n.Zone, r: Names) -> str:
    return f"{node.low}–{node.high}" if node.low != node.high else str(node.low)


def _render_side(node: n.Side, r: Names) -> str:
    lines = [f"Side {node.id}: time resets to {node.time_reset} (track {node.time_min} to {node.time_max}); "
             f"fear track {node.fear_min} to {node.fear_max}"]
    lines += _indent(_table(["Fear", "Dice"], [[_clause(z, r), str(z.dice)] for z in node.zones]))
    return "\n".join(lines)


def _render_pack(node: n.Pack, r: Names) -> str:
    head = f"{node.name} (pack {node.id}" + (f", version {node.version}" if node.version else "") + ")"
    lines = [head]
    if node.credit:
        lines.append(f"By {node.credit}.")
    if node.depends:
        lines.append("Builds on: " + ", ".join(node.depends) + ".")
    return "\n".join(lines)


def _render_player_board(node: n.PlayerBoard, r: Names) -> str:
    lines = [f"Player board {node.id}"]
    for side in node.sides:
        lines += _clause(side, r).split("\n")
    blank = sum(1 for b in node.last_breath if b == 0)
    restore = sorted(b for b in node.last_breath if b)
    text = f"Last-breath tokens: {len(node.last_breath)} ({blank} blank"
    if restore:
        text += "; the others restore " + _or_list([str(b) for b in restore]).replace(" or ", " and ") + " health"
    lines.append(text + ")")
    lines.append(f"Hand limit: {node.hand_limit}")
    lines.append(f"Victim supply: {node.victim_supply} (once they are all placed, no more victims appear)")
    then = ("an action aimed at victims, none of them in reach, aims at the Final Girl" if node.out_of_reach == "fg"
            else "the enemy stays where it is")
    lines.append(f"Targets out of reach (C9.8): {then}")
    return "\n".join(lines)


# --- modules (LANGUAGE.md section 10) ------------------------------------------------------------
def _render_rule_group(node: n.RuleGroup, r: Names) -> str:
    lines = [f"Rules [{node.id}]:"]
    lines += _indent([*_abilities(node.abilities, r), *(_clause(x, r) for x in node.links)] or ["(none)"])
    return "\n".join(lines)


def _render_module_change(node: n.ModuleChange, r: Names) -> str:
    what = "rules group" if node.kind == "rules" else node.kind.replace("_", " ")
    if node.how == "remove":
        where = f" from the deck {r.deck(node.deck)}" if node.deck else ""
        return f"Remove the {what} [{node.id}]{where} at setup."
    new = _clause(node.new, r) if node.new is not None else ""
    return f"Replace the {what} [{node.id}] with:\n" + "\n".join(_indent(new.split("\n")))


_ADDED = (("locations", "Locations"), ("paths", "Paths"), ("links", "Links"), ("setups", "Setup cards"),
          ("items", "Items"), ("events", "Events"), ("finales", "Finales"), ("dark_powers", "Dark powers"),
          ("terror", "Terror cards"), ("minions", "Minions"))


def _render_module_section(node: n.ModuleSection, r: Names) -> str:
    where = f"every {node.host}" if not node.targets else f"{node.host} " + ", ".join(node.targets)
    adds = node.adds
    grouped = {id(x) for g in adds.groups for _name, v in n.fields(g.abilities) for x in v}
    own = n.Abilities(**{name: tuple(x for x in v if id(x) not in grouped) for name, v in n.fields(adds.abilities)})
    lines = [f"For {where}:"]
    body = [_clause(c, r) for c in node.changes]
    body += _abilities(own, r)
    body += [_clause(g, r) for g in adds.groups]
    for key, title in _ADDED:
        body += _section(f"Add {title.lower()}", [_clause(x, r) for x in getattr(adds, key, ())])
    body += _shared_parts(adds, r)
    return "\n".join(lines + _indent("\n".join(body).split("\n")))


def _render_module(node: n.Module, r: Names) -> str:
    lines = [f"{node.name} (module {node.id}; off unless switched on: --module {node.id})"]
    if node.about:
        lines.append(node.about)
    lines += [_clause(c, r) for c in node.changes]
    lines += _section("Cards added to the market", [_clause(c, r) for c in node.cards])
    lines += _section("Items added to the game", [_clause(i, r) for i in node.items])
    for sec in node.sections:
        lines += ["", *_clause(sec, r).split("\n")]
    return "\n".join(lines)


KIND_NAMES: dict[type, str] = {
    n.Card: "card", n.Item: "item", n.FinalGirl: "final_girl", n.Killer: "killer", n.Scenario: "scenario",
    n.PlayerBoard: "player_board", n.Minion: "minion", n.Finale: "finale", n.DarkPower: "dark_power",
    n.Terror: "terror", n.EventCard: "event", n.SetupCard: "setup", n.Deck: "deck", n.DeckCard: "deck_card",
    n.Token: "token", n.Action: "action", n.Recipe: "recipe", n.ItemPile: "pile", n.Module: "module",
}


def render(decl: Any, names: Optional[Names] = None) -> str:
    """The English text of a declaration (top-level or nested), or of any single node."""
    return _clause(decl, names or NO_NAMES)


# --- back to the DSL --------------------------------------------------------------------------
_SLOT = re.compile(r"\{(\w+):(\w+)\}")
_SIGNED = {(n.DiceModifier, "n"), (n.DamageTaken, "n")}  # written "+1" / "-1"


def _fields(node: Any) -> dict[str, Any]:
    return dict(n.fields(node))


def _defaults(cls: type) -> dict[str, Any]:
    return n.defaults(cls)


def _pattern_for(node: Any) -> str:
    cls = type(node)
    values = _fields(node)
    defaults = _defaults(cls)
    for pattern in cls.PHRASES:
        words = pattern.split()
        slots = {m.group(1): m.group(2) for m in map(_SLOT.fullmatch, words) if m}
        literal = [w for w in words if not _SLOT.fullmatch(w)]
        ok = True
        for field, value in values.items():
            if field == "cond" and isinstance(node, n.Rule):  # 'while …' is written after the phrase
                continue
            if field in slots:
                kind = slots[field]
                if kind in n.LITERAL_SLOTS and value != kind:
                    ok = False
            elif field == "op":  # the one field spelled by literal words ("at least" / "at most")
                ok = ok and value == "at-" + literal[-1]
            elif field in {f for f, _v in getattr(cls, "WORDS", {}).values()}:  # set by a literal word
                ok = ok and ((field, value) in [cls.WORDS[w] for w in literal if w in cls.WORDS]
                             or (value == defaults.get(field, None)
                                 and not any(cls.WORDS[w][0] == field for w in literal if w in cls.WORDS)))
            elif field in defaults:
                ok = ok and defaults[field] == value
            else:  # a field this phrase leaves out is empty (``loc`` of ``add status … to killer``)
                ok = ok and value in ("", (), None)
        if ok:
            return pattern
    raise ValueError(f"no phrase of {cls.__name__} fits {values}")


def _quote(label: str) -> str:
    return '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _slot_text(cls: type, field: str, kind: str, value: Any) -> str:
    if kind == "amount":
        if isinstance(value, int):
            return str(value)
        if isinstance(value, n.That):
            return "that"
        return f"({to_dsl(value)})"
    if kind == "cond":
        return to_dsl(value)
    if kind == "loc":
        return _place_text(value)
    if kind == "names":
        return " ".join(value)
    if kind == "pieces":
        text = to_dsl(value)
        return text if text in ("it", "fg") else f"({text})"
    if kind == "int" and (cls, field) in _SIGNED and value > 0:
        return f"+{value}"
    if kind == "string":
        return _quote(value)
    return str(value)


def _phrase(node: Any) -> str:
    cls = type(node)
    out = []
    for word in _pattern_for(node).split():
        m = _SLOT.fullmatch(word)
        out.append(_slot_text(cls, m.group(1), m.group(2), getattr(node, m.group(1))) if m else word)
    return " ".join(out)


def _amount_text(a: Any) -> str:
    return _slot_text(object, "n", "amount", a)


def _dsl_block(effects: tuple, indent: str) -> str:
    """``{ a; b }`` on one line when every line is a plain phrase; else one line per effect."""
    if not effects:
        return "{ }"
    if not any(isinstance(e, n.Control) for e in effects):
        return "{ " + "; ".join(to_dsl(e) for e in effects) + " }"
    inner = indent + "  "
    body = "\n".join(inner + to_dsl(e, inner) for e in effects)
    return "{\n" + body + "\n" + indent + "}"


def _lines(head: str, parts: tuple, indent: str) -> str:
    inner = indent + "  "
    return head + " {\n" + "\n".join(inner + to_dsl(p, inner) for p in parts) + "\n" + indent + "}"


def _dsl_if(node: n.If, indent: str) -> str:
    text = f"if {to_dsl(node.cond)} {_dsl_block(node.then, indent)}"
    if node.otherwise:
        text += f" else {_dsl_block(node.otherwise, indent)}"  # "} else {" stays on one line
    return text


# How each control node (and the parts of one) is written back, with its blocks: ``_dsl_<snake>``.
def _dsl_mode_block(node: n.ModeBlock, indent: str) -> str:
    return f"mode {node.mode} {_dsl_block(node.body, indent)}"


def _dsl_repeat(node: n.Repeat, indent: str) -> str:
    return f"repeat {_amount_text(node.n)} {_dsl_block(node.body, indent)}"


def _dsl_choose_option(node: n.ChooseOption, indent: str) -> str:
    return f"{_quote(node.label)} {_dsl_block(node.body, indent)}"


def _dsl_choose(node: n.Choose, indent: str) -> str:
    return _lines("choose", node.options, indent)


def _dsl_roll_row(node: n.RollRow, indent: str) -> str:
    return f"on {' '.join(map(str, node.faces))} {_dsl_block(node.body, indent)}"


def _dsl_roll(node: n.Roll, indent: str) -> str:
    return _lines("roll", node.rows, indent)


def _dsl_all_killers(node: n.AllKillers, indent: str) -> str:
    return f"all killers {_dsl_block(node.body, indent)}"


def _dsl_for_each(node: n.ForEach, indent: str) -> str:
    count = f"{_amount_text(node.count)} of " if node.count else ""
    return f"for each {count}{to_dsl(node.among)} {_dsl_block(node.body, indent)}"


def _dsl_spend_tokens(node: n.SpendTokens, indent: str) -> str:
    return f"spend collected {node.token} {node.low} to {node.high} {_dsl_block(node.body, indent)}"


def _dsl_each(node: n.Each, indent: str) -> str:
    return f"each {node.kind} {_dsl_block(node.body, indent)}"


def _phrase_writer(node: Any, indent: str) -> str:
    text = _phrase(node)
    cond = getattr(node, "cond", None) if isinstance(node, n.Rule) else None
    return text + (f" while {to_dsl(cond)}" if cond is not None else "")


# --- expressions back to the DSL (their grammar: dsl/grammar.lark) ----------------------------
def _place_text(p: Any) -> str:
    """A place where a location goes: a name as it is, a selector in parentheses."""
    return p if isinstance(p, str) else f"({to_dsl(p)})"


def _amount_in(a: Any) -> str:
    """An amount inside an expression: compound ones in parentheses, so that they read back the same."""
    if isinstance(a, int):
        return str(a)
    text = to_dsl(a)
    return f"({text})" if isinstance(a, (n.Arith, n.MinMax)) else text


def _countable_text(c: n.Count) -> str:
    return {"minion": c.kind, "tokens": f"tokens {c.kind}", "collected": f"collected {c.kind}",
            "cards": f"cards in {c.kind}"}.get(c.what, c.what)


def _dsl_count(node: n.Count, indent: str) -> str:
    where = f" at {_place_text(node.where)}" if node.where else ""
    return f"count {_countable_text(node)}{where}"


def _dsl_quantity(node: n.Quantity, indent: str) -> str:
    return "killer health" if node.what == "killer-health" else node.what


def _dsl_that(node: n.That, indent: str) -> str:
    return "that"


def _dsl_level_stat(node: n.LevelStat, indent: str) -> str:
    return f"bloodlust {node.stat}"


def _dsl_distance(node: n.Distance, indent: str) -> str:
    return f"distance from {_place_text(node.a)} to {_place_text(node.b)}"


def _dsl_arith(node: n.Arith, indent: str) -> str:
    right = _amount_in(node.b)
    if isinstance(node.b, n.Arith):  # the grammar reads A minus B plus C as (A minus B) plus C
        right = f"({to_dsl(node.b)})"
    return f"{_amount_in(node.a) if not isinstance(node.a, n.Arith) else to_dsl(node.a)} {node.op} {right}"


def _dsl_min_max(node: n.MinMax, indent: str) -> str:
    return f"{node.fn} of {_amount_in(node.a)} and {_amount_in(node.b)}"


def _dsl_locations(node: n.Locations, indent: str) -> str:
    if node.kind == "tag":
        return node.tag
    if node.kind == "adjacent":
        return f"adjacent to {_place_text(node.near)}"
    if node.kind == "within":
        return f"within {_amount_in(node.n)} of {_place_text(node.near)}"
    return node.kind


def _dsl_holding(node: n.Holding, indent: str) -> str:
    return f"with token {node.token}" if node.what == "token" else f"with {node.what}"


def _dsl_pick(node: n.Pick, indent: str) -> str:
    if node.how == "nearest":
        return f"nearest to {_place_text(node.place)}"
    if node.how == "farthest":
        return f"farthest from {_place_text(node.place)}"
    if node.how in ("most", "fewest"):
        if isinstance(node.n, n.Count) and node.n.where == "it":
            return f"with {node.how} {_countable_text(node.n)}"
        return f"with {node.how} ({to_dsl(node.n) if not isinstance(node.n, int) else node.n})"
    return node.how


def _dsl_selector(node: n.Selector, indent: str) -> str:
    parts = [to_dsl(node.among)]
    parts += [to_dsl(h) for h in node.holding]
    if node.where is not None:
        parts.append(f"where {to_dsl(node.where)}")
    parts.append(" then ".join(to_dsl(p) for p in node.picks))
    if node.skip:
        parts.append(f"except {_place_text(node.skip)}")
    return " ".join(p for p in parts if p)


_CMP_DSL = {"at-least": "at least", "at-most": "at most", "is": "is", "more-than": "more than",
            "less-than": "less than"}


def _dsl_compare(node: n.Compare, indent: str) -> str:
    return f"{_amount_in(node.left)} {_CMP_DSL[node.op]} {_amount_in(node.right)}"


def _dsl_all_of(node: n.AllOf, indent: str) -> str:
    return "all { " + "; ".join(to_dsl(c) for c in node.conds) + " }"


def _dsl_any_of(node: n.AnyOf, indent: str) -> str:
    return "any { " + "; ".join(to_dsl(c) for c in node.conds) + " }"


def _dsl_not(node: n.Not, indent: str) -> str:
    c = node.cond
    if isinstance(c, n.SamePlace):
        return f"{_place_text(c.a)} is not {_place_text(c.b)}"
    if isinstance(c, n.PlaceIs):
        return f"{_place_text(c.place)} is not {c.kind}"
    if isinstance(c, n.Compare) and c.op == "is":
        return f"{_amount_in(c.left)} is not {_amount_in(c.right)}"
    return f"not {to_dsl(c)}"


def _dsl_fg_at(node: n.FgAt, indent: str) -> str:
    return f"fg at {_place_text(node.loc)}"


def _dsl_fg_at_tag(node: n.FgAtTag, indent: str) -> str:
    return f"fg at tag {node.tag}"


def _dsl_victims_at(node: n.VictimsAt, indent: str) -> str:
    return f"victims at {_place_text(node.loc)}"


def _dsl_killer_at(node: n.KillerAt, indent: str) -> str:
    return f"killer {node.body + ' ' if node.body else ''}at {_place_text(node.loc)}"


_KILLER_IS_DSL = {"on-board": "on the board", "off-board": "off the board", "active": "active", "aside": "set aside"}


def _dsl_killer_is(node: n.KillerIs, indent: str) -> str:
    return f"killer {node.body + ' ' if node.body else ''}is {_KILLER_IS_DSL[node.what]}"


def _dsl_minions_at(node: n.MinionsAt, indent: str) -> str:
    return f"minions at {_place_text(node.loc)}"


def _dsl_token_at(node: n.TokenAt, indent: str) -> str:
    return f"token {node.token}{_kind_face_text(node)} at {_place_text(node.loc)}"


def _dsl_flag_set(node: n.FlagSet, indent: str) -> str:
    return f"flag {node.flag}"


def _dsl_in_mode(node: n.InMode, indent: str) -> str:
    return f"mode {node.mode}"


def _dsl_has_item(node: n.HasItem, indent: str) -> str:
    return f"has item {node.item}"


def _dsl_spent_covers(node: n.SpentCovers, indent: str) -> str:
    return "spent covers " + " ".join(node.kinds)


def _dsl_place_is(node: n.PlaceIs, indent: str) -> str:
    return f"{_place_text(node.place)} is {node.kind}"


def _dsl_has_tag(node: n.HasTag, indent: str) -> str:
    return f"{_place_text(node.place)} has tag {node.tag}"


def _dsl_board_has_tag(node: n.BoardHasTag, indent: str) -> str:
    return f"board has tag {node.tag}"


def _dsl_same_place(node: n.SamePlace, indent: str) -> str:
    return f"{_place_text(node.a)} is {_place_text(node.b)}"


def _dsl_within(node: n.Within, indent: str) -> str:
    return f"{node.mover} within {_amount_in(node.n)} of {_place_text(node.place)}"


_CAUSE_DSL = {"kill": "a kill", "killer": "the killer", "minion": "a minion", "other": "another cause"}


def _dsl_caused_by(node: n.CausedBy, indent: str) -> str:
    return f"the cause is {node.what} {node.id}"


def _dsl_cause_is(node: n.CauseIs, indent: str) -> str:
    return f"the cause is {_CAUSE_DSL[node.cause]}"


def _dsl_piece_ref(node: n.PieceRef, indent: str) -> str:
    if node.body:
        return f"killer {node.body}"
    return node.minion if node.kind == "minion" and node.minion else node.kind


_PIECE_DSL = {"takes-damage": "takes damage", "loses-health": "loses health", "would-be-defeated": "would be defeated",
              "gains-time": "gains time", "loses-time": "loses time"}


def _dsl_piece_event(node: n.PieceEvent, indent: str) -> str:
    text = f"{to_dsl(node.piece)} {_PIECE_DSL.get(node.what, node.what)}"
    if node.what in ("enters", "leaves") and node.place:
        text += f" {_place_text(node.place)}"
    if node.what == "crosses":
        text += f" {node.tag}"
    return text


def _dsl_phase_event(node: n.PhaseEvent, indent: str) -> str:
    if node.edge == "whole":
        return f"{node.phase} phase"
    return f"{node.edge} of {node.phase}"


def _dsl_bloodlust_rises(node: n.BloodlustRises, indent: str) -> str:
    return "bloodlust rises" + (f" from {_CAUSE_DSL[node.cause]}" if node.cause else "")


def _dsl_fear_changes(node: n.FearChanges, indent: str) -> str:
    return f"fear {node.how}"


def _dsl_token_event(node: n.TokenEvent, indent: str) -> str:
    return f"token {node.token} is {node.how}"


def _dsl_item_event(node: n.ItemEvent, indent: str) -> str:
    return f"item {node.item} is {node.how}" if node.item else f"an item is {node.how}"


def _dsl_card_event(node: n.CardEvent, indent: str) -> str:
    return f"card {node.deck} is {node.how}" if node.deck else f"card is {node.how}"


def _dsl_own_event(node: n.OwnEvent, indent: str) -> str:
    return node.how


def _dsl_game_starts(node: n.GameStarts, indent: str) -> str:
    return "game starts"


def _dsl_trigger(node: n.Trigger, indent: str) -> str:
    head = f"at {to_dsl(node.event)}" if isinstance(node.event, n.PhaseEvent) else f"when {to_dsl(node.event)}"
    if node.cond is not None:
        head += f" if {to_dsl(node.cond)}"
    return f"{head} {_dsl_block(node.body, indent)}"


def _dsl_replacement(node: n.Replacement, indent: str) -> str:
    head = f"instead of {to_dsl(node.event)}" + (f" if {to_dsl(node.cond)}" if node.cond is not None else "")
    return f"{head} {_dsl_block(node.body, indent)}"


def _dsl_modification(node: n.Modification, indent: str) -> str:
    ev = to_dsl(node.event)
    if node.how == "prevent":
        text = f"prevent {ev}"
    elif node.how in ("reduce", "increase"):
        text = f"{node.how} {ev} by {_amount_in(node.n)}"
    else:
        text = f"limit {ev} to {_CMP_DSL[node.how]} {_amount_in(node.n)}"
    return text + (f" while {to_dsl(node.cond)}" if node.cond is not None else "")


def to_dsl(node: Any, indent: str = "") -> str:
    """A node back as DSL text that builds to an equal node (spans aside).

    ``indent`` is the indentation of the line the node stands on, used for the lines of nested
    blocks spread over several lines.
    """
    writer = dsl_writer_for(type(node))
    if writer is None:
        raise TypeError(f"{type(node).__name__} has no DSL phrase")
    return writer(node, indent)


# --- item and card zones (issue #16 item 6) --------------------------------------------------------
_ITEM_STARTS = {"table": "starts face up on the table", "aside": "starts set aside", "held": "you start with it",
                "on-piles": "starts face up on top of each item pile (take it with an item found there)"}


def _item_zone_facts(node: n.Item, r: Names) -> list[str]:
    facts = [_count(node.copies, "copy", "copies")] if node.copies != 1 else []
    if node.start == "pile":
        facts.append(f"starts in the {node.pile} pile")
    elif node.start:
        facts.append(_ITEM_STARTS[node.start])
    for zone, k in node.starts:  # counted starts (S1.1)
        facts.append(f"{_count(k, 'copy', 'copies')}: {_ITEM_STARTS[zone]}")
    if node.starts and node.copies > sum(k for _z, k in node.starts):
        facts.append("the other copies are dealt into the item piles")
    if node.returns:
        facts.append("returns to the table when discarded")
    if node.discarded_tokens:
        facts.append({"discard": "the tokens on a card of it discarded go to the token discard",
                      "stay": "the tokens on a card of it stay on it when it is discarded"}[node.discarded_tokens])
    return facts


_FATES = {"discard": "discarded", "return": "shuffled back into its deck", "remove": "removed from the game"}


def _deck_card_facts(node: n.DeckCard) -> str:
    facts = ([_count(node.copies, "copy", "copies")] if node.copies != 1 else []) + (
        [f"number {node.number}"] if node.number else [])
    if node.after:
        facts.append(f"once resolved: {_FATES[node.after]}")
    if node.start:
        facts.append({"aside": "starts set aside", "table": "starts face up on the table, in play"}[node.start])
    return f" ({', '.join(facts)})" if facts else ""


def _deck_rules(node: n.Deck, r: Names) -> list[str]:
    out = []
    if node.after != "discard":
        out.append(f"A card drawn is {_FATES[node.after]} once resolved.")
    if node.reshuffle:
        out.append("When it is empty, its discards are shuffled into a new deck.")
    out += [_clause(h, r) for h in node.halves]
    return out


def _render_deck_half(node: n.DeckHalf, r: Names) -> str:
    when = f"while {_clause(node.cond, r)}" if node.cond is not None else "otherwise"
    return f"Its cards' {node.name} half is read {when}."


def _render_card_half(node: n.CardHalf, r: Names) -> str:
    number = f" (number {node.number})" if node.number else ""
    return f"{_cap(node.name)} half{number}: {render_effects(node.effects, r)}"


def _render_item_pile(node: n.ItemPile, r: Names) -> str:
    row = f"; shuffled at setup, its top {node.row} laid face up on the table" if node.row else ""
    return f"{node.name} [{node.id}] (item pile{row})"


def _render_recipe(node: n.Recipe, r: Names) -> str:
    items = [r.item(i) for i in node.needs]
    needs = "nothing" if not items else items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    cost = f", and spend {node.time} time," if node.time else " (no time)"
    where = f"; only while {_clause(node.usable, r)}" if node.usable is not None else ""
    return (f"{node.name} (recipe, Action phase): discard {needs}{cost} to take {r.item(node.makes)} "
            f"from the table{where}")


def _render_take_item(node: n.TakeItem, r: Names) -> str:
    where = "the table" if node.zone == "table" else "the set-aside cards"
    return f"take {r.item(node.item)} from {where} (if it is there)"


def _render_put_item_on_table(node: n.PutItemOnTable, r: Names) -> str:
    return f"put {r.item(node.item)} from your items on the table"


def _render_set_aside_item(node: n.SetAsideItem, r: Names) -> str:
    return f"set {r.item(node.item)} aside"


def _render_discard_chosen_item(node: n.DiscardChosenItem, r: Names) -> str:
    return "discard an item of your choice"


def _render_discard_random_item(node: n.DiscardRandomItem, r: Names) -> str:
    return "discard an item at random"


def _render_shuffle_card_into(node: n.ShuffleCardInto, r: Names) -> str:
    return f"shuffle the card {node.card} into the {r.deck(node.deck)} deck"


def _render_item_in(node: n.ItemIn, r: Names, neg: bool = False) -> str:
    where = {"table": "on the table", "piles": "on top of an item pile"}.get(node.zone, "set aside")
    return f"{r.item(node.item)} {'is not' if neg else 'is'} {where}"


def _render_card_number(node: n.CardNumber, r: Names) -> str:
    return "the number on the card"


def _dsl_item_in(node: n.ItemIn, indent: str) -> str:
    return f"item {node.item} {({'table': 'on table', 'piles': 'on piles'}).get(node.zone, 'aside')}"


def _dsl_card_number(node: n.CardNumber, indent: str) -> str:
    return "card number"


# --- counters and tracks, holding areas, delayed effects, a board that changes (issue #16) -------
def _space(node: n.Track, k: int) -> str:
    label = dict(node.labels).get(k)
    return f"{k} ({label})" if label else str(k)


def _render_track_step(node: n.TrackStep, r: Names) -> str:
    return f"on reaching space {node.at}: {_block(node.effects, r)}"


def _render_track(node: n.Track, r: Names) -> str:
    head = (f"{node.name} [{node.id}]: a track of spaces {node.low} to {node.high}, the marker starting on "
            f"{_space(node, node.start)}")
    named = [f"{k} is {label}" for k, label in node.labels if k != node.start]
    lines = [head + (f"; space {', '.join(named)}" if named else "")]
    lines += _indent([_sentence(_clause(s, r)) for s in node.steps])
    return "\n".join(lines)


def _render_holding_area(node: n.HoldingArea, r: Names) -> str:
    return (f"{node.name} [{node.id}]: holds up to {_count(node.capacity, 'victim')} off the board "
            "(enemies cannot target, attack or kill them there)")


def _render_track_value(node: n.TrackValue, r: Names) -> str:
    return f"the space of the {r.track(node.track)} track"


def _render_held_victims(node: n.HeldVictims, r: Names) -> str:
    return f"the number of victims on {r.holding(node.holding)}"


def _render_location_number(node: n.LocationNumber, r: Names) -> str:
    return f"the {node.name} number of {r.loc(node.place)}"


def _render_in_phase(node: n.InPhase, r: Names, neg: bool = False) -> str:
    return f"it is {'not ' if neg else ''}{_phase(node.phase)}"


def _render_track_reaches(node: n.TrackReaches, r: Names) -> str:
    return f"the {r.track(node.track)} track reaches space {_value(node.n, r)}"


def _render_advance_track(node: n.AdvanceTrack, r: Names) -> str:
    return _amt(node.n, r, f"advance the {r.track(node.track)} track by {{n}}")


def _render_retreat_track(node: n.RetreatTrack, r: Names) -> str:
    return _amt(node.n, r, f"move the {r.track(node.track)} track back by {{n}}")


def _render_set_track(node: n.SetTrack, r: Names) -> str:
    return _amt(node.n, r, f"put the {r.track(node.track)} track on space {{n}}")


def _render_load_victims(node: n.LoadVictims, r: Names) -> str:
    where, onto = r.loc(node.loc), r.holding(node.holding)
    return _amt(node.n, r, f"{{n}} victims of your choice at {where} go onto {onto} (as many as there are and it "
                           "has room for)",
                f"1 victim of your choice at {where} goes onto {onto} (if it has room)")


def _render_load_victims_up_to(node: n.LoadVictimsUpTo, r: Names) -> str:
    return _amt(node.n, r, f"you may put up to {{n}} victims of your choice at {r.loc(node.loc)} onto "
                           f"{r.holding(node.holding)} (as it has room for)")


def _render_rescue_held(node: n.RescueHeld, r: Names) -> str:
    if node.n == -1:
        return f"the victims on {r.holding(node.holding)} are rescued"
    return _amt(node.n, r, f"{{n}} victims on {r.holding(node.holding)} are rescued",
                f"1 victim on {r.holding(node.holding)} is rescued")


def _render_unload_victims(node: n.UnloadVictims, r: Names) -> str:
    return _amt(node.n, r, f"{{n}} victims on {r.holding(node.holding)} go back to {r.loc(node.loc)}",
                f"1 victim on {r.holding(node.holding)} goes back to {r.loc(node.loc)}")


def _render_close_path(node: n.ClosePath, r: Names) -> str:
    return f"close the path between {r.loc(node.a)} and {r.loc(node.b)}{_FOR_MOVERS[node.who]}"


def _render_move_victims(node: n.MoveVictims, r: Names) -> str:
    how = " as if they followed you (along one path, never into a killer's location)" if node.follow else ""
    return _amt(node.n, r, f"move {{n}} victims of your choice from {r.loc(node.src)} to {r.loc(node.dst)}{how}",
                f"move 1 victim of your choice from {r.loc(node.src)} to {r.loc(node.dst)}{how}")


def _render_delayed_trigger(node: n.DelayedTrigger, r: Names) -> str:
    return f"at the {node.edge} of the next {node.phase.capitalize()} phase: {_block(node.body, r)}"


def _render_victims_hidden(node: n.VictimsHidden, r: Names) -> str:
    return f"enemies neither target nor attack the victims at {r.loc(node.loc)}"


def _render_victims_cannot_escape(node: n.VictimsCannotEscape, r: Names) -> str:
    return f"victims at {r.loc(node.loc)} do not escape on foot"


def _dsl_track_value(node: n.TrackValue, indent: str) -> str:
    return f"track {node.track}"


def _dsl_held_victims(node: n.HeldVictims, indent: str) -> str:
    return f"count victims on {node.holding}"


def _dsl_location_number(node: n.LocationNumber, indent: str) -> str:
    return f"number {node.name} of {_place_text(node.place)}"


def _dsl_in_phase(node: n.InPhase, indent: str) -> str:
    return f"phase {node.phase}"


def _dsl_track_reaches(node: n.TrackReaches, indent: str) -> str:
    return f"track {node.track} reaches {_amount_in(node.n)}"


def _dsl_delayed_trigger(node: n.DelayedTrigger, indent: str) -> str:
    return f"at {node.edge} of next {node.phase} {_dsl_block(node.body, indent)}"


# --- victim kinds, statuses on every piece, tokens everywhere (issue #16 items 3-5) ----------------
def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _render_victim_kind(node: n.VictimKind, r: Names) -> str:
    facts = (["it cannot be rescued"] if node.unrescuable else []) + \
            (["it panics in every Panic phase"] if node.panics else [])
    shields = {"killers": "killers", "minions": "minions", "enemies": "enemies"}
    for who in node.untargeted:
        what = shields.get(who) or (_body(who[7:], r) if who.startswith("killer:") else
                                    f"{r.minion(who[7:])} minions")
        facts.append(f"{what} never target nor kill it")
    if node.hidden:
        facts.append("its kind is hidden until revealed")
    return f"{node.name} [{node.id}] (a kind of victim)" + (": " + "; ".join(facts) if facts else "")


def _render_turn_random_victims(node: n.TurnRandomVictims, r: Names) -> str:
    if node.kind in r.victims:
        name = r.victims[node.kind]
        return _amt(node.n, r, f"turn {{n}} random victims of no kind into {name} victims",
                    f"turn a random victim of no kind into {_a(name)} victim")
    name = r.minion(node.kind)
    return _amt(node.n, r, f"turn {{n}} random victims into {name} minions (they do not die)",
                f"turn a random victim into {_a(name)} minion (it does not die)")


def _render_replace_victim(node: n.ReplaceVictim, r: Names) -> str:
    who = _body(node.body, r) if node.body else "the first killer body off the board"
    name = r.victims.get(node.kind, node.kind)
    return f"{_a(name)} victim of your choice at {r.loc(node.loc)} leaves the board (it does not die) and {who} " \
           "appears there"


def _render_reveal_victims(node: n.RevealVictims, r: Names) -> str:
    return f"reveal the kinds of the victims at {r.loc(node.loc)}"


def _render_kind_at(node: n.KindAt, r: Names, neg: bool = False) -> str:
    if node.kind in r.conveyances:
        return f"the {r.conveyances[node.kind]} is {'not ' if neg else ''}at {r.loc(node.loc)}"
    what = r.kind(node.kind)
    return f"there is {'no' if neg else _a(what).split(' ', 1)[0]} {what} at {r.loc(node.loc)}"


def _dsl_kind_at(node: n.KindAt, indent: str) -> str:
    return f"{node.kind} at {_place_text(node.loc)}"


_PIECE_NOUNS = {"pieces": "piece (you, victims, minions and killers)", "victims": "victim", "enemies": "enemy",
                "minions": "minion", "killers": "killer", "fg": "you", "it": "that piece"}


def _render_piece_set(node: n.PieceSet, r: Names) -> str:
    text = _PIECE_NOUNS[node.what]
    if node.loc:
        text += f" at {r.loc(node.loc)}"
    if node.tag:
        text += f" at {_a(node.tag)} location"
    if node.where is not None:
        text += f" where {_clause(node.where, r)}"
    return text


def _pieces(node: n.PieceSet, r: Names) -> str:
    """A piece set as the object of a clause: "it", "you", "every victim at …"."""
    if node.what in ("fg", "it") and node.where is None:
        return _PIECE_NOUNS[node.what]
    return f"every {_render_piece_set(node, r)}"


_PIECE_DSL_WORDS = {"pieces": "piece", "victims": "victim", "enemies": "enemy", "minions": "minion",
                    "killers": "killer"}


def _dsl_piece_set(node: n.PieceSet, indent: str) -> str:
    text = node.what
    if node.loc:
        text += f" at {_place_text(node.loc)}"
    if node.tag:
        text += f" at tag {node.tag}"
    if node.where is not None:
        text += f" where {to_dsl(node.where)}"
    return text


def _render_for_each_piece(node: n.ForEachPiece, r: Names) -> str:
    return f"for each {_render_piece_set(node.among, r)}: {_block(node.body, r)}"


def _dsl_for_each_piece(node: n.ForEachPiece, indent: str) -> str:
    s = node.among
    head = _dsl_piece_set(attrs.evolve(s, what=_PIECE_DSL_WORDS.get(s.what, s.what)), indent)
    return f"for each {head} {_dsl_block(node.body, indent)}"


def _render_add_status_to(node: n.AddStatusTo, r: Names) -> str:
    return f"{_pieces(node.pieces, r)} gains the status {node.status}".replace("you gains", "you gain")


def _render_clear_status_from(node: n.ClearStatusFrom, r: Names) -> str:
    return f"{_pieces(node.pieces, r)} loses the status {node.status}".replace("you loses", "you lose")


def _render_damage_pieces(node: n.DamagePieces, r: Names) -> str:
    text = f"{_pieces(node.pieces, r)} loses {_num(node.n)} health".replace("you loses", "you lose")
    if node.pieces.what in ("victims", "pieces", "it"):
        text += " (a victim, who has 1 health, dies)"
    return text + _where(node.n, r)


def _render_kill_pieces(node: n.KillPieces, r: Names) -> str:
    note = {"pieces": " (a killer is defeated outright; you are not affected)", "it": " (a killer is defeated "
            "outright; you are not affected)", "killers": " (defeated outright)", "enemies": " (a killer is "
            "defeated outright)", "fg": " (you are not affected)"}.get(node.pieces.what, "")
    return f"kill {_pieces(node.pieces, r)}{note}"


def _render_has_status(node: n.HasStatus, r: Names, neg: bool = False) -> str:
    who = {"it": "that piece", "fg": "you", "killer": _body(node.body, r)}[node.who]
    verb = ("do not have" if neg else "have") if node.who == "fg" else ("does not have" if neg else "has")
    return f"{who} {verb} the status {node.status}"


def _dsl_has_status(node: n.HasStatus, indent: str) -> str:
    who = f"killer {node.body}" if node.who == "killer" and node.body else node.who
    return f"{who} has status {node.status}"


_HOLDER_WORDS = {"collection": "your collection", "items": "the items you hold", "supply": "the supply",
                 "discard": "the token discard"}


def _render_token_holder(node: n.TokenHolder, r: Names) -> str:
    if node.kind == "item":
        return f"the item {r.item(node.name)}"
    if node.kind == "card":
        return f"the card {node.name}"
    if node.kind == "at":
        return "that piece (or location)" if node.loc == "it" else r.loc(node.loc)
    return _HOLDER_WORDS[node.kind]


def _dsl_holder(h: n.TokenHolder) -> str:
    if h.kind in ("item", "card"):
        return f"{h.kind} {h.name}"
    if h.kind == "at":
        return _place_text(h.loc)
    return h.kind


def _tokens(k: Any, token: str, kind: str, r: Names) -> str:
    what = f"{kind} {r.token(token)}" if kind else r.token(token)
    return f"1 {what} token" if k == 1 else f"{_num(k)} {what} tokens"


def _taken(k: Any, token: str, kind: str, r: Names) -> str:
    """Tokens taken from a holder: of no kind named, the player picks among those face up."""
    return _tokens(k, token, kind, r) + ("" if kind else " of your choice (among those face up)")


def _onto(h: n.TokenHolder, r: Names) -> str:
    return ("into " if h.kind in ("supply", "discard", "collection") else "on ") + _clause(h, r)


def _render_gain_tokens(node: n.GainTokens, r: Names) -> str:
    face = {"": "", "up": " face up", "down": " face down"}[node.face]
    return (f"put {_tokens(node.n, node.token, node.kind, r)} from the supply {_onto(node.to, r)}{face}"
            + _where(node.n, r))


def _render_remove_tokens(node: n.RemoveTokens, r: Names) -> str:
    return (f"return {_taken(node.n, node.token, node.kind, r)} from {_clause(node.src, r)} to the supply"
            + _where(node.n, r))


def _render_move_tokens(node: n.MoveTokens, r: Names) -> str:
    return (f"move {_taken(node.n, node.token, node.kind, r)} from {_clause(node.src, r)} {_onto(node.to, r)}"
            + _where(node.n, r))


def _render_spend_to(node: n.SpendTo, r: Names) -> str:
    them = "it" if node.n == 1 else "them"
    stays = "" if node.to.kind in ("supply", "discard", "collection") else \
        f" (placed, {them} stay{'s' if them == 'it' else ''} there)"
    text = (f"spend {_taken(node.n, node.token, node.kind, r)} from {_clause(node.src, r)}, putting {them} "
            f"{_onto(node.to, r)}{_where(node.n, r)}" + stays)
    return text + (f"; if you do: {_block(node.body, r)}" if node.body else "")


def _token_head(verb: str, node: Any) -> str:
    kind = f" {node.kind}" if node.kind else ""
    return f"{verb} {_amount_text(node.n)} token {node.token}{kind}"


def _dsl_gain_tokens(node: n.GainTokens, indent: str) -> str:
    prep = "at" if node.to.kind == "at" and node.to.loc != "it" else "on"
    face = f" face {node.face}" if node.face else ""
    return f"{_token_head('gain', node)} {prep} {_dsl_holder(node.to)}{face}"


def _dsl_remove_tokens(node: n.RemoveTokens, indent: str) -> str:
    return f"{_token_head('remove', node)} from {_dsl_holder(node.src)}"


def _dsl_move_tokens(node: n.MoveTokens, indent: str) -> str:
    return f"{_token_head('move', node)} from {_dsl_holder(node.src)} to {_dsl_holder(node.to)}"


def _dsl_spend_to(node: n.SpendTo, indent: str) -> str:
    prep = "to" if node.to.kind in ("supply", "discard", "collection") else "onto"
    text = f"{_token_head('spend', node)} from {_dsl_holder(node.src)} {prep} {_dsl_holder(node.to)}"
    return text + (f" {_dsl_block(node.body, indent)}" if node.body else "")


def _render_token_count(node: n.TokenCount, r: Names) -> str:
    return f"the number of {_token_kind_face(node, r)}s {_onto(node.on, r).replace('into', 'in')}"


def _holder_prep(h: n.TokenHolder) -> str:
    return "in" if h.kind in ("supply", "discard") else "at" if h.kind == "at" and h.loc != "it" else "on"


def _dsl_token_count(node: n.TokenCount, indent: str) -> str:
    prep = _holder_prep(node.on) if node.kind or node.face else "in" if node.on.kind in ("supply", "discard") else "on"
    return f"count tokens {node.token}{_kind_face_text(node)} {prep} {_dsl_holder(node.on)}"


def _render_token_on(node: n.TokenOn, r: Names, neg: bool = False) -> str:
    return f"there is {'no' if neg else 'a'} {_token_kind_face(node, r)} {_onto(node.on, r).replace('into', 'in')}"


def _dsl_token_on(node: n.TokenOn, indent: str) -> str:
    prep = "in" if node.on.kind in ("supply", "discard") else "on"
    return f"token {node.token}{_kind_face_text(node)} {prep} {_dsl_holder(node.on)}"


# --- pieces that travel with her (issue #33 item 2) -------------------------------------------------
def _render_conveyance(node: n.Conveyance, r: Names) -> str:
    where = f"it starts at {r.loc(node.start)}" if node.start else "it starts off the board"
    when = ("it goes with you whenever you move from its location" if node.taken == "always" else
            "when you move from its location you may take it with you")
    facts = [where, when]
    if node.needs:
        facts.append("only while you hold " + " and ".join(r.item(i) for i in node.needs))
    if node.enters:
        facts.append(f"it enters only {' or '.join(node.enters)} locations")
    if node.never_crosses:
        facts.append(f"it never crosses a {' or '.join(node.never_crosses)} path")
    if node.riders == n.ANY_RIDERS:
        facts.append("any number of victims ride with it")
    elif node.riders == 0:
        facts.append("no victim follows you when you take it")
    elif node.riders > 0:
        facts.append(f"up to {_count(node.riders, 'victim')} ride with it, whatever the path lets follow")
    return f"{node.name} [{node.id}] (a piece that travels with you): " + "; ".join(facts)


def _render_move_conveyance(node: n.MoveConveyance, r: Names) -> str:
    return f"move the {r.conveyances.get(node.conveyance, node.conveyance)} to {r.loc(node.loc)}"


def _render_reveal_tokens(node: n.RevealTokens, r: Names) -> str:
    return f"turn the face-down {r.token(node.token)} tokens {_onto(node.at, r)} face up (their kinds are seen)"


def _dsl_reveal_tokens(node: n.RevealTokens, indent: str) -> str:
    return f"reveal tokens {node.token} {_holder_prep(node.at)} {_dsl_holder(node.at)}"


# --- a place handed to a drawn card, drawn identities, catching up (issue #33 items 7-8) -------------
def _render_drawn_killer_appears(node: n.DrawnKillerAppears, r: Names) -> str:
    if node.deck:
        return (f"draw a card from the {r.deck(node.deck)} deck: the killer body it names appears at "
                f"{r.loc(node.loc)}, then the card resolves there")
    return f"a killer body off the board, picked at random, appears at {r.loc(node.loc)}"


def _render_replace_victim_drawn(node: n.ReplaceVictimDrawn, r: Names) -> str:
    name = r.victims.get(node.kind, node.kind)
    who = (f"the killer body named by a card drawn from the {r.deck(node.deck)} deck" if node.deck
           else "a killer body off the board, picked at random,")
    tail = " (then the card resolves there)" if node.deck else ""
    return (f"{_a(name)} victim of your choice at {r.loc(node.loc)} leaves the board (it does not die) and {who} "
            f"appears there{tail}")


def _render_spawn_drawn(node: n.SpawnDrawn, r: Names) -> str:
    kind = (f"of the kind named by a card drawn from the {r.deck(node.deck)} deck" if node.deck
            else "of one kind picked at random")
    tail = " (then the card resolves there)" if node.deck else ""
    return _amt(node.n, r, f"spawn {{n}} minions {kind} at {r.loc(node.loc)}{tail}",
                f"spawn 1 minion {kind} at {r.loc(node.loc)}{tail}")


def _render_catch_up(node: n.CatchUp, r: Names) -> str:
    what = f"the steps of the {r.track(node.track)} track above its start" if node.track else \
        "the one-time effects of the bloodlust levels above the first"
    upto = "the space its marker is on" if node.track else "the current level"
    return f"{what}, up to {upto}, resolve again for {_body(node.body, r)}, lowest first"
