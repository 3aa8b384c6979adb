"""Diagnostics: what the parser and checker report, and how a person reads it.

Codes are stable and kept in one catalogue (``CATALOGUE``: code, title, explanation, a bad
example and its fix; ``CODES`` maps code -> title); tests assert codes and positions, not prose.
E1xx are syntax errors, E2xx checking errors, W2xx warnings, E3xx runtime and choice errors (the
``code`` of the exceptions below), E4xx mistakes in positions and rulings (``lastbreath try`` and
``verify``). docs/errors.md is generated from the catalogue
(``lastbreath explain-error --markdown > docs/errors.md``); ``lastbreath explain-error CODE``
prints one entry.
"""

from __future__ import annotations

import functools
from typing import Callable, Optional

import attrs


@attrs.frozen
class ErrorInfo:
    """One entry of the catalogue: a stable code, what it means, a short bad example and its fix.

    ``lang`` is the language of the example and the fix: "fg" (content, checked by the tests:
    the example gives this code, the fix gives no diagnostic), or "text" for a description
    (inputs that cannot be shown as content, and E3xx errors raised while playing), or "position"
    (a position or rulings file, checked like "fg" by the tests)."""

    code: str
    title: str
    explanation: str
    example: str
    fix: str
    severity: str = "error"
    lang: str = "fg"

    def explain(self) -> str:
        """The entry as plain text, as ``lastbreath explain-error CODE`` prints it."""
        def block(text: str) -> str:
            return "\n".join("    " + ln if ln else "" for ln in text.strip("\n").splitlines())
        return (f"{self.code} ({self.severity}): {self.title}\n\n{_wrap(self.explanation)}\n\n"
                f"Example:\n\n{block(self.example)}\n\nFix:\n\n{block(self.fix)}\n")


def _wrap(text: str, width: int = 96) -> str:
    import textwrap
    return "\n".join(textwrap.fill(p, width) for p in text.split("\n\n"))


CATALOGUE: tuple[ErrorInfo, ...] = (
    # --- E1xx: syntax (the file cannot be read as lines of words and blocks) ---------------------
    ErrorInfo(
        "E100", "the file cannot be read as text",
        "Content files are UTF-8 text. The file could not be opened, holds a NUL byte, or holds bytes "
        "that are not UTF-8 (a picture, an archive, a file saved as UTF-16 or Latin-1). The line is "
        "where the first bad byte is. Content is read only from regular files inside the folder it "
        "is loaded from: a link that leads out of it, a pipe or a device is refused unread, and no "
        "line of it is ever shown.",
        "rules.fg saved by an editor as UTF-16, or a .png renamed to .fg",
        "save the file as UTF-8 text (a byte-order mark is allowed)", lang="text"),
    ErrorInfo(
        "E101", "unexpected character",
        "A character that cannot start a word, a number, a string or a block. Names use the ASCII "
        "letters a-z, digits, '-' and '_'; any other text (apostrophes, accents, punctuation) "
        "goes in double quotes. Single and curly quotes are not quotes.",
        """\
card shout {
  name 'Shout!'
  cost 1
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout!"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E102", "a block or symbol where it cannot stand",
        "A '{' block follows the words of its line: it cannot start a line (put '{' at the end of "
        "the line above); inside '( )' (a condition's all { … } in a place's 'where') it stands on one "
        "line, its parts separated by ';'.",
        """\
card shout
{
  name "Shout"
  cost 1
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E103", "unbalanced brace or parenthesis",
        "A '{' or '(' that is never closed, or a '}' or ')' with nothing open to close. A '( )' group "
        "must close on its own line; a missing '}' is reported where the file ends, naming the '{' "
        "that is still open.",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E104", "unterminated string",
        'A string starts with " and must end with " on the same line. A " inside a string is '
        'written `\\"` and a backslash `\\\\`.',
        """\
card shout {
  name "Shout
  cost 1
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E105", "a limit of the checker: too large, too long, too deep, too many problems",
        "Limits that keep checking fast and safe for content from anyone: a file is at most "
        "2 000 000 bytes and 50 000 words, symbols and line ends, a pack at most 200 000 in all its "
        "files, a line at most 10 000 characters, and blocks and groups nest at most 64 deep. After "
        "100 problems in one file (1 000 in all) the rest are not shown: a note with this code says "
        "so, and how many more there are where the check went on to the end (positions and "
        "rulings do). A message quotes at most 400 characters of the input.",
        "a generated file of 3 MB, or 'fail { { { … } } }' nested 100 deep",
        "split the content into several files; flatten the nesting", lang="text"),
    ErrorInfo(
        "E106", "misplaced 'else'",
        "'else' belongs to the 'if' line: '} else {' must stay on one line, since a newline ends "
        "the 'if' line.",
        """\
card brood {
  name "Brood"
  cost 1
  success {
    if fear at least 5 { heal 1 }
    else { lower fear 1 }
  }
}
""",
        """\
card brood {
  name "Brood"
  cost 1
  success {
    if fear at least 5 { heal 1 } else { lower fear 1 }
  }
}
"""),
    ErrorInfo(
        "E107", "a number cannot start a name",
        "A name starts with a letter or '_'; '3rd-wind' reads as the number 3 followed by the name "
        "'rd-wind'. Spell the number out or move it after a letter.",
        """\
card 3rd-wind {
  name "Third Wind"
  cost 1
  fail { lose 1 time }
}
""",
        """\
card third-wind {
  name "Third Wind"
  cost 1
  fail { lose 1 time }
}
"""),
    # --- E2xx: checking (the lines do not make valid content) ---------------------------------
    ErrorInfo(
        "E200", "unknown declaration",
        "A top-level line starts with a word that is no declaration. Declarations are card, item, "
        "final_girl, killer, scenario, player_board, minion and pack.",
        """\
crad shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E201", "unknown line in this block",
        "The leading word of the line is not one this block accepts (or an unknown trigger, "
        "replacement or table row). The message suggests the nearest line the block knows; "
        "dsl/LANGUAGE.md lists them all.",
        """\
card shout {
  name "Shout"
  costs 1
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E202", "missing required line",
        "The declaration lacks a line it cannot do without (a card's cost or outcomes, a killer's "
        "finale), or a line lacks its part (an 'if' without a block, a 'choose' with one option).",
        """\
card shout {
  name "Shout"
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E203", "duplicate id",
        "Two declarations of the same kind share an id. Ids are shared by every loaded pack, the "
        "bundled content included, so a fan pack cannot reuse the id of a bundled card or killer.",
        """\
card shout { name "Shout"; cost 1; fail { lose 1 time } }
card shout { name "Loud Shout"; cost 2; fail { lose 1 time } }
""",
        """\
card shout { name "Shout"; cost 1; fail { lose 1 time } }
card loud-shout { name "Loud Shout"; cost 2; fail { lose 1 time } }
"""),
    ErrorInfo(
        "E204", "unknown name",
        "A name that nothing declares: an item, location, mode, minion, token, deck, phase, card "
        "kind or pack. The message suggests the nearest declared name.",
        """\
item shovel { name "Shovel" }
card dig {
  name "Dig"
  cost 1
  success { gain item shovle }
}
""",
        """\
item shovel { name "Shovel" }
card dig {
  name "Dig"
  cost 1
  success { gain item shovel }
}
"""),
    ErrorInfo(
        "E205", "wrong value type",
        "The line's value has the wrong form: a string where a number goes, a name where a "
        "number goes, too many or too few values.",
        """\
card shout {
  name "Shout"
  cost "two"
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 2
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E206", "line given twice",
        "A line that a block takes once (a name, a cost, an outcome) is given twice. The message "
        "names the line of the first.",
        """\
card shout {
  name "Shout"
  cost 1
  cost 2
  fail { lose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 2
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E207", "unknown effect phrase",
        "An effect line (or a rule) that matches no phrase of the language. The message suggests "
        "the nearest phrase; the phrases are listed in dsl/LANGUAGE.md, sections 3, 4 and 7.",
        """\
card shout {
  name "Shout"
  cost 1
  fail { loose 1 time }
}
""",
        """\
card shout {
  name "Shout"
  cost 1
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E208", "unknown condition",
        "The condition of an 'if', 'win when', 'lose when' or 'link … when' matches no condition "
        "phrase. The message suggests a phrase that starts with the same word.",
        """\
card brood {
  name "Brood"
  cost 1
  success { if fear above 3 { heal 1 } }
}
""",
        """\
card brood {
  name "Brood"
  cost 1
  success { if fear at least 4 { heal 1 } }
}
"""),
    ErrorInfo(
        "E209", "value out of range",
        "A number the rules cannot use: a negative cost, count or amount, a die face outside 1-6, "
        "a reversed range ('fear range 9 0'), a zone outside the fear range, a killer's starting "
        "fear outside the player board's fear range, rescues other than 4, 5 or 6. Or a number above "
        "the limit of its kind, which keeps every game small and quick whatever the content: any "
        "number lies within ±999 999, a number in an effect line is at most 100, 'repeat' at most "
        "20 (and repeats inside repeats at most 100 times in all), 'copies' at most 20; "
        "dsl/LANGUAGE.md, 'Limits', lists every limit.",
        """\
card windfall {
  name "Windfall"
  cost -3
  fail { lose 1 time }
}
""",
        """\
card windfall {
  name "Windfall"
  cost 3
  fail { lose 1 time }
}
"""),
    ErrorInfo(
        "E210", "inconsistent content",
        "Each line is fine but together they do not make a playable game: a fear value in no zone "
        "or in two, a scenario without an exit, a location no path reaches, a panic number used "
        "twice at one location, fewer slots than rescues, a named pile no item starts in or smaller "
        "than its row, a recipe making an item that never lies on the table, an 'open path' or 'close "
        "path' between two locations of the scenario that no path joins, a deck an identity is drawn "
        "from whose cards do not each name a body (a minion kind), a catch-up with nothing to resolve "
        "again.",
        """\
player_board gappy {
  side normal {
    time reset 6; time range -1 10
    fear range 0 9
    zone 0 2 dice 3; zone 4 6 dice 2; zone 7 9 dice 1
  }
  last breath 0 0 1
}
""",
        """\
player_board gappy {
  side normal {
    time reset 6; time range -1 10
    fear range 0 9
    zone 0 3 dice 3; zone 4 6 dice 2; zone 7 9 dice 1
  }
  last breath 0 0 1
}
"""),
    ErrorInfo(
        "E211", "unknown location tag",
        "A location or a condition names a tag that the scenario's 'tags' line does not declare "
        "(or no path has the tag).",
        """\
scenario tiny-woods {
  name "Tiny Woods"
  tags dark
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search; tags drak }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
}
""",
        """\
scenario tiny-woods {
  name "Tiny Woods"
  tags dark
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search; tags dark }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
}
"""),
    ErrorInfo(
        "E212", "a name from a pack that is not in 'depends'",
        "A fan pack uses an item, minion or other name declared by another fan pack that its "
        "pack.fg does not list in 'depends'. The bundled pack 'core' is always available.",
        "pack.fg of the folder night-terrors: pack night-terrors { name \"Night Terrors\" }\n"
        "a card in it: success { gain item lucky-lantern }   (declared by the pack 'more-items')",
        "pack night-terrors { name \"Night Terrors\"; depends core more-items }", lang="text"),
    ErrorInfo(
        "E213", "a form of another slot type",
        "Every slot takes one type of expression: a condition (after if, when … if, while, win when), "
        "an amount (a number in parentheses), a place (a location, or a selector in parentheses), an "
        "event (after when, instead of, reduce …) or a piece. The text reads as an expression of "
        "another type; the message names both and the hint lists what the slot takes.",
        """\
card brood {
  name "Brood"
  cost 1
  success { if count victims at here { heal 1 } }
}
""",
        """\
card brood {
  name "Brood"
  cost 1
  success { if count victims at here at least 1 { heal 1 } }
}
"""),
    ErrorInfo(
        "E214", "an amount or a place that cannot be read",
        "An amount or a place in parentheses (or the set of a 'for each') does not read as one: a word "
        "is not expected where it stands. The error points at the word; the hint names the nearest "
        "word expected there, or what may come.",
        """\
card brood {
  name "Brood"
  cost 1
  success { lose (count victims near here) time }
}
""",
        """\
card brood {
  name "Brood"
  cost 1
  success { lose (count victims at here) time }
}
"""),
    ErrorInfo(
        "E215", "an event its piece never has",
        "A trigger, a replacement or a modification answers an event that never happens to its piece: "
        "a victim never takes damage (an attack kills it), the Final Girl never kills, only a killer "
        "forms, appears or vanishes, and 'would be defeated' is asked only before a defeat, for a "
        "replacement. Such a line would check clean and never resolve. Every piece moves, enters, "
        "leaves and crosses, whatever moves it; a conveyance (a piece that travels with her) does nothing "
        "else. The hint names the pieces the event happens to.",
        """\
item charm {
  name "Charm"
  when victim takes damage { heal 1 }
}
""",
        """\
item charm {
  name "Charm"
  when victim dies { heal 1 }
}
"""),
    ErrorInfo(
        "E230", "a module changes what is not there",
        "A module's 'replace KIND ID { … }' or 'remove KIND ID' names something the scenario or killer "
        "of its section (or, at the top of the module, the loaded content) does not have: a misspelt id, "
        "or a part of another scenario. In a 'for every scenario' section, at least one of them must "
        "have it (the change is made where it is). The hint names the nearest id.",
        """\
scenario tiny-woods {
  name "Tiny Woods"
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
  item axe { name "Axe"; weapon hands 2 range 0 bonus 1 }
  item saw { name "Saw"; weapon hands 1 range 0 bonus 1 }
}
module keen-edge {
  name "Keen Edge"
  for scenario tiny-woods { replace item aex { name "Keen Axe"; weapon hands 2 range 0 bonus 2 } }
}
""",
        """\
scenario tiny-woods {
  name "Tiny Woods"
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
  item axe { name "Axe"; weapon hands 2 range 0 bonus 1 }
  item saw { name "Saw"; weapon hands 1 range 0 bonus 1 }
}
module keen-edge {
  name "Keen Edge"
  for scenario tiny-woods { replace item axe { name "Keen Axe"; weapon hands 2 range 0 bonus 2 } }
}
"""),
    ErrorInfo(
        "W201", "a trigger that can never fire here",
        "A warning: the trigger is fine, but nothing ever fires it where it stands. 'when gained' "
        "fires only on an item; 'when revealed' only on a finale or a dark power; 'when drawn' only "
        "on an event. Warnings are printed but do not make 'lastbreath check' fail.",
        """\
item lucky-charm {
  name "Lucky Charm"
  when revealed { heal 1 }
}
""",
        """\
item lucky-charm {
  name "Lucky Charm"
  when gained { heal 1 }
}
""", severity="warning"),
    ErrorInfo(
        "W202", "a number the game never reads",
        "A warning: a bloodlust level prints a number by a name ('level move 1 damage 1 spawn 2'), "
        "but nothing in the loaded content reads it ('bloodlust spawn' in an amount). The engine "
        "itself reads only 'move' and 'damage'; any other number is there for the content to use. "
        "Either read it where it matters, or drop it.",
        """killer howler {
  name "Howler"; health 4; fear 2
  bloodlust { level move 1 damage 1 attacks 2; at max { lose 1 time } }
  finale f { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d { name "D" }
}
""",
        """killer howler {
  name "Howler"; health 4; fear 2
  bloodlust { level move 1 damage 1 attacks 2; at max { lose 1 time } }
  finale f {
    name "F"; back { killer hunts fg moves 1 attacks (bloodlust attacks) }; face { killer hunts fg moves 1 attacks 1 }
  }
  dark_power d { name "D" }
}
""", severity="warning"),
    ErrorInfo(
        "W203", "a line that may ask more work than the game allows between two decisions",
        "A warning: the line nests sets of locations or pieces (a selector inside a selector's "
        "'where' or 'with most', 'for each' inside 'for each', 'repeat' around them), and each level "
        "multiplies the work: counted with every set as 12 locations, it comes past the game's work "
        "budget of 50 000 units between two decisions (dsl/limits.py). In play it ends the game with "
        "E313 on most boards. Nest fewer levels, or narrow the sets ('adjacent to', 'with victims').",
        """killer swarm {
  name "Swarm"; health 4; fear 2
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  finale f { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d { name "D" }
  at start of upkeep {
    for each any { for each any { for each any { for each any { for each any { lose 0 time } } } } }
  }
}
""",
        """killer swarm {
  name "Swarm"; health 4; fear 2
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  finale f { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d { name "D" }
  at start of upkeep { for each any with victims { lose 0 time } }
}
""", severity="warning"),
    ErrorInfo(
        "W230", "two modules change the same thing",
        "A warning: two modules replace or remove the same declaration (the same item, card, rules "
        "group …). Each may be played alone, but a game with both is refused, since neither can say "
        "which one wins. Fine for two alternatives (two versions of one variant); otherwise change "
        "different things, or make them one module.",
        """\
scenario tiny-woods {
  name "Tiny Woods"
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
  item axe { name "Axe"; weapon hands 2 range 0 bonus 1 }
  item saw { name "Saw"; weapon hands 1 range 0 bonus 1 }
}
module keen-edge {
  name "Keen Edge"
  for scenario tiny-woods { replace item axe { name "Keen Axe"; weapon hands 2 range 0 bonus 2 } }
}
module dull-edge {
  name "Dull Edge"
  for scenario tiny-woods { replace item axe { name "Dull Axe"; weapon hands 2 range 0 bonus 0 } }
}
""",
        """\
scenario tiny-woods {
  name "Tiny Woods"
  location gate { name "Gate"; exit }
  location shed { name "Shed"; search }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
  item axe { name "Axe"; weapon hands 2 range 0 bonus 1 }
  item saw { name "Saw"; weapon hands 1 range 0 bonus 1 }
}
module keen-edge {
  name "Keen Edge"
  for scenario tiny-woods { replace item axe { name "Keen Axe"; weapon hands 2 range 0 bonus 2 } }
}
module dull-edge {
  name "Dull Edge"
  for scenario tiny-woods { replace item saw { name "Dull Saw"; weapon hands 1 range 0 bonus 0 } }
}
""", severity="warning"),
    ErrorInfo(
        "W240", "a token taken but never placed",
        "A warning: a token line takes tokens of a type from somewhere ('spend N token T from …', "
        "'remove N token T from …', 'move N token T from …'), but nothing in its scenario or killer "
        "ever puts one anywhere (a setup card's 'tokens T at …', 'place token T at …', 'gain N token "
        "T …'): they never leave the supply, so the line never finds one.",
        """\
scenario bare-dock {
  name "Bare Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2 }
  token rope { name "Rope"; kinds rope; supply rope 3 }
  action tie { name "Tie up"; time 1; effect { spend 1 token rope from here to supply { heal 1 } } }
}
""",
        """\
scenario bare-dock {
  name "Bare Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2; tokens rope at shed }
  token rope { name "Rope"; kinds rope; supply rope 3 }
  action tie { name "Tie up"; time 1; effect { spend 1 token rope from here to supply { heal 1 } } }
}
""", severity="warning"),
    ErrorInfo(
        "W241", "a victim kind nothing makes",
        "A warning: a 'victim KIND { … }' is declared, but no line turns a victim into it ('turn N "
        "random victims into KIND', 'turn N victims at PLACE into KIND'): no victim of that kind is "
        "ever on the board.",
        """\
scenario pale-dock {
  name "Pale Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2 }
  victim stranger { name "Stranger"; cannot be rescued }
}
""",
        """\
scenario pale-dock {
  name "Pale Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2 }
  victim stranger { name "Stranger"; cannot be rescued }
  when game starts { turn 1 random victims into stranger }
}
""", severity="warning"),
    ErrorInfo(
        "W250", "a map drawn in part",
        "A warning: some locations of a scenario say where they are drawn ('at X Y') and others do "
        "not. A front end draws a map from its content only when every location has a point; "
        "otherwise the whole map is drawn from a layout computed from its paths, and the points "
        "given are not used. Give each location 'at X Y', or none.",
        """\
scenario cliff-walk {
  name "Cliff Walk"
  location gate { name "Gate"; exit; at 0 100 }
  location shed { name "Shed"; search }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
}
""",
        """\
scenario cliff-walk {
  name "Cliff Walk"
  location gate { name "Gate"; exit; at 0 100 }
  location shed { name "Shed"; search; at 200 0 }
  path gate (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at gate; victims at shed 2 }
}
""", severity="warning"),
    ErrorInfo(
        "E216", "a token's face or kind where it cannot be read",
        "Tokens in the supply and the token discard lie face down for good, and her collection lies "
        "face up: a line that reads the kinds or faces of the supply or the discard ('token T KIND in "
        "supply', 'count tokens T face down in discard'), reveals tokens there or in her collection, or "
        "reads or puts a face-down token in her collection would check clean and never do anything. "
        "Kinds are read where tokens may lie face up: at a place, on 'item ID', 'card CARD', 'items', "
        "'collection' or 'it' (a face-down token's kind is read by nothing until it is revealed).",
        """\
scenario dim-dock {
  name "Dim Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2; tokens clue face down at shed }
  token clue { name "Clue"; kinds true false; supply true 2 false 2 }
  when fg enters shed { reveal tokens clue in supply }
}
""",
        """\
scenario dim-dock {
  name "Dim Dock"
  location pier { name "Pier"; exit }
  location shed { name "Shed"; search }
  path pier (1 2 3) -- (1 2 3) shed
  setup first { killer at shed; fg at pier; victims at shed 2; tokens clue face down at shed }
  token clue { name "Clue"; kinds true false; supply true 2 false 2 }
  when fg enters shed { reveal tokens clue at here }
}
"""),
    # --- E3xx: while playing (raised by the engine, the API, replays and 'serve') -------------
    ErrorInfo(
        "E300", "the game cannot be set up or cannot go on",
        "Raised as RulesError: an unknown killer, scenario, Final Girl, difficulty or tie policy "
        "for a new game, no player board loaded, or a game that does not reach a decision within "
        "the step or choice limit. 'serve' answers 1002 for an unknown id.",
        'api.new_game(rs, killer="the-slashr")      (or game.new {"killer": "the-slashr"})',
        'api.new_game(rs, killer="the-slasher")     (an id that \'lastbreath content\' lists)', lang="text"),
    ErrorInfo(
        "E301", "an illegal choice",
        "Raised as IllegalChoice: the answer is not one of the options of the pending choice, or "
        "the game is over. The game is left exactly as it was. 'serve' answers 1001 with the "
        "options offered.",
        'game.apply {"game": "g1", "key": "play:fly-away"}',
        'game.apply {"game": "g1", "key": "play:walk"}      (a key from the choice\'s "options")',
        lang="text"),
    ErrorInfo(
        "E302", "a save or message that cannot be loaded",
        "Raised as SaveError: a save that is not JSON, truncated or corrupt, of another format "
        "version, made with other content (the content hashes differ), or whose choices are not "
        "legal when replayed; a snapshot (serialize.from_json) whose values the game cannot have (a "
        "health above the Final Girl's, a location off the board, a result in the middle of a game) "
        "or whose checkpoint and answers do not lead to it (an edited checkpoint): the message names "
        "the first field at fault. Numbers beyond JSON (NaN, 1e400, 5 000 digits) and text that is "
        "not Unicode are refused too. Nothing is half-loaded. 'serve' answers 1003.",
        "lastbreath replay game.json      (game.json saved before the content was edited)",
        "replay with the content the save was made with (--content), or play the game again",
        lang="text"),
    ErrorInfo(
        "E303", "content with errors cannot be played",
        "Raised as ContentError by load_ruleset (and so by every command that plays) when the "
        "content has errors; it carries every diagnostic. 'lastbreath check' prints them.",
        "lastbreath play --content my-pack      (my-pack has an E207)",
        "lastbreath check --content my-pack, fix each diagnostic, then play", lang="text"),
    ErrorInfo(
        "E310", "effects set each other off without end",
        "Raised as RulesError while playing: an effect started a chain of effects (a trigger, a "
        "replacement, a bloodlust level, the top of the track) that went more than 60 deep, which "
        "only content that sets itself off can do. The error points at the effect that went one "
        "level too deep.",
        """\
killer loop {
  name "Loop"; health 4; fear 2
  bloodlust { level move 1 damage 1; at max { raise fear 1 } }
  # at maximum fear, raising fear raises bloodlust, whose top raises fear again
  when victim dies { raise fear 9 }
}
""",
        """\
killer loop {
  name "Loop"; health 4; fear 2
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  when victim dies { raise fear 1 }
}
""", lang="text"),
    ErrorInfo(
        "E311", "the game does not reach a decision",
        "Raised as RulesError while playing: thousands of steps ran without the player being asked "
        "anything, so the game would never stop by itself (content whose phases end at once, round "
        "after round). Give the player something to decide, or a way for the game to end.",
        "a Final Girl with no cards and content that skips every Action phase",
        "content that lets the Action phase happen (or ends the game)", lang="text"),
    ErrorInfo(
        "E312", "the game went past its budget of pieces or tokens",
        "Raised as RulesError while playing: content put more than 1 000 minions and victims on "
        "the board together, or declared token supplies of more than 1 000 tokens together "
        "(dsl/limits.py). Each number is within its own limit, but they add up: spawns and "
        "victims placed every round, or many kinds of minions or tokens. The error points at "
        "the line that went past the budget.",
        "when game starts { repeat 20 { repeat 5 { place 100 victims at killer-location } } }",
        "when game starts { place 3 victims at killer-location }", lang="text"),
    ErrorInfo(
        "E313", "the game went past its work budget before the next decision",
        "Raised as RulesError while playing: between two decisions of the player, content asked the "
        "engine for more than 50 000 units of work (dsl/limits.py: one for each block run and each "
        "effect in it, each location a selector looks at, each piece a set goes over, each trigger "
        "looked at when something happens). Each line is fine alone; nested, they multiply: a "
        "selector inside a selector's 'with most' or 'where', 'for each' inside 'for each', a "
        "trigger whose block sets it off again many times. The bundled films never ask more than "
        "a hundred. The error points at the line that went past the budget.",
        "at start of upkeep { for each any { for each any { for each any { for each any { lose 0 time } } } } }",
        "at start of upkeep { for each any with victims { lose 0 time } }", lang="text"),
    # --- E4xx: positions and rulings (lastbreath try / verify, docs/positions.md) ---------------
    ErrorInfo(
        "E400", "not one position or ruling block",
        "A position file is one 'position { … }' block and a rulings file holds 'ruling ID { … }' "
        "blocks; nothing else stands at the top of the file (comments aside). A ruling needs its "
        "rule ids ('rules \"C5.3\"') and its position.",
        """\
phase action
position {
  fear 3
}
""",
        """\
position {
  fear 3
  phase action
}
""", lang="position"),
    ErrorInfo(
        "E401", "unknown line in a position or ruling",
        "A line starts with a word that no position line (or ruling step, or expected fact) starts "
        "with. The hint names the closest one; docs/positions.md lists them all.",
        """\
position {
  helth 2
}
""",
        """\
position {
  health 2
}
""", lang="position"),
    ErrorInfo(
        "E402", "unknown id in a position or ruling",
        "A killer, scenario, Final Girl, location, card, item, minion, token, deck, mode, flag or rule "
        "id that the loaded content (or the rules reference) does not have, or that is not part of "
        "this game (a terror card of another killer). The hint names the closest id.",
        """\
position {
  phase actoin
}
""",
        """\
position {
  phase action
}
""", lang="position"),
    ErrorInfo(
        "E403", "a number out of range in a position",
        "Every number of a position is bounded by the game: health by the Final Girl's starting "
        "health (C3.5), fear and time by the player board's tracks, dice by 1 to 6 (and at most 100 "
        "of them), a hand by the hand limit, minions by their tokens, bloodlust by the track.",
        """\
position {
  dice 4 7
}
""",
        """\
position {
  dice 4 6
}
""", lang="position"),
    ErrorInfo(
        "E404", "a position line of the wrong shape",
        "The line has a word missing, a word too many, a number where a name belongs, or a name "
        "where a number belongs. The message shows the line's shape.",
        """\
position {
  dice four
}
""",
        """\
position {
  dice 4
}
""", lang="position"),
    ErrorInfo(
        "E405", "a position line given twice",
        "A fact that has one value (her fear, the phase, the victims at one location) is given by "
        "two lines. Keep one.",
        """\
position {
  fear 3
  fear 4
}
""",
        """\
position {
  fear 4
}
""", lang="position"),
    ErrorInfo(
        "E406", "an impossible position",
        "The facts cannot stand together in a game: more copies of a card than the deck has, more "
        "weapons than two hands hold (C6.5), a non-weapon in hand, more minions than their tokens, "
        "a token the supply no longer has, a pile at a location that is not a search location, "
        "'killer' for a killer without a board (its bodies are 'body' lines).",
        """\
position {
  hand walk walk walk
}
""",
        """\
position {
  hand walk walk
}
""", lang="position"),
    ErrorInfo(
        "E407", "the game cannot go on from a position",
        "The position passed every check, but the engine stopped when it ran on from it: a "
        "combination of facts the rules never reach. The message names what stopped it.",
        "a position whose facts no game of the content reaches",
        "change the facts the message names (or report the position with the message)", lang="text"),
)

CATALOGUE_BY_CODE: dict[str, ErrorInfo] = {e.code: e for e in CATALOGUE}
# code -> title: every code a diagnostic or an engine error may carry
CODES: dict[str, str] = {e.code: e.title for e in CATALOGUE}


def lookup(code: str) -> ErrorInfo | None:
    """The entry for a code, written 'E207', 'e207' or '207' (E, then W); None if there is none."""
    c = code.strip().upper()
    if c.isdigit():
        return CATALOGUE_BY_CODE.get("E" + c) or CATALOGUE_BY_CODE.get("W" + c)
    return CATALOGUE_BY_CODE.get(c)


def errors_markdown() -> str:
    """docs/errors.md, generated from the catalogue (a test keeps the file up to date)."""
    out = ["# Error codes", "",
           "<!-- generated from dsl/diagnostics.py (CATALOGUE): "
           "lastbreath explain-error --markdown > docs/errors.md -->", "",
           "Every diagnostic of `lastbreath check` and every error the engine raises carries a stable "
           "code: E1xx syntax, E2xx checking, W2xx warnings (printed, but `check` still passes), E3xx "
           "while playing, E4xx positions and rulings (`lastbreath try`, `lastbreath verify`). "
           "`lastbreath explain-error CODE` prints an entry below. A diagnostic reads",
           "", "    path:line:col: error[CODE]: message (hint)", "        the source line",
           "        ^~~~ under the place", "",
           "| code | severity | meaning |", "|---|---|---|"]
    out += [f"| [{e.code}](#{e.code.lower()}) | {e.severity} | {e.title} |" for e in CATALOGUE]
    for e in CATALOGUE:
        fence = "fg" if e.lang in ("fg", "position") else "text"
        out += ["", f"## {e.code}", "", f"**{e.title}** ({e.severity})", "", e.explanation, "",
                "Example:", "", f"```{fence}", e.example.rstrip("\n"), "```", "",
                "Fix:", "", f"```{fence}", e.fix.rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


@attrs.frozen
class Span:
    """Where a piece of content came from: file, 1-based line and column, end line and column."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NO_SPAN = Span("<engine>", 0, 0, 0, 0)
MAX_REPORTED = 100  # diagnostics shown for one file; a note (E105) says when more were found
MAX_REPORTED_ALL = 1000  # diagnostics shown in all, whatever the number of files; a note says the rest
MAX_TEXT = 400  # characters of a diagnostic's message or hint: a quote of input text is cut (…)


def bounded(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters with '…': what a diagnostic quotes of its input is never
    longer (a 500 kB line misspelled is not repeated in each message, nor in a reply)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


@functools.lru_cache(maxsize=8)
def _source_lines(source: str) -> tuple[str, ...]:
    """A source's lines as the parser counts them (only '\\n' ends a line), for many diagnostics
    of one file without splitting it each time."""
    return tuple(ln.removesuffix("\r") for ln in source.split("\n"))


def cap_per_file(diags: list[Diagnostic], complete: bool = False) -> list[Diagnostic]:
    """At most MAX_REPORTED diagnostics of each file (in the order given), then one E105 note, and
    at most MAX_REPORTED_ALL in all, then one note more; the 'did you mean' of those kept is worked
    out now (``Diagnostic.settled``), and of no other. ``complete``: ``diags`` are all there are
    (the note says how many more), not the first ones of a check that stopped early."""
    count: dict[str, int] = {}
    for d in diags:
        count[d.span.path] = count.get(d.span.path, 0) + 1
    seen: dict[str, int] = {}
    out: list[Diagnostic] = []
    kept = 0
    for i, d in enumerate(diags):
        n = seen[d.span.path] = seen.get(d.span.path, 0) + 1
        if kept >= MAX_REPORTED_ALL:
            more = f"and {len(diags) - i} more" if complete else "and more"
            out.append(Diagnostic(d.span, "E105", f"{MAX_REPORTED_ALL} problems in all are shown, {more} are not",
                                  "fix those and check again"))
            break
        if n <= MAX_REPORTED:
            out.append(d.settled())
            kept += 1
        elif n == MAX_REPORTED + 1:
            extra = count[d.span.path] - MAX_REPORTED
            more = f"and {extra} more" if complete else "and more"
            out.append(Diagnostic(d.span, "E105", f"the first {MAX_REPORTED} problems of this file are shown, "
                                  f"{more} are not", "fix those and check again"))
    return out


def settle_shown(diags: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics in the order given, the suggestions of the first MAX_REPORTED of each file
    by position worked out (only those can be shown, ``cap_per_file``) and the others dropped: a
    file of 12 000 unknown lines costs 100 suggestions, not 12 000."""
    ranked = sorted(range(len(diags)), key=lambda i: (diags[i].span.path, diags[i].span.line, diags[i].span.col))
    shown: set[int] = set()
    count: dict[str, int] = {}
    for i in ranked:
        path = diags[i].span.path
        count[path] = count.get(path, 0) + 1
        if count[path] <= MAX_REPORTED:
            shown.add(i)
    return [d.settled() if i in shown else d.unsuggested() for i, d in enumerate(diags)]


SHOW_WIDTH = 100  # characters of a source line shown under a diagnostic


@attrs.frozen
class Diagnostic:
    """One problem in content, with a stable code and an optional hint."""

    span: Span
    code: str
    message: str = attrs.field(converter=bounded)  # (a quote of input text: a bounded prefix)
    hint: str = attrs.field(default="", converter=bounded)
    severity: str = "error"
    # a 'did you mean' not worked out yet (it costs ~1 ms): ``settled`` puts it in ``hint``
    suggest: Optional[Callable[[], str]] = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    def settled(self) -> Diagnostic:
        """This diagnostic with its suggestion, if it has one still to work out, as its hint."""
        if self.suggest is None:
            return self
        return attrs.evolve(self, hint=self.suggest() or self.hint, suggest=None)

    def unsuggested(self) -> Diagnostic:
        """This diagnostic without the suggestion still to work out (it will not be shown)."""
        return self if self.suggest is None else attrs.evolve(self, suggest=None)

    def format(self, source: str | None = None) -> str:
        """Render as ``path:line:col: error[CODE]: message`` with the line and a caret.

        A long source line is shown as a window around the column; tabs before the column are
        kept under it so that the caret lines up."""
        if self.suggest is not None:
            return self.settled().format(source)
        head = f"{self.span}: {self.severity}[{self.code}]: {self.message}"
        if self.hint:
            head += f" ({self.hint})"
        if source is None:
            return head
        lines = _source_lines(source)
        if not 1 <= self.span.line <= len(lines):
            return head
        text = lines[self.span.line - 1]
        col = max(1, min(self.span.col, len(text) + 1))
        width = 1
        if self.span.end_line == self.span.line and self.span.end_col > col:
            width = min(self.span.end_col - col, SHOW_WIDTH)
        start = 0
        if len(text) > SHOW_WIDTH:  # a window of the line around the column
            start = max(0, min(col - 1 - SHOW_WIDTH // 2, len(text) - SHOW_WIDTH))
            shown = text[start:start + SHOW_WIDTH]
            text = ("…" if start else "") + shown + ("…" if start + SHOW_WIDTH < len(lines[self.span.line - 1]) else "")
            pad = " " if start else ""
        else:
            pad = ""
        before = lines[self.span.line - 1][start:col - 1]
        caret = pad + "".join(c if c == "\t" else " " for c in before) + "^" + "~" * (width - 1)
        return f"{head}\n    {text}\n    {caret}"

    def to_json(self) -> dict:
        if self.suggest is not None:
            return self.settled().to_json()
        return {
            "path": self.span.path,
            "line": self.span.line,
            "col": self.span.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


class RulesError(Exception):
    """Base of every error the engine raises on purpose; ``code`` is its catalogue code.

    An error raised while playing content (E31x) carries a ``diagnostic``: the code, the span of
    the content line at fault (when there is one), the message and a hint, printed with the
    line and a caret like a content diagnostic (``format``)."""

    code = "E300"
    diagnostic: Diagnostic | None = None

    def format(self, sources: dict[str, str] | None = None) -> str:
        """The error as a person reads it: with its diagnostic, the source line and a caret."""
        d = self.diagnostic
        if d is None:
            return f"error[{self.code}]: {self}"
        return d.format((sources or {}).get(d.span.path))


def runtime_error(code: str, message: str, hint: str = "", span: Span | None = None) -> RulesError:
    """A RulesError raised while playing, with its own E3xx code and the content line at fault."""
    where = span or NO_SPAN
    text = f"{span}: {message}" if span is not None else message
    err = RulesError(text + (f" ({hint})" if hint else ""))
    err.code = code
    err.diagnostic = Diagnostic(where, code, message, hint)
    return err


class ContentError(RulesError):
    """Content with errors: carries the diagnostics."""

    code = "E303"

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        first = self.diagnostics[0].format() if self.diagnostics else "content error"
        more = len(self.diagnostics) - 1
        last = self.diagnostics[-1] if self.diagnostics else None
        if more > 0 and last is not None and last.code == "E105" and last.message.endswith("are not"):
            super().__init__(f"{first} ({last.message})")  # capped (cap_per_file): its note says how many more
        else:
            super().__init__(first + (f" (and {more} more)" if more > 0 else ""))


class IllegalChoice(RulesError, ValueError):
    """An option that the pending choice does not offer; the state is untouched."""

    code = "E301"


class SaveError(RulesError):
    """A save or protocol message that cannot be loaded."""

    code = "E302"

