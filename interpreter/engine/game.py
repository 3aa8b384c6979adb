"""The static facts of one game: the content chosen and the tables compiled from it.

A ``Game`` is built once per setup (killer, scenario, Final Girl, difficulty, legendary, tie
policy, modules) and shared by every state of every game with that setup (``Ruleset.caches.games``).
Nothing in it changes what a game does; its caches only remember answers already worked out.
The modules switched on are applied here, to the content the tables are built from
(``dsl.modules.game_content``): the rest of the engine never hears of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from lastbreath.dsl import nodes as n
from lastbreath.dsl.diagnostics import RulesError
from lastbreath.dsl.modules import game_content

from ..board import Board
from ..state import Option
from .compiled import CondFn, compile_condition, compile_optional
from .index import EMPTY_INDEX
from .moves import MOVE_EVENTS
from .statics import QUERY_OF
from .tables import SourceContexts, TriggerContexts
from .triggers import event_kind

if TYPE_CHECKING:
    from lastbreath.dsl.ruleset import Ruleset

TIE_POLICIES = ("harder", "realistic", "easier", "ask")
# a choice with one option (a forced choice): answered at once (auto), answered and said in the
# log (log), or asked like any other (ask)
FORCED_POLICIES = ("auto", "log", "ask")


class Game:
    """Static facts of one game: the content chosen and the tables compiled from it."""

    def __init__(self, ruleset: Ruleset, killer: n.Killer, scenario: n.Scenario, final_girl: n.FinalGirl,
                 difficulty: str = "normal", legendary: bool = False, tie_policy: str = "harder",
                 forced: str = "auto", modules: tuple[str, ...] = ()):
        if forced not in FORCED_POLICIES:
            raise RulesError(f"unknown forced-choice setting '{forced}' (one of {', '.join(FORCED_POLICIES)})")
        content = game_content(ruleset, killer, scenario, modules)  # RulesError: unknown, or two that clash
        killer, scenario = content.killer, content.scenario
        self.modules: tuple[str, ...] = content.modules  # in id order
        self.ruleset = ruleset
        self.killer = killer
        self.scenario = scenario
        self.fg = final_girl
        self.difficulty = difficulty
        self.legendary = legendary
        self.tie_policy = tie_policy
        self.forced = forced
        pb = ruleset.player_board()
        self.player_board = pb
        self.victim_supply = pb.victim_supply  # C5.7: the victim tokens of a game
        sides = {s.id: s for s in pb.sides}
        if difficulty not in sides:
            raise RulesError(f"unknown difficulty '{difficulty}' (the player board has: {', '.join(sides)})")
        self.side: n.Side = sides[difficulty]
        self.dice_by_fear = {f: z.dice for z in self.side.zones for f in range(z.low, z.high + 1)}
        boards = ruleset.caches.boards
        board_key: Any = (scenario.id, self.modules) if self.modules else scenario.id  # a module may change the map
        if board_key not in boards:
            boards[board_key] = Board(scenario)
        self.board: Board = boards[board_key]
        self.cards: dict[str, n.Card] = {cid: c for cid, c in content.cards.items()
                                         if c.owner in ("", killer.id, scenario.id)}
        self.items = content.items
        self.terror = {t.id: t for t in (*killer.terror, *scenario.terror)}
        self.finales = {f.id: f for f in killer.finales}
        self.dark_powers = {d.id: d for d in killer.dark_powers}
        self.events = {e.id: e for e in scenario.events}
        self.minions = dict(content.minions)
        self.a_minion = {k: f"a {m.name}" for k, m in self.minions.items()}  # how the log names one as it acts
        self.tokens = {t.id: t for t in (*killer.tokens, *scenario.tokens)}
        self.actions = (*killer.actions, *scenario.actions)
        self.decks = {d.id: d for d in (*killer.decks, *scenario.decks)}
        self.deck_cards = {f"{d.id}/{c.id}": c for d in self.decks.values() for c in d.cards}
        self.deck_of_card = {c.id: d.id for d in self.decks.values() for c in d.cards}  # 'the cause is deck D'
        self.levels = killer.bloodlust
        # caches: answers already worked out, keyed by what they depend on
        self.abilities_cache: dict[Any, tuple[n.Abilities, ...]] = {}  # the set of sources in play -> them
        self.statics_cache: dict[tuple[int, str], tuple[Any, tuple[n.Rule, ...]]] = {}  # (id(sources), query)
        self.events_cache: dict[tuple[int, str, str], tuple[Any, tuple[Any, ...]]] = {}  # (id(sources), field, kind)
        # id(sources) -> (the sources, the win and lose lines in play, the fields they read or None)
        self.ends_cache: dict[int, tuple[Any, tuple[Any, ...], Any]] = {}
        # the pieces on the board, indexed for the last pieces tuple seen (engine/index.py)
        self.minion_index: Any = EMPTY_INDEX
        self.body_counts: tuple[Any, int] = (None, 0)
        self.option_cache: dict[tuple[str, str], Option] = {}
        self.source_ctx = SourceContexts()  # Ctx(source), made once per source (resolve.SourceContexts)
        self.trigger_ctx = TriggerContexts()  # a trigger's Ctx, by what it is made of (triggers.fire)
        self.move_opts: dict[tuple[int, str], Option] = {}  # the Final Girl's moves, by (destination, how)
        self.occupied_memo: tuple[Any, list[int]] = (None, [])  # enemies.choose_target: the last victims tuple read
        self.span_text: dict[int, tuple[Any, str]] = {}  # id(span) -> (span, "file:line:col") of event sources
        self.blank_fields: Optional[dict[str, Any]] = None  # setup.blank: the state before setup, but its seed
        self.setup_lists: Optional[tuple[Any, ...]] = None  # setup.start: what it shuffles (setup._setup_lists)
        self.own_items: Optional[tuple[Any, ...]] = None  # zones.set_up_zones: the items it lays out
        self.derived: dict[Any, Any] = {}  # what bots and front ends work out from the content, by their own keys
        # menu options that recur in every round, built once
        self.play_opts = {cid: Option(f"play:{cid}", f"play {c.name}") for cid, c in self.cards.items()}
        self.discard_opts = {cid: Option(f"discard:{cid}", f"discard {c.name} for 1 time")
                             for cid, c in self.cards.items()}
        self.convert_opts = {cid: Option(f"discard:{cid}", c.name) for cid, c in self.cards.items()}  # fear checks
        self.buy_opts = {cid: Option(f"buy:{cid}", f"buy {c.name} ({c.cost} time)") for cid, c in self.cards.items()}
        # the Planning menu: for a time t (0 to the top cost), the cards bought for t or less, or free
        self.top_cost = max((c.cost for c in self.cards.values()), default=0)
        self.affordable = tuple(frozenset(cid for cid, c in self.cards.items() if c.cost <= t or c.cost == 0)
                                for t in range(self.top_cost + 1))
        # the Action menu: an action card of no 'usable while' is offered whenever it is in the hand
        self.plain_plays = {cid: self.play_opts[cid] for cid, c in self.cards.items()
                            if c.kind == "action" and c.usable is None}
        self.usable_cards = any(c.usable is not None for c in self.cards.values())
        self.use_opts = {iid: Option(f"use:{iid}", f"use {it.name} ({it.use.time} time)")  # the Action menu's
                         for iid, it in self.items.items() if it.use is not None}
        self.to_pack_opts = {iid: Option(f"to-pack:{iid}", f"put {it.name} in the backpack")  # the Upkeep menu's
                             for iid, it in self.items.items()}
        self.to_hand_opts = {iid: Option(f"to-hand:{iid}", f"hold {it.name}") for iid, it in self.items.items()}
        self.action_opts = tuple(  # the Action menu's option for each of self.actions
            Option(f"action:{a.id}", f"{a.name} ({'free' if a.free or not a.time else f'{a.time} time'})")
            for a in self.actions)
        # items whose abilities matter while held (a 'gained' trigger runs from the item itself)
        self.item_abilities = frozenset(
            i for i, it in self.items.items()
            if it.abilities.rules or it.abilities.replacements or it.abilities.ends or it.abilities.modifications
            or any(not isinstance(t.event, n.OwnEvent) for t in it.abilities.triggers))
        self.reroll_cards = frozenset(cid for cid, c in self.cards.items() if c.kind == "reroll")
        sources = [killer.abilities, scenario.abilities, final_girl.flipped,
                   *(f.abilities for f in killer.finales), *(d.abilities for d in killer.dark_powers),
                   *(t.abilities for t in self.terror.values()), *(e.abilities for e in scenario.events),
                   *(it.abilities for it in self.items.values()),
                   *(c.abilities for c in self.deck_cards.values())]
        self.has_ends = any(a.ends for a in sources)
        # some source besides the killer and the scenario modifies a happening: note when each comes into play
        self.ordered_mods = any(a.modifications for a in sources[2:])
        self.arrival_cache: dict[Any, tuple[Any, tuple[n.Abilities, ...]]] = {}
        # the kinds of happening some content answers (triggers, replacements, modifications)
        self.listens = frozenset(event_kind(e) for a in sources
                                 for e in (*(t.event for t in a.triggers), *(r.event for r in a.replacements),
                                           *(m.event for m in a.modifications)))
        self.rule_queries = frozenset(QUERY_OF[type(r)] for a in sources for r in a.rules)
        # phases a replacement takes whole ('instead of killer phase'): asked at each such phase's start
        self.whole_phases = frozenset(k[6:] for k in self.listens if k.startswith("whole:"))
        # the kinds of piece (fg, killer, minion, victim) some content answers leaving, crossing,
        # entering or moving for (engine/moves.py): the moves of the others ask and make nothing
        # some content of the game reads what caused the event it answers ('the cause is card ID'):
        # then the source resolving is kept as effects resolve (resolve.run, Scope.source)
        self.causes_read = any(isinstance(x, n.CausedBy)
                               for x in n.walk((killer, scenario, *self.items.values(), *self.cards.values())))
        # items whose cards carry tokens apart (issue #33 item 3): those some line names as a token holder
        # ('item ID'); their cards are numbered as they come into play (engine/copies.py), no other is
        self.copy_items = frozenset(
            x.name for x in n.walk((killer, scenario, final_girl, *self.items.values(), *self.cards.values()))
            if isinstance(x, n.TokenHolder) and x.kind == "item")
        self.movers_watched = frozenset(
            p for a in sources for e in (*(t.event for t in a.triggers), *(r.event for r in a.replacements),
                                         *(m.event for m in a.modifications))
            if isinstance(e, n.PieceEvent) and e.what in MOVE_EVENTS for p in self._movers(e.piece, scenario))
        self.no_board = not killer.board  # K6.1: bodies only form during the game; content decides the win
        self.absorbing = "absorbs" in self.rule_queries
        self.setup_killer = {su.id: self.board.index.get(su.killer_at, -1) for su in scenario.setups}
        self.bodies = {b.id: b for b in killer.bodies}  # declared bodies (K2.7, K3.1)
        formed = next((b for b in killer.bodies if b.formed), None)
        self.body_name = formed.name if formed is not None else killer.name  # bodies formed in play (K6.6)
        self.formed_body = formed.id if formed is not None else ""
        # victim kinds (issue #16 item 3): every one loaded (as minions), this game's as its modules leave them
        self.victim_kinds: dict[str, n.VictimKind] = {
            **getattr(ruleset, "victim_kinds", {}), **{v.id: v for h in (killer, scenario) for v in h.victim_kinds}}
        self.shielding = any(v.untargeted for v in self.victim_kinds.values())  # C9: some kind is not targeted
        # item and card zones (issue #16 item 6): the recipes offered in the Action phase
        self.recipes = (*killer.recipes, *scenario.recipes)
        # the Action menu reads every action's conditions at each decision: compiled once
        # … and, as a board's tags never change, the actions whose leading 'fg at tag' parts hold at each
        # location, with the rest of their conditions: (condition, usable, option), read at each decision
        placed = [_placed(a.cond) for a in self.actions]
        usables = [compile_optional(a.usable) for a in self.actions]
        self.actions_at = tuple(
            tuple((rest, use, o) for (tags, rest), use, o in zip(placed, usables, self.action_opts) if tags <= here)
            for here in self.board.tags)
        self.recipe_needs = tuple(frozenset(x.needs) for x in self.recipes)  # the Action menu's first test
        # S3.4: items with uses that some recipe needs: used up, they stay with her as ingredients
        self.ingredients = frozenset(i for x in self.recipes for i in x.needs if self.items[i].uses > 0)
        self.free_recipes = any(not x.needs for x in self.recipes)  # made from nothing: offered empty-handed too
        self.recipe_opts = tuple(Option(f"recipe:{x.id}", f"{x.name} ({x.time} time)" if x.time else f"{x.name} (free)")
                                 for x in self.recipes)
        # counters and tracks, holding areas, delayed blocks (engine/tracks.py)
        self.tracks = {t.id: t for t in (*killer.tracks, *scenario.tracks)}
        self.holdings = {h.id: h for h in (*killer.holdings, *scenario.holdings)}
        delayed: dict[Any, n.DelayedTrigger] = {}  # 'at start of next PHASE' blocks, by their line
        for x in n.walk((killer, scenario, final_girl, *self.cards.values(), *self.items.values())):
            if isinstance(x, n.DelayedTrigger):
                delayed.setdefault(x.span, x)
        self.delayed: tuple[n.DelayedTrigger, ...] = tuple(delayed.values())
        self.delayed_index = {x.span: i for i, x in enumerate(self.delayed)}
        self.delayed_kinds = tuple(f"{x.edge}:{x.phase}" for x in self.delayed)
        self.listens = self.listens | frozenset(self.delayed_kinds)
        self.shut_cache: dict[tuple[Any, str], frozenset[int]] = {}  # (barred paths, mover) -> path indices
        # pieces that travel with her (engine/conveyances.py): the scenario's, where each may go, the menu's options
        self.conveyances: tuple[n.Conveyance, ...] = scenario.conveyances
        self.conveyance_index = {c.id: i for i, c in enumerate(self.conveyances)}
        self.conveyance_enters = tuple(
            frozenset(i for i, tags in enumerate(self.board.tags) if not c.enters or tags & frozenset(c.enters))
            for c in self.conveyances)
        self.conveyance_never = tuple(frozenset(c.never_crosses) for c in self.conveyances)
        self.ride_opts: dict[tuple[object, ...], Option] = {}  # her moves with conveyances there (conveyances.py)

    def _movers(self, ref: n.PieceRef, scenario: n.Scenario) -> frozenset[str]:
        """The kinds of piece a piece of an event may be in this game: one named by its id is the
        kind its id declares (a minion kind, a victim kind, a conveyance of this scenario)."""
        if ref.kind == "minion" and ref.minion:
            if any(c.id == ref.minion for c in scenario.conveyances):
                return frozenset({"conveyance"})
            if ref.minion in self.minions:
                return frozenset({"minion"})
            return frozenset({"victim"})
        return n.pieces_of(ref)

    @property
    def ids(self) -> dict[str, Any]:
        """The setup; ``forced`` only when it is not the default, ``modules`` only when some are
        switched on (saves made before them stay equal)."""
        out = {"killer": self.killer.id, "scenario": self.scenario.id, "final_girl": self.fg.id,
               "difficulty": self.difficulty, "legendary": self.legendary, "tie_policy": self.tie_policy}
        if self.forced != "auto":
            out["forced"] = self.forced
        if self.modules:  # only when some are on (saves made before modules stay equal)
            out["modules"] = list(self.modules)
        return out

    def loc_name(self, i: int) -> str:
        return self.board.names[i] if 0 <= i < self.board.n else "off the board"


def _placed(cond: n.Condition | None) -> tuple[frozenset[str], CondFn | None]:
    """A condition as the tags its leading ``fg at tag`` parts need and the rest of it, compiled
    (None: nothing more): the Action menu offers an action only where the tags are."""
    if type(cond) is n.FgAtTag:
        return frozenset((cond.tag,)), None
    if type(cond) is n.AllOf:
        k = 0
        while k < len(cond.conds) and type(cond.conds[k]) is n.FgAtTag:
            k += 1
        if k:
            tags = frozenset(c.tag for c in cond.conds[:k] if isinstance(c, n.FgAtTag))  # (each one is)
            rest = cond.conds[k:]
            if not rest:
                return tags, None
            return tags, compile_condition(rest[0] if len(rest) == 1 else n.AllOf(cond.span, rest))
    return frozenset(), compile_optional(cond)
