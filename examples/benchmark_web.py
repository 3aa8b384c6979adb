"""How fast a game plays in the browser, and how long the server takes per choice.

    python examples/benchmark_web.py [--choices 200] [--chromium /usr/bin/chromium] [--shot docs/web.png]

Starts `lastbreath web --port 0`, opens the page in headless Chromium (Playwright) and answers
choices by clicking the first option's button (a new game when one ends) until --choices choices
were made: the time of the whole, and per choice (a click, game.apply, game.screen, game.log and
the page drawn again). Then the server's own time per choice, in this process without a browser
or a socket: game.apply then game.screen through serve.Server.handle_line, as the page asks them.
No test asserts these numbers (the budget of issue #39: a 200-choice game under 30 s in the
browser, the server under 20 ms a choice); they are reported.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time


def browser(choices: int, chromium: str, shot: str) -> dict:
    from playwright.sync_api import sync_playwright

    proc = subprocess.Popen([sys.executable, "-m", "lastbreath.interpreter", "web", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", proc.stdout.readline()).group(0)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = b.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{url}?seed=7")
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
            games, made, shot_taken = 1, 0, False
            start = time.perf_counter()
            while made < choices:
                if page.get_attribute("body", "data-over") == "1":
                    page.fill("#ng-seed", str(7 + games))
                    page.click("#ng-start")
                    page.wait_for_selector("body[data-over='0'][data-choices='0']", timeout=60_000)
                    games += 1
                before = page.get_attribute("body", "data-choices")
                page.locator("#options button.opt").first.click()
                page.wait_for_function(f"document.body.dataset.choices !== '{before}' && !document.body.dataset.busy",
                                       timeout=60_000)
                made += 1
                if shot and not shot_taken and page.locator("#steps .step .intent div").count() and made > 20:
                    page.screenshot(path=shot)
                    shot_taken = True
            seconds = time.perf_counter() - start
            b.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return {"choices": made, "games": games, "seconds": round(seconds, 2), "ms_per_choice": round(1000 * seconds / made, 1)}


def server(choices: int) -> dict:
    from lastbreath.dsl import load_ruleset
    from lastbreath.interpreter.serve import Server

    s = Server(load_ruleset())

    def call(method, params):
        return json.loads(s.handle_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})))

    seed, times = 7, []
    gid = call("game.new", {"seed": seed})["result"]["game"]
    call("game.screen", {"game": gid})
    while len(times) < choices:
        view = call("game.state", {"game": gid})["result"]
        if view["over"]:
            seed += 1
            call("game.close", {"game": gid})
            gid = call("game.new", {"seed": seed})["result"]["game"]
            continue
        key = view["choice"]["options"][0]["key"]
        t = time.perf_counter()
        call("game.apply", {"game": gid, "key": key})
        call("game.screen", {"game": gid})
        times.append(time.perf_counter() - t)
    times.sort()
    return {"choices": len(times), "mean_ms": round(1000 * sum(times) / len(times), 2),
            "median_ms": round(1000 * times[len(times) // 2], 2), "p95_ms": round(1000 * times[int(len(times) * .95)], 2),
            "max_ms": round(1000 * times[-1], 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--choices", type=int, default=200)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--shot", default="", help="a screenshot of the page at a Killer phase, to this PNG")
    args = ap.parse_args()
    print(json.dumps({"server": server(args.choices), "browser": browser(args.choices, args.chromium, args.shot)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
