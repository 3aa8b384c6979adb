"""``lastbreath play`` in a pseudo-terminal (pexpect), as a player at an 80×24 terminal sees it.

A whole game is played through the screen with a bot-like script of answers: the same game runs
in this process (same seed, same choices), so every answer is the key the screen should show for
the option the script wants, and every screen is checked against it: the tracks on screen, the
key next to its option, the keys kept after a purchase. Half-way the game is saved with
'save FILE' and quit; 'play --load FILE' resumes it at the same decision and plays it to the end.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter import screen
from lastbreath.interpreter.session import Session

pexpect = pytest.importorskip("pexpect")

if sys.platform == "win32":  # pragma: no cover
    pytest.skip("pseudo-terminals are POSIX", allow_module_level=True)

RS = load_ruleset()
SEED = 15  # a short game (4 rounds) in which the script buys cards every Planning phase
ROWS, COLS = 24, 80
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\r")
PROMPT = "\r\n> "
PAUSES = [screen.PAUSE_GO_ON, screen.PAUSE_MOVE]


def _exe() -> list[str]:
    exe = Path(sys.executable).with_name("lastbreath")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "lastbreath.interpreter"]


def spawn(*args: str, size: tuple[int, int] = (ROWS, COLS)):
    cmd = _exe() + ["play", *args]
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(NO_COLOR="1", TERM="xterm")
    child = pexpect.spawn(cmd[0], cmd[1:], dimensions=size, env=env, encoding="utf-8", timeout=120)  # a hang guard
    child.delaybeforesend = None  # answers as fast as a script can type
    return child


def quit_unsaved(child) -> None:
    """'q', and Enter at the offer to save: the game is left unsaved."""
    child.sendline("q")
    child.expect_exact(screen.ASK_SAVE)
    child.sendline("")
    child.expect(pexpect.EOF)


def plain(text: str) -> str:
    return ANSI.sub("", text)


class Player:
    """Drives the pty and a mirror session of the same game; returns each decision's screen."""

    def __init__(self, child, mirror: Session, size: tuple[int, int] = (ROWS, COLS)):
        self.child = child
        self.mirror = mirror
        self.keys = screen.Keys()
        self.pauses = 0
        self.rows, self.cols = size

    def screen(self) -> str:
        """Wait for the next decision (pressing Enter at each Killer-phase pause); its screen."""
        while True:
            i = self.child.expect_exact([PROMPT, *PAUSES, pexpect.EOF])
            if i == 0:
                text = self.child.before
                return plain(text.rsplit("\x1b[2J", 1)[-1])  # the screen drawn after the last clear
            if i == len(PAUSES) + 1:
                raise AssertionError(f"the game ended early:\n{plain(self.child.before)[-2000:]}")
            self.pauses += 1
            self.child.sendline("")

    def end(self) -> str:
        """Wait for the end of the game (pressing Enter at each pause); all that was printed since."""
        seen = ""
        while True:
            i = self.child.expect_exact([*PAUSES, pexpect.EOF])
            seen += self.child.before
            if i == len(PAUSES):
                return plain(seen)
            self.pauses += 1
            self.child.sendline("")

    def menu(self):
        return self.keys.menu(self.mirror.state, notes=False, at=len(self.mirror.history) - 1)

    def undo(self) -> None:
        self.mirror.undo()
        self.keys.forget_after(len(self.mirror.history) - 1)

    def answer(self, option_key: str, typed: str) -> None:
        self.child.sendline(typed)
        self.mirror.apply(option_key)


def choose(state, bought: dict) -> str:
    """The script: buy the last card offered (twice a round), otherwise the first option."""
    c = state.choice
    if c.kind == "buy":
        buys = [o.key for o in c.options if o.key.startswith("buy:")]
        if buys and bought.get(state.round, 0) < 2:
            bought[state.round] = bought.get(state.round, 0) + 1
            return buys[-1]
    return c.options[0].key


def check_screen(text: str, p: Player) -> None:
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    assert len(lines) <= p.rows - 1, text  # the whole screen fits, with the prompt below it
    assert all(len(ln) <= p.cols for ln in lines), text
    st = p.mirror.state
    assert lines[0].startswith(f"Round {st.round} · {st.phase.capitalize()} phase · seed {p.mirror.seed}"), text
    names = {st.game.cards[c].name for c in st.hand}
    for name in names:  # the hand: each card with its text (a short form at least), not its name alone
        assert re.search(rf"(^|\s){re.escape(name)}( x\d)?(  \S*\d\+?: |\n    \S)", text, re.M), (name, text)
    if not st.flipped:  # the slots' rewards in the header
        rewards = [screen._short(screen.render_effects(fx, screen._names(st))) for fx in st.game.fg.slots]
        assert all(f"{i} {r}" in text for i, r in enumerate(rewards, 1)), text
    fg = st.game.fg
    assert f"{fg.name} health {st.fg_health}/{fg.health}" in lines[1] and f"time {st.time}/" in lines[1], text
    for e in p.menu():  # every option beside its key (long labels may be cut with an ellipsis)
        assert re.search(rf"(^|\s){e.key} {re.escape(e.option.label[:12])}", text, re.M), (e, text)


def test_the_first_screen_at_80x24(snapshot):
    """One screen as the terminal shows it (fixed seed and size, no colour), kept as a snapshot;
    the same as screen_text draws for that state off a terminal."""
    child = spawn("--seed", str(SEED))
    p = Player(child, Session(RS, seed=SEED))
    text = "\n".join(line.rstrip() for line in p.screen().split("\n")).rstrip("\n")
    quit_unsaved(child)
    assert text == snapshot
    lines = [("" if e.kind == "phase" else "  ") + e.render() for e in p.mirror.events]
    title = f"{p.mirror.state.game.fg.name} vs {p.mirror.state.game.killer.name} in " \
            f"{p.mirror.state.game.scenario.name} (normal) · seed {SEED}"
    parts = screen.Parts(p.mirror.state, title, lines, p.keys.menu(p.mirror.state), "")
    assert text == screen.screen_text(parts, COLS, ROWS)


@pytest.mark.parametrize("size", [(24, 80), (30, 100)], ids=["80x24", "100x30"])
def test_a_whole_game_in_a_terminal_with_a_purchase_a_save_and_a_resume(tmp_path, size):
    """Every screen checked against a mirror of the game: the numbers the same all game long and
    after --load (the mirror's numbers are kept across the load), the seed in the header, every card
    of the hand with its text, the slots' rewards."""
    save = tmp_path / "half.json"
    child = spawn("--seed", str(SEED), size=size)
    p = Player(child, Session(RS, seed=SEED), size)
    bought: dict = {}
    first = p.screen()
    assert plain(child.before).startswith("seed: 15")
    check_screen(first, p)
    typed_a_name = undone = checked_purchase = False
    choices = 0
    while not p.mirror.over:
        state = p.mirror.state
        menu = p.menu()
        want = choose(state, bought)
        entry = next(e for e in menu if e.option.key == want)
        if state.choice.kind == "buy" and want.startswith("buy:") and not checked_purchase:
            # stable keys: after a purchase every other card keeps its number on the screen
            p.answer(want, entry.key)
            text = p.screen()
            check_screen(text, p)
            name = state.game.cards[want[4:]].name
            assert f"buys {name}" in text
            after = {e.option.key: e.key for e in p.menu()}
            for e in menu:
                if e.option.key in after:
                    assert after[e.option.key] == e.key
                    assert re.search(rf"(^|\s){e.key} {re.escape(e.option.label[:12])}", text, re.M)
            checked_purchase = True
            choices += 1
            continue
        if not typed_a_name and state.choice.kind == "action" and want.startswith("play:"):
            typed = " ".join(w[:3] for w in entry.option.label.split())  # "pla wal": words' prefixes
            assert screen.pick(typed, menu)[0] == want
            typed_a_name = True
        else:
            typed = entry.key
        p.answer(want, typed)
        choices += 1
        if choices == 3 and not undone:  # undo once, then answer again
            text = p.screen()
            child.sendline("u")
            p.undo()
            text = p.screen()
            assert "undone: back to" in text
            check_screen(text, p)
            undone = True
            continue
        if state.round == 2 and p.mirror.state.round == 2 and p.mirror.state.phase == "planning" \
                and not save.exists():
            text = p.screen()
            check_screen(text, p)
            child.sendline(f"save {save}")
            child.expect_exact("saved the game to")
            quit_unsaved(child)
            child.close()
            assert child.exitstatus == 0
            # resume: the same decision in a new terminal, every option with the number it had before
            # the save (the mirror keeps its numbers: check_screen compares them with the screen's)
            child = spawn("--load", str(save), size=size)
            kept = p.keys
            p = Player(child, p.mirror, size)
            p.keys = kept
            text = p.screen()
            assert plain(child.before).startswith(f"seed: {SEED}")
            check_screen(text, p)
            continue
        if not p.mirror.over:
            check_screen(p.screen(), p)
    assert save.exists() and checked_purchase and typed_a_name and undone
    end = p.end()
    who = "the killer wins" if p.mirror.state.result == "killer" else "the Final Girl wins"
    assert f"result: {who}" in end
    child.close()
    assert child.exitstatus == 0
    assert p.pauses > 0  # the Killer phases of the resumed half waited for Enter


def test_the_killer_phase_pauses_with_the_target_and_path_before_the_move():
    """C9.2–C9.4 on the screen: the killer's target, why, and its path, then it waits for Enter."""
    child = spawn("--seed", "5")
    child.expect_exact(PROMPT)
    child.sendline("end")  # end the Action phase
    child.expect_exact(PROMPT)
    child.sendline("stop")  # stop buying
    child.expect_exact(screen.PAUSE_GO_ON)  # the killer action
    child.sendline("")
    child.expect_exact(screen.PAUSE_MOVE)
    shown = plain(child.before)
    assert "target The Hollow Gate" in shown and "decided by the nearest" in shown
    assert "path: Ferryman's Landing → Willow Ford → Bramble Thicket → The Hollow Gate" in shown
    assert "moves to" not in shown  # not yet: it waits
    child.sendline("")
    child.expect_exact(screen.PAUSE_GO_ON)
    assert "the killer moves to Willow Ford" in plain(child.before)
    child.sendline("")
    child.expect_exact(PROMPT)
    quit_unsaved(child)
    child.close()
    assert child.exitstatus == 0


def test_help_rule_card_and_a_bad_answer_on_the_screen():
    child = spawn("--seed", "5", "--no-color")
    child.expect_exact(PROMPT)
    for typed, expect in (("?", "Commands:"), ("rule C9.4", "C9.4 "),
                          ("card walk", "Great success (2+): Lose 1 time. Move up to 2."),
                          ("walk", "could be"), ("99", "no option 99 here")):
        child.sendline(typed)
        child.expect_exact(expect)
        child.expect_exact(PROMPT)
    quit_unsaved(child)
    assert "\x1b[3" not in child.before  # no colour codes with --no-color
    child.close()
    assert child.exitstatus == 0


def test_the_prompt_edits_lines_recalls_them_and_completes_words():
    """A prompt like a shell's (readline): the arrow keys move in the line (not '^[[D' typed in),
    the up arrow recalls the last answer, Tab completes an option's word (issue 35)."""
    child = spawn("--seed", "5")
    child.expect_exact(PROMPT)
    child.send("ed" + "\x1b[D" + "n" + "\r")  # 'ed', left arrow, 'n': 'end'
    child.expect_exact("Buy cards")  # the Action phase ended: the Planning menu
    child.expect_exact(PROMPT)
    child.send("\x1b[A" + "\r")  # up arrow: 'end' again, not an option here
    child.expect_exact("no option matches 'end'")
    child.expect_exact(PROMPT)
    assert "^[[" not in plain(child.before)
    child.send("sto" + "\t" + "\r")  # Tab: 'stop' (stop buying)
    child.expect_exact(screen.PAUSE_GO_ON)  # the Killer phase: buying stopped
    child.sendline("")
    while child.expect_exact([PROMPT, *PAUSES]) > 0:  # Enter at each of its pauses, to the next decision
        child.sendline("")
    quit_unsaved(child)
    child.close()
    assert child.exitstatus == 0


def test_quit_offers_to_save_and_the_saved_game_resumes(tmp_path):
    """'quit' without --save offers to save the game; the file it names resumes with --load at the
    same decision, its options with the same numbers (issue 35: quit lost the game)."""
    save = tmp_path / "left.json"
    child = spawn("--seed", str(SEED))
    p = Player(child, Session(RS, seed=SEED))
    p.screen()
    for _ in range(3):
        want = choose(p.mirror.state, {})
        p.answer(want, next(e.key for e in p.menu() if e.option.key == want))
        p.screen()
    before = [(e.key, e.option.label) for e in p.menu()]
    child.sendline("quit")
    child.expect_exact(screen.ASK_SAVE)
    child.sendline(str(tmp_path / "no-such-folder" / "x.json"))  # a folder that is not there: asked again
    child.expect_exact("cannot save to")
    child.expect_exact(screen.ASK_SAVE)
    child.sendline(str(save))
    child.expect_exact("saved the game to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and save.is_file()
    child = spawn("--load", str(save))
    kept = p.keys
    p = Player(child, p.mirror)
    p.keys = kept
    text = p.screen()
    check_screen(text, p)
    assert [(e.key, e.option.label) for e in p.menu()] == before
    quit_unsaved(child)
