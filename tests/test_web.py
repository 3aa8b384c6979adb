"""`lastbreath web` in a real browser: Playwright driving the system's headless Chromium.

A server is started on a free loopback port (``lastbreath web --port 0``, its first line the
address); the page is played by clicking to the end of a game, undone, saved and loaded after a
reload, stepped through in the debug panel, asked for the killer's next Killer phase as a table
companion; the design page marks an error at its line and clears it when fixed; every bundled
scenario's board is kept as a DOM snapshot, and a screenshot of each goes to the folder named at
the end of the run (LASTBREATH_WEB_SHOTS, else a temporary one).

No browser is downloaded: the Chromium of the system's package manager (.ci/run installs it) at
/usr/bin/chromium. Without it, or without the web and webtest extras, these tests are skipped with
the reason, except under CI (CI=true), where they must run. No time is asserted: a timeout here is
a guard against a hang (the speed of a game in the browser is measured by examples/benchmark_web.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("LASTBREATH_CHROMIUM", "/usr/bin/chromium")
HANG = 60_000  # ms: a guard against a hang, not a measure


def _missing() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the browser tests need Playwright: pip install 'lastbreath[webtest]'"
    from lastbreath.interpreter.web import missing

    why = missing()
    if why:
        return why
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; LASTBREATH_CHROMIUM names another)"
    return ""


WHY = _missing()
if WHY and os.environ.get("CI"):
    raise RuntimeError(f"CI must run the browser tests: {WHY}")
pytestmark = pytest.mark.skipif(bool(WHY), reason=WHY or "ready")

SHOTS: list[str] = []


@pytest.fixture(scope="module")
def url():
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-m", "lastbreath.interpreter", "web", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://\S+", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield found.group(0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = Path(os.environ.get("LASTBREATH_WEB_SHOTS") or tmp_path_factory.mktemp("web-shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture()
def page(browser, url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(HANG)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()
    assert not errors, errors


def start(page, url, query="seed=7"):
    page.goto(f"{url}?{query}")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#error").is_hidden(), page.inner_text("#error")


def settled(page, before: str) -> None:
    """Wait until the page has drawn the state after a choice (its count of choices changed)."""
    page.wait_for_function(f"document.body.dataset.choices !== '{before}' && !document.body.dataset.busy")


def click_choice(page) -> None:
    """Answer the pending choice by clicking: a location on the board when the choice can be
    answered there (a move), else the first option's button."""
    before = page.get_attribute("body", "data-choices")
    legal = page.locator("#board g.loc.legal")
    if legal.count():
        legal.first.click()
        if page.get_attribute("body", "data-choices") == before and page.locator("#options .opt.hint").count():
            page.locator("#options .opt.hint").first.click()  # several options there: the one the board lit
    else:
        page.locator("#options button.opt").first.click()
    settled(page, before)


def test_a_whole_game_by_clicking_then_undo(page, url, shots):
    start(page, url)
    assert page.locator("#board g.loc").count() >= 2
    n = 0
    moved_on_board = 0
    while page.get_attribute("body", "data-over") != "1":
        if page.locator("#board g.loc.legal").count():
            moved_on_board += 1
        click_choice(page)
        n += 1
        assert n < 1000
    assert page.locator("#result").is_visible()
    assert re.search(r"survives|wins", page.inner_text("#result"))
    assert moved_on_board, "no choice was answered on the board"
    path = shots / "game-over.png"
    page.screenshot(path=str(path), full_page=True)
    SHOTS.append(str(path))
    made = int(page.get_attribute("body", "data-choices"))
    page.click("#undo")
    settled(page, str(made))
    assert page.get_attribute("body", "data-choices") == str(made - 1)
    assert page.get_attribute("body", "data-over") == "0"
    assert page.locator("#options button.opt").count() >= 1


def test_save_then_load_after_a_reload(page, url, tmp_path):
    start(page, url, "seed=11")
    for _ in range(5):
        click_choice(page)
    where = page.inner_text("#where")
    options = page.locator("#options button.opt").evaluate_all("bs => bs.map(b => b.dataset.key)")
    with page.expect_download() as got:
        page.click("#save")
    saved = tmp_path / "game.json"
    got.value.save_as(saved)
    assert json.loads(saved.read_text())["format"] == "lastbreath-save"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.get_attribute("body", "data-choices") == "0"
    page.set_input_files("#load", str(saved))
    settled(page, "0")
    assert page.inner_text("#where") == where
    assert page.locator("#options button.opt").evaluate_all("bs => bs.map(b => b.dataset.key)") == options
    page.click("#undo")  # the history came with the save
    settled(page, "5")


def test_debug_panel_steps_through_past_states_and_the_bot_plays(page, url):
    start(page, url, "seed=3")
    page.click("#bot-one")
    settled(page, "0")
    page.click("#bot-one")
    settled(page, "1")
    page.click("#debug summary")
    page.wait_for_selector("#dbg-tree details.node")
    assert page.locator("#log li").count() > 0
    page.click("#dbg-back")
    page.wait_for_function("document.getElementById('dbg-at').textContent.startsWith('choice 1 of 2')")
    assert page.locator("#options button.opt").first.is_disabled()  # a past state is looked at, not played
    page.click("#dbg-fwd")
    page.wait_for_function("document.getElementById('dbg-at').textContent.startsWith('choice 2 of 2')")
    assert page.locator("#options button.opt").first.is_enabled()
    page.click("#bot-end")
    page.wait_for_selector("body[data-over='1']")
    assert page.locator("#log li.ev-phase").count() > 0
    assert page.locator("#log .rule-id").count() > 0


def test_the_killers_intent_is_shown_with_its_path(page, url):
    start(page, url, "seed=7")
    for _ in range(200):  # to the first transition with a Killer phase in it
        if page.locator("#steps .step .intent div").count():
            break
        click_choice(page)
    assert page.locator("#steps .step .intent").first.inner_text().startswith("targeting")


def test_companion_asks_what_the_killer_does(page, url):
    start(page, url, "seed=1")
    page.click("#tab-companion")
    page.wait_for_selector("#cp-board g.loc")
    locs = page.locator("#cp-board g.loc")
    page.check("input[name=cp-tool][value=killer]")
    locs.nth(0).click()
    page.check("input[name=cp-tool][value=victim]")
    locs.nth(1).click()
    first = locs.nth(0).get_attribute("data-loc")
    assert f"killer at {first}" in page.inner_text("#cp-text")
    page.click("#cp-ask-killer")
    page.wait_for_selector("#cp-answer .step li")
    assert page.locator("#cp-answer .error").count() == 0, page.inner_text("#cp-answer")
    assert "[C" in page.inner_text("#cp-answer")  # every step names its rule


def test_design_page_marks_an_error_at_its_line_and_clears_it(page, url):
    start(page, url, "seed=1")
    page.click("#tab-design")
    page.wait_for_selector("body[data-design-ok='1']")
    page.select_option("#ds-file", "killers/big-bad-wolf.fg")
    page.wait_for_function("document.getElementById('ds-text').value.includes('killer big-bad-wolf')")
    page.wait_for_selector("body[data-design-ok='1']")
    assert page.locator("#ds-render .rendered").count() > 0
    text = page.input_value("#ds-text")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "lose 1 time" in ln)
    page.fill("#ds-text", text.replace("lose 1 time", "loose 1 time", 1))
    page.wait_for_selector(f"#ds-gutter .ln.error[data-line='{line}']")
    assert page.get_attribute("body", "data-design-ok") == "0"
    assert "E207" in page.inner_text("#ds-diags")
    page.fill("#ds-text", text)
    page.wait_for_selector("body[data-design-ok='1']")
    assert page.locator("#ds-gutter .ln.error").count() == 0
    page.fill("#ds-games", "20")
    page.click("#ds-sim")
    page.wait_for_function("document.getElementById('ds-progress').value === 20")
    assert "95% interval" in page.inner_text("#ds-rate")
    page.click("#ds-play")
    page.wait_for_selector("#page-play.on")
    page.wait_for_selector("#options button.opt")


def _scenarios():
    from lastbreath.dsl import load_ruleset

    return sorted(load_ruleset().scenarios)


@pytest.mark.parametrize("scenario", _scenarios() if not WHY else ["none"])
def test_board_of_each_bundled_scenario(page, url, shots, snapshot, scenario):
    start(page, url, f"scenario={scenario}&seed=1")
    board = page.locator("#board")
    assert board.locator("g.loc").count() >= 2
    path = shots / f"board-{scenario}.png"
    board.screenshot(path=str(path))
    SHOTS.append(str(path))
    # the DOM of the board: locations, paths (tags, closed), pieces, what can be clicked
    html = board.evaluate("b => b.outerHTML")
    html = re.sub(r"><", ">\n<", html)
    assert html == snapshot
