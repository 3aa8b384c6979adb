"""``lastbreath fuzz`` stopped before the end reports what it checked (issue 42): cut off by
``timeout`` (SIGTERM) or Ctrl-C it printed nothing; now the games played so far are summed up, and
``--stop-after SECONDS`` stops it on purpose."""

from __future__ import annotations

import os
import signal

from lastbreath.interpreter import fuzz
from lastbreath.interpreter.cli import main


def test_a_fuzz_run_past_its_time_plays_no_more_games_and_reports_those_played(rs, monkeypatch):
    played = []
    real = fuzz.play_checked

    def counted(*a, **k):
        played.append(1)
        return real(*a, **k)
    monkeypatch.setattr(fuzz, "play_checked", counted)
    clock = iter(range(0, 10_000, 10))  # each reading of the clock ten seconds later than the last
    monkeypatch.setattr(fuzz.time, "perf_counter", lambda: float(next(clock)))
    data = fuzz.run_fuzz(rs, games=20, jobs=1, stop_after=25)
    assert data["stopped"] == "time" and data["played"] == len(played) == 2 and data["games"] == 20
    text = "\n".join(fuzz.format_report(data))
    assert "stopped at the time limit (--stop-after): 2 of the 20 games were played and checked" in text
    assert "clean so far" in text


def test_sigterm_during_a_fuzz_run_prints_the_summary_of_the_games_checked(rs, monkeypatch, capsys):
    """As ``timeout`` does: SIGTERM while the third game is played."""
    real = fuzz.play_checked
    calls = []

    def then_terminated(rs_, setup, bot, i, *a):
        calls.append(i)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(rs_, setup, bot, i, *a)
    monkeypatch.setattr(fuzz, "play_checked", then_terminated)
    code = main(["fuzz", "--games", "10", "--jobs", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 143
    assert "stopped by SIGTERM: 2 of the 10 games were played and checked" in out
    assert "clean so far" in out
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is the command's only


def test_ctrl_c_during_a_fuzz_run_reports_too(rs, monkeypatch):
    real = fuzz.play_checked
    calls = []

    def interrupted(*a):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a)
    monkeypatch.setattr(fuzz, "play_checked", interrupted)
    data = fuzz.run_fuzz(rs, games=10, jobs=1)
    assert data["stopped"] == "interrupted" and data["played"] == 1
    assert "stopped by an interrupt (Ctrl-C): 1 of the 10 games" in "\n".join(fuzz.format_report(data))
