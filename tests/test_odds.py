"""Exact fear-check odds (interpreter/odds.py, docs/rules.md C2) and ``lastbreath odds``."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F

import pytest

from lastbreath.interpreter.cli import main
from lastbreath.interpreter.odds import check_dice, expected_discards, outcome_odds, success_odds


def brute(dice: int, hand: int, tiers=(0, 1, 2)) -> dict[int, F]:
    """The same odds by listing all 6^dice rolls (C2.2: 5–6 succeed; 3–4 convert for two cards each)."""
    ts = sorted(set(tiers) | {0})
    out = {t: F(0) for t in ts}
    for faces in itertools.product(range(1, 7), repeat=dice):
        s = sum(f >= 5 for f in faces) + min(sum(f in (3, 4) for f in faces), hand // 2)
        out[max(t for t in ts if t <= s)] += F(1, 6 ** dice)
    return out


# --- hand-computed values ---------------------------------------------------------------------
def test_one_die_without_converting():
    assert outcome_odds(1, 0) == {0: F(2, 3), 1: F(1, 3), 2: F(0)}


def test_two_dice_without_converting():
    assert outcome_odds(2, 0) == {0: F(4, 9), 1: F(4, 9), 2: F(1, 9)}


def test_one_die_with_two_cards_in_hand():
    assert outcome_odds(1, 2)[1] == F(2, 3)  # a 3–4 converts: 4 of 6 faces
    assert outcome_odds(1, 3)[1] == F(2, 3)  # the odd card does not help
    assert outcome_odds(1, 1)[1] == F(1, 3)  # one card cannot pay for a conversion


def test_two_dice_with_two_cards_converts_only_one():
    # great needs two successes: 5–6 on both (1/9), or one 5–6 and one 3–4 converted (2·1/3·1/3)
    got = outcome_odds(2, 2)
    assert got == {0: F(1, 9), 1: F(5, 9), 2: F(3, 9)}
    assert outcome_odds(2, 4) == {0: F(1, 9), 1: F(4, 9), 2: F(4, 9)}


def test_best_tier_at_three():
    got = outcome_odds(3, 0, (0, 1, 2, 3))
    assert got == {0: F(8, 27), 1: F(12, 27), 2: F(6, 27), 3: F(1, 27)}
    assert outcome_odds(3, 0, (0, 1, 2))[2] == F(7, 27)  # without a best tier, 3 successes are great


def test_tier_zero_always_counted():
    assert outcome_odds(1, 0, (1, 2)) == {0: F(2, 3), 1: F(1, 3), 2: F(0)}


def test_success_distribution_is_binomial_without_converting():
    assert success_odds(3, 0) == {0: F(8, 27), 1: F(12, 27), 2: F(6, 27), 3: F(1, 27)}


def test_expected_discards():
    assert expected_discards(1, 0) == 0
    assert expected_discards(1, 2) == F(2, 3)  # a 3–4 (1/3) costs two cards
    # two dice, great is the top tier: convert when it raises the tier reached
    assert expected_discards(2, 4) == 2 * (F(2, 9) + F(2, 9)) + 4 * F(1, 9)


# --- properties -------------------------------------------------------------------------------
@pytest.mark.parametrize("dice", range(1, 6))
@pytest.mark.parametrize("hand", [0, 1, 2, 4, 9])
def test_matches_listing_every_roll(dice, hand):
    for tiers in ((0, 1, 2), (0, 1, 2, 3)):
        assert outcome_odds(dice, hand, tiers) == brute(dice, hand, tiers)


@pytest.mark.parametrize("dice", [1, 2, 3, 7, 20, 60])
@pytest.mark.parametrize("hand", [0, 2, 5, 40])
def test_sums_to_one_exactly(dice, hand):
    assert sum(outcome_odds(dice, hand, (0, 1, 2, 3)).values()) == 1
    assert sum(success_odds(dice, hand).values()) == 1


def test_more_dice_never_lower_the_chance_of_a_success():
    for hand in (0, 2, 6):
        at_least = [1 - outcome_odds(k, hand)[0] for k in range(1, 15)]
        assert at_least == sorted(at_least)
        great = [outcome_odds(k, hand)[2] for k in range(1, 15)]
        assert great == sorted(great)


def test_more_cards_never_lower_the_chance_of_a_success():
    for dice in (1, 3, 5):
        at_least = [1 - outcome_odds(dice, h)[0] for h in range(0, 12)]
        assert at_least == sorted(at_least)


def test_check_dice():
    assert check_dice(3) == 3
    assert check_dice(2, 1) == 3
    assert check_dice(1, 0, 0, True, True) == 3  # C2.5: both last breaths stack
    assert check_dice(1, -1) == 1 and check_dice(0) == 1 and check_dice(1, -3, -1) == 1  # C2.4


def test_bad_input():
    with pytest.raises(ValueError):
        outcome_odds(2, -1)
    with pytest.raises(ValueError):
        outcome_odds(-1, 0)
    with pytest.raises(ValueError):
        outcome_odds(2, 0, (-1,))


# --- lastbreath odds --------------------------------------------------------------------------
def odds_json(capsys, *argv) -> dict:
    assert main(["odds", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_one_zone(capsys):
    data = odds_json(capsys, "walk", "--fear", "8", "--hand", "2")
    (check,) = data["checks"]
    assert check["dice"] == 1 and check["base_dice"] == 1  # the normal side: fear 7–9 rolls 1 die
    by = {o["tier"]: o for o in check["outcomes"]}
    assert list(by) == ["fail", "success", "great"]
    assert by["success"]["without_converting"] == {"p": pytest.approx(1 / 3), "fraction": "1/3"}
    assert by["success"]["with_converting"]["fraction"] == "2/3"
    assert by["great"]["without_converting"]["fraction"] == "0"
    assert check["at_least_success"]["with_converting"]["fraction"] == "2/3"


def test_cli_every_zone_and_card_dice(capsys):
    data = odds_json(capsys, "critical-blow", "--hand", "0")
    assert [(c["fear_low"], c["fear_high"], c["dice"]) for c in data["checks"]] == [(0, 2, 4), (3, 6, 3), (7, 9, 2)]
    tiers = [o["tier"] for o in data["checks"][0]["outcomes"]]
    assert tiers == ["fail", "success", "great", "best"]  # Critical Blow has a best tier (C2.3)
    for c in data["checks"]:
        for key in ("without_converting", "with_converting"):
            assert sum(F(o[key]["fraction"]) for o in c["outcomes"]) == 1


def test_cli_dice_and_last_breaths(capsys):
    data = odds_json(capsys, "walk", "--dice", "1", "--fg-last-breath", "--killer-last-breath", "--hand", "0")
    assert data["checks"][0]["dice"] == 3
    by = {o["tier"]: o["without_converting"]["fraction"] for o in data["checks"][0]["outcomes"]}
    assert by == {"fail": "8/27", "success": "4/9", "great": "7/27"}
    data = odds_json(capsys, "walk", "--dice", "0")
    assert data["checks"][0]["dice"] == 1  # at least one die (C2.4)


def test_cli_extreme_side(capsys):
    data = odds_json(capsys, "walk", "--difficulty", "extreme", "--fear", "1")
    assert data["difficulty"] == "extreme" and data["checks"][0]["dice"] == 2


def test_cli_default_hand_is_the_starting_hand_less_the_card(capsys):
    assert odds_json(capsys, "walk")["hand"] == 5  # six cards start in hand


def test_cli_text(capsys):
    assert main(["odds", "planning", "--fear", "0", "--hand", "4"]) == 0
    out = capsys.readouterr().out
    assert "Fear 0: 3 dice\n" in out
    assert "Best success (3+)" in out and "1/27" in out
    assert "At least a success" in out and "Converting discards" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["odds", "wlak"], "did you mean 'walk'"),
    (["odds", "close-call"], "reroll card"),
    (["odds", "walk", "--fear", "10"], "off the normal side's fear track"),
    (["odds", "walk", "--difficulty", "hard"], "unknown difficulty"),
    (["odds", "walk", "--hand", "-1"], "--hand"),
    (["odds", "walk", "--dice", "-2"], "--dice"),
])
def test_cli_usage_errors(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_fear_and_dice_exclusive(capsys):
    assert main(["odds", "walk", "--fear", "1", "--dice", "2"]) == 2
    assert "not allowed" in capsys.readouterr().err
