"""What is in play: the sources of abilities, the static rules they hold, and the paths usable.

Every source of triggers, replacements, statics and end conditions now in play is found by
``abilities`` (the killer, the scenario, revealed cards, lasting events, the secondary dark
power, the flipped Final Girl, held items, kept deck cards), cached per set of sources.

Static rules (``rule …``, dsl/LANGUAGE.md section 7) are queried, never run: a rules computation
asks one question (how many dice, how many followers across this path, which path tags bar the
enemies, …) and ``modified`` folds every rule in play that answers it over the value the core
rules give. Each rule node has one function, ``rule_<snake_case_class_name>``, found by name
and marked with the question it answers (``@answers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from lastbreath.dsl import nodes as n

from .tables import EVAL, NO_CTX

if TYPE_CHECKING:
    from .working import Work

NO_CAP = 1 << 30  # a health with no maximum (K5.1)


# --- the questions rules answer, and how each rule answers -------------------------------------
_QUERIES: dict[str, str] = {}  # rule function name -> the question it answers


def answers(query: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a rule function with the question it answers. A rule function is a function of its
    rule, the value and the question's arguments alone (never of the state), so its answers can
    be kept while the same rules are in play (see ``modified``)."""
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        _QUERIES[fn.__name__] = query
        return fn
    return mark


@answers("dice")
def rule_dice_modifier(r: n.DiceModifier, value: int) -> int:  # rule dice +N (C2.4)
    return value + r.n


@answers("all-modes")
def rule_all_modes(r: n.AllModes, value: bool) -> bool:  # rule all modes (K4.2)
    return True


@answers("followers")
def rule_follower_limit(r: n.FollowerLimit, value: int, path_tags: frozenset[str]) -> int:
    # rule followers at most N across TAG (S4.2)
    return min(value, r.n) if r.tag in path_tags else value


@answers("enemy-bans")
def rule_enemies_cannot_cross(r: n.EnemiesCannotCross, value: frozenset[str]) -> frozenset[str]:
    # rule enemies cannot cross TAG (S1.4)
    return value | {r.tag}


@answers("damage-to-killer")
def rule_damage_taken(r: n.DamageTaken, value: int) -> int:  # rule damage taken -N
    return value + r.n


@answers("killer-cap")
def rule_no_health_cap(r: n.NoHealthCap, value: int) -> int:  # rule no health cap (K5.1)
    return NO_CAP


@answers("stops-moves")
def rule_status_stops_moves(r: n.StatusStopsMoves, value: bool, status: frozenset[str]) -> bool:
    # rule enemies with status S do not move (S5.5)
    return value or r.status in status


@answers("extra-moves")
def rule_extra_moves(r: n.ExtraMoves, value: int, who: str) -> int:  # rule killer moves N more
    return value + r.n if r.who in (who, "enemies") else value


@answers("extra-attacks")
def rule_extra_attacks(r: n.ExtraAttacks, value: int, who: str) -> int:  # rule minions attack N more
    return value + r.n if r.who in (who, "enemies") else value


@answers("active-only")
def rule_only_active_acts(r: n.OnlyActiveActs, value: bool) -> bool:  # rule only the active killer acts (K3.2)
    return True


@answers("absorbs")
def rule_killers_absorb(r: n.KillersAbsorb, value: frozenset[str]) -> frozenset[str]:
    # rule killers absorb MINION (K6.7)
    return value | {r.minion}


@answers("kill-may-damage")
def rule_kills_may_hit_killers(r: n.KillsMayHitKillers, value: bool, minion: str) -> bool:
    # rule killing MINION may damage killers (K6.7)
    return value or r.minion == minion


@answers("hidden-victims")
def rule_victims_hidden(r: n.VictimsHidden, value: tuple[n.Loc, ...]) -> tuple[n.Loc, ...]:
    # rule victims at PLACE cannot be targeted: the places whose victims enemies leave alone, in
    # the rules' order (tracks.hidden_victims finds the locations they name now)
    return value + (r.loc,)


@answers("no-escape")
def rule_victims_cannot_escape(r: n.VictimsCannotEscape, value: tuple[n.Loc, ...]) -> tuple[n.Loc, ...]:
    # rule victims at PLACE cannot escape: the places where victims do not escape on foot (C5.4), in
    # the rules' order (tracks.no_escape finds the locations they name now)
    return value + (r.loc,)


RULE_FUNCTIONS: dict[type, Callable[..., Any]] = n.functions(n.Rule, globals(), "rule_")
QUERY_OF: dict[type, str] = {cls: _QUERIES[fn.__name__] for cls, fn in RULE_FUNCTIONS.items()}


# --- what is in play ------------------------------------------------------------------------
def abilities(w: Work) -> tuple[n.Abilities, ...]:
    """Every source of triggers, replacements and statics now in play (kept by the working copy
    until a field that decides them is written: working.SOURCE_FIELDS, written through their setters in fields.py)."""
    got = w.sources
    if got is not None:
        return got
    got = w.sources = _abilities(w)
    w.found = {}  # what was looked up among these sources (rules_in_play, triggers._in_play)
    return got


def _abilities(w: Work) -> tuple[n.Abilities, ...]:
    g = w.game
    ia = g.item_abilities
    key = (w.dark_power if w.dark_revealed else "", w.finale if w.finale_revealed else "", w.events_active,
           w.secondary, w.flipped, w.kept,
           tuple(h.id for h in (*w.held, *w.pack) if h.id in ia) if ia and (w.held or w.pack) else ())
    got = g.abilities_cache.get(key)
    if got is None:
        srcs = [a for _key, _name, a in sources_named(w)]
        got = tuple(s for s in srcs if s)
        g.abilities_cache[key] = got
    return got


def sources_named(w: Work) -> list[tuple[str, str, n.Abilities]]:
    """Every source of abilities in play, in the fixed order of ``abilities``: each with the key its
    coming into play is noted by (``arrivals``) and its name (for the log)."""
    g = w.game
    out: list[tuple[str, str, n.Abilities]] = [("killer", g.killer.name, g.killer.abilities),
                                               ("scenario", g.scenario.name, g.scenario.abilities)]
    if w.dark_revealed:
        dark = g.dark_powers[w.dark_power]
        out.append(("dark:" + w.dark_power, dark.name, dark.abilities))
    if w.finale_revealed:
        finale = g.finales[w.finale]
        out.append(("finale:" + w.finale, finale.name, finale.abilities))
    out.extend(("event:" + e, g.events[e].name, g.events[e].abilities) for e in w.events_active)
    if w.secondary:
        out.append(("secondary:" + w.secondary, g.terror[w.secondary].name, g.terror[w.secondary].abilities))
    if w.flipped:
        out.append(("flipped", g.fg.name, g.fg.flipped))
    out.extend(("item:" + h.id, g.items[h.id].name, g.items[h.id].abilities) for h in (*w.held, *w.pack))
    out.extend(("kept:" + c, g.deck_cards[c].name, g.deck_cards[c].abilities) for c in w.kept)
    return out


def _sources_keyed(w: Work) -> list[tuple[str, n.Abilities]]:
    """The sources in play with modifications, besides the killer and the scenario, each with the
    key its coming into play is noted by (``arrivals``), in the fixed order of ``abilities``."""
    return [(k, a) for k, _name, a in sources_named(w)[2:] if a and a.modifications]


def names_answering(w: Work, query: str) -> list[str]:
    """The names of the sources in play with a rule answering ``query`` (for the log)."""
    out: list[str] = []
    for _key, name, a in sources_named(w):
        if a and any(QUERY_OF[type(r)] == query for r in a.rules) and name not in out:
            out.append(name)
    return out


def _arrived(before: tuple[str, ...], now: list[str]) -> tuple[str, ...]:
    """The order of coming into play: those noted before that are still in play, in their order,
    then the new ones (several at once: in the fixed order)."""
    left = list(now)
    kept = []
    for k in before:
        if k in left:
            left.remove(k)
            kept.append(k)
    return tuple(kept + left)


def came_into_play(w: Work) -> None:
    """Note the order in which sources with modifications came into play: called where a source
    enters (a card revealed or kept, an event that lasts, an item gained, a secondary dark power,
    the Final Girl flipped). Content without such sources notes nothing."""
    if w.game.ordered_mods:
        now = _arrived(w.arrivals, [k for k, _a in _sources_keyed(w)])
        if now != w.arrivals:
            w.arrivals = now


def in_arrival_order(w: Work) -> tuple[n.Abilities, ...]:
    """The sources in play, the killer's and the scenario's first, then the others in the order
    they came into play (LANGUAGE.md 5: modifications apply in that order)."""
    g = w.game
    srcs = abilities(w)
    key = (id(srcs), w.arrivals)
    got = g.arrival_cache.get(key)
    if got is None or got[0] is not srcs:
        keyed = _sources_keyed(w)
        order = _arrived(w.arrivals, [k for k, _a in keyed])
        slots: dict[str, list[int]] = {}
        for i, k in enumerate(order):
            slots.setdefault(k, []).append(i)
        ranked = sorted((slots[k].pop(0), j) for j, (k, _a) in enumerate(keyed))
        first = tuple(s for s in (g.killer.abilities, g.scenario.abilities) if s.modifications)
        got = g.arrival_cache[key] = (srcs, first + tuple(keyed[j][1] for _r, j in ranked))
    return got[1]


def rules_in_play(w: Work, query: str) -> tuple[n.Rule, ...]:
    """The rules in play that answer a question, in source order."""
    g = w.game
    if query not in g.rule_queries:
        return ()
    srcs = w.sources  # abilities(w), without the call when they are kept
    if srcs is None:
        srcs = abilities(w)
    found = w.found.get(query)  # looked up once while these sources are in play …
    if found is None:
        got = g.statics_cache.get((id(srcs), query))  # … and once per set of sources in the game
        if got is None or got[0] is not srcs:
            got = g.statics_cache[(id(srcs), query)] = (
                srcs, tuple(r for a in srcs for r in a.rules if QUERY_OF[type(r)] == query))
        found = w.found[query] = got[1]
    return found


def modified(w: Work, query: str, value: Any, *args: Any) -> Any:
    """The value the core rules give, as the rules in play answering ``query`` change it (a rule
    with ``while CONDITION`` only while the condition holds).

    The rule functions are pure: rules without a ``while`` give
    the same answer to the same value and arguments for as long as the same rules are in play, so
    it is kept with them (in ``Work.found``, forgotten when the sources in play change). Enemies
    ask at every act. The value and arguments of such a question are immutable (hashable).

    An entry ``(query, value, *args)`` of ``Work.found`` is only ever a lasting answer, so the
    hottest callers read it themselves while the sources are kept (``w.sources`` not None) and
    call this only when it is missing."""
    if query not in w.game.rule_queries:
        return value
    lasting = True
    key = (query, value) + args if args else (query, value)  # (a query is never a trigger field keyed there too)
    if lasting and w.sources is not None:  # (None: other sources, and found not yet forgotten)
        got = w.found.get(key)
        if got is not None:
            return got[0]
    for r in rules_in_play(w, query):
        if r.cond is not None:
            lasting = False
            if not _holds(w, r.cond, query):
                continue
        value = RULE_FUNCTIONS[type(r)](r, value, *args)
    if lasting:
        w.found[key] = (value,)
    return value


def held_in_place(w: Work, status: frozenset[str]) -> bool:
    """S5.5: whether a rule in play (``rule enemies with status S do not move``) holds an enemy with
    these statuses where it stands. It holds in the Killer phase for every move there, the enemy's
    own (a hunt, a wandering step) and a card's (``move killer to …``); it still attacks. Outside
    the Killer phase nothing holds it."""
    if w.phase != "killer" or "stops-moves" not in w.game.rule_queries:
        return False
    got = w.found.get(("stops-moves", False, status)) if w.sources is not None else None  # modified's kept answer
    return bool(got[0] if got is not None else modified(w, "stops-moves", False, status))


def _holds(w: Work, cond: n.Condition, query: str) -> bool:
    """Whether a rule's 'while' condition holds. A condition that asks the same question again
    (a distance, while the paths' rules are being read) finds the conditional rules not in force."""
    asking = w.scope.asking
    if query in asking:
        return False
    w.scope.asking = asking | {query}
    try:
        return EVAL[type(cond)](w, cond, NO_CTX)  # (resolve.condition: resolve stands above this module)
    finally:
        w.scope.asking = asking


def mode_active(w: Work, mode: str) -> bool:
    """K4.1–K4.2: the mode in force this Killer phase, or every mode under 'rule all modes'."""
    return mode == w.mode_active or bool(modified(w, "all-modes", False))


# --- which paths can be used --------------------------------------------------------------------
_NO_TAGS: frozenset[str] = frozenset()


_NO_PATHS: frozenset[int] = frozenset()


def shut_for(w: Work, mover: str) -> frozenset[int]:
    """The paths effects closed for a mover (fg | victims | enemies: ``close path A B for …``)."""
    barred = w.barred
    if not barred:
        return _NO_PATHS
    cache = w.game.shut_cache
    got = cache.get((barred, mover))
    if got is None:
        got = cache[(barred, mover)] = frozenset(k for k, m in barred if m == mover)
    return got


def enemy_tables(w: Work) -> Any:
    """The board's tables for enemies: opened paths, without those the rules bar them from and
    those closed for them. The working copy keeps the last ones with what they were found for
    (fields are rebound, never changed: the same objects, the same tables); every enemy reads
    them at each act."""
    memo = w.enemy_memo
    opened, barred = w.opened, w.barred
    # kept for no rule barring enemies from paths (None), or for the same sources in play, whose
    # rules that bar them are lasting (_NEVER when they are not: no sources are it)
    if memo is not None and memo[0] is opened and memo[1] is barred and (memo[2] is None or memo[2] is w.sources):
        return memo[3]
    if "enemy-bans" in w.game.rule_queries:
        bans = modified(w, "enemy-bans", _NO_TAGS)
        # the sources in play key the tables while their rules answer without 'while' (the same answer)
        lasting = all(r.cond is None for r in rules_in_play(w, "enemy-bans"))
        key: Any = w.sources if lasting else _NEVER
    else:
        bans, key = _NO_TAGS, None
    got = w.game.board.tables(opened, bans, shut_for(w, "enemies"))
    w.enemy_memo = (opened, barred, key, got)
    return got


_NEVER = object()  # a key no sources are


def fg_tables(w: Work) -> Any:
    """The board's tables for the Final Girl: every open or opened path not closed for her (the
    last ones kept by the working copy, as enemy_tables does)."""
    memo = w.fg_memo
    opened, barred = w.opened, w.barred
    if memo is not None and memo[0] is opened and memo[1] is barred:
        return memo[2]
    got = w.game.board.tables(opened, _NO_TAGS, shut_for(w, "fg"))
    w.fg_memo = (opened, barred, got)
    return got


def victim_tables(w: Work) -> Any:
    """The board's tables for victims moving (following her, fleeing in a panic): every open or
    opened path not closed for them."""
    return w.game.board.tables(w.opened, _NO_TAGS, shut_for(w, "victims"))
