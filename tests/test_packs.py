"""Fan content packs: pack.fg, the pack of every declaration, shared ids, 'depends', --content on
every command that loads content, and the example pack examples/fan_killer."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from lastbreath.dsl import bundled_paths, load_content, nodes as n, parse_text
from lastbreath.dsl.build import build_file
from lastbreath.interpreter import api
from lastbreath.interpreter.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
FAN = ROOT / "examples" / "fan_killer"
FAN_ID = "tallow-man"

ITEM = 'item {id} {{ name "A Thing"; uses 1; use time 1 {{ heal 1 }} }}\n'
CARD_USING = ('card {id} {{ name "Use It"; cost 1; fail {{ }}; success {{ gain item {item} }}; '
              'great {{ gain item {item} }} }}\n')


def pack(folder: Path, pid: str | None, files: dict[str, str], depends: str = "") -> Path:
    """A pack folder: a pack.fg (unless pid is None) and the given files."""
    folder.mkdir(parents=True, exist_ok=True)
    if pid is not None:
        dep = f"; depends {depends}" if depends else ""
        (folder / "pack.fg").write_text(f'pack {pid} {{ name "Pack {pid}"; version "1.0"; credit "us"{dep} }}\n',
                                        encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def load(*folders: Path):
    return load_content([*bundled_paths(), *folders])


def codes(diags) -> list[str]:
    return [d.code for d in diags]


# --- the pack declaration ---------------------------------------------------------------------
def test_pack_declaration_builds_a_pack_node():
    lines, diags = parse_text('pack my-pack { name "Mine"; version "1.2"; credit "A. Fan"; depends core other }\n',
                              "pack.fg")
    assert diags == []
    decls, refs, diags = build_file(lines, "pack.fg")
    assert diags == []
    (p,) = decls
    assert isinstance(p, n.Pack)
    assert (p.id, p.name, p.version, p.credit, p.depends) == ("my-pack", "Mine", "1.2", "A. Fan", ("core", "other"))
    assert [(r.kind, r.name) for r in refs] == [("pack", "core"), ("pack", "other")]


def test_pack_declaration_lines_are_checked():
    lines, _ = parse_text('pack p { name "P"; versoin "1" }\n', "pack.fg")
    _, _, diags = build_file(lines, "pack.fg")
    assert codes(diags) == ["E201"] and "did you mean 'version'" in diags[0].hint


def test_bundled_content_is_the_core_pack():
    rs, diags = load_content()
    assert diags == []
    assert list(rs.packs) == ["core"]
    for table in ("cards", "items", "final_girls", "killers", "scenarios", "player_boards", "minions"):
        assert set(rs.pack_of[table]) == set(getattr(rs, table))
        assert set(rs.pack_of[table].values()) <= {"core"}
    assert rs.pack("killers", next(iter(rs.killers))) == "core"


def test_every_declaration_knows_its_pack(tmp_path):
    folder = pack(tmp_path / "things", "things", {"a.fg": ITEM.format(id="fan-thing")})
    rs, diags = load(folder)
    assert diags == []
    assert rs.pack("items", "fan-thing") == "things"
    assert rs.packs["things"].version == "1.0" and rs.packs["things"].credit == "us"
    assert rs.pack("killers", FAN_ID) == ""  # not loaded


def test_a_folder_without_pack_fg_is_a_pack_named_after_it(tmp_path):
    folder = pack(tmp_path / "My_Fan Pack", None, {"a.fg": ITEM.format(id="fan-thing")})
    rs, diags = load(folder)
    assert diags == []
    assert rs.pack("items", "fan-thing") == "my-fan-pack"
    assert rs.packs["my-fan-pack"].depends == ("core",)


def test_files_in_subfolders_belong_to_the_pack_fg_above_them(tmp_path):
    folder = pack(tmp_path / "big", "big", {})
    (folder / "items").mkdir()
    (folder / "items" / "a.fg").write_text(ITEM.format(id="fan-thing"), encoding="utf-8")
    rs, diags = load(folder / "items" / "a.fg")  # even a file given alone: its pack.fg is found and read
    assert diags == []
    assert rs.pack("items", "fan-thing") == "big" and "big" in rs.packs


def test_one_folder_may_hold_several_packs(tmp_path):
    pack(tmp_path / "a", "pack-a", {"a.fg": ITEM.format(id="thing-a")})
    pack(tmp_path / "b", "pack-b", {"b.fg": CARD_USING.format(id="use-a", item="thing-a")}, depends="pack-a")
    rs, diags = load(tmp_path)
    assert diags == []
    assert rs.pack("items", "thing-a") == "pack-a" and rs.pack("cards", "use-a") == "pack-b"


def test_files_given_twice_load_once(tmp_path):
    folder = pack(tmp_path / "p", "p", {"a.fg": ITEM.format(id="fan-thing")})
    rs, diags = load(folder, folder / "a.fg", folder)
    assert diags == [] and rs.pack("items", "fan-thing") == "p"


# --- shared ids -------------------------------------------------------------------------------
def test_a_fan_pack_cannot_replace_a_bundled_killer(tmp_path):
    text = (FAN / "tallow-man.fg").read_text(encoding="utf-8")
    core_killer = sorted(load_content()[0].killers)[0]
    copy = text.replace(f"killer {FAN_ID} ", f"killer {core_killer} ")
    folder = pack(tmp_path / "copycat", "copycat", {"k.fg": copy})
    for order in ([*bundled_paths(), folder], [folder, *bundled_paths()]):  # whatever the order
        rs, diags = load_content(order)
        assert rs is None
        dup = [d for d in diags if d.code == "E203"]
        assert len(dup) == 1
        d = dup[0]
        assert d.span.path == str(folder / "k.fg")
        assert f"duplicate id '{core_killer}'" in d.message and "pack 'core'" in d.message
        assert f"{core_killer}.fg" in d.message  # names the other pack's file
        assert "rename" in d.hint


def test_two_fan_packs_with_the_same_id(tmp_path):
    a = pack(tmp_path / "a", "pack-a", {"a.fg": ITEM.format(id="same-thing")})
    b = pack(tmp_path / "b", "pack-b", {"b.fg": ITEM.format(id="same-thing")})
    rs, diags = load(a, b)
    assert rs is None and codes(diags) == ["E203"]
    assert diags[0].span.path == str(b / "b.fg") and "pack 'pack-a'" in diags[0].message


def test_an_id_twice_in_one_pack_is_the_plain_duplicate(tmp_path):
    a = pack(tmp_path / "a", "pack-a", {"a.fg": ITEM.format(id="same-thing") * 2})
    rs, diags = load(a)
    assert codes(diags) == ["E203"] and diags[0].message == "duplicate id 'same-thing'"


def test_pack_ids_are_unique_and_core_is_reserved(tmp_path):
    rs, diags = load(pack(tmp_path / "x", "core", {}))
    assert codes(diags) == ["E203"] and "'core'" in diags[0].message
    rs, diags = load(pack(tmp_path / "y", "twin", {}), pack(tmp_path / "z", "twin", {}))
    assert codes(diags) == ["E203"] and "pack 'twin'" in diags[0].message


# --- depends ----------------------------------------------------------------------------------
def test_a_name_from_a_pack_not_in_depends_is_an_error(tmp_path):
    a = pack(tmp_path / "a", "pack-a", {"a.fg": ITEM.format(id="thing-a")})
    b = pack(tmp_path / "b", "pack-b", {"b.fg": CARD_USING.format(id="use-a", item="thing-a")})
    rs, diags = load(a, b)
    assert rs is None and codes(diags) == ["E212", "E212"]
    d = diags[0]
    assert d.message == "'thing-a' comes from pack 'pack-a', which pack 'pack-b' does not declare in 'depends'"
    assert d.span.path == str(b / "b.fg") and "add 'pack-a' to the 'depends' line" in d.hint


def test_depends_lets_a_pack_use_another(tmp_path):
    a = pack(tmp_path / "a", "pack-a", {"a.fg": ITEM.format(id="thing-a")})
    b = pack(tmp_path / "b", "pack-b", {"b.fg": CARD_USING.format(id="use-a", item="thing-a")}, depends="core pack-a")
    rs, diags = load(a, b)
    assert diags == [] and rs.packs["pack-b"].depends == ("core", "pack-a")


def test_minions_of_another_pack_need_depends_too(tmp_path):
    user = ('card call-moths { name "Call the Moths"; cost 1; fail { spawn 1 wax-moth at killer-location }; '
            'success { heal 1 } }\n')
    other = pack(tmp_path / "other", None, {"c.fg": user})  # no pack.fg: depends on core only
    rs, diags = load(FAN, other)
    assert codes(diags) == ["E212"] and f"comes from pack '{FAN_ID}'" in diags[0].message
    assert f"give the folder a pack.fg: 'pack other {{ name \"…\"; depends core {FAN_ID} }}'" in diags[0].hint


def test_names_from_core_and_from_the_same_pack_need_no_depends(tmp_path):
    core_item = sorted(load_content()[0].items)[0]
    files = {"a.fg": ITEM.format(id="thing-a"),
             "b.fg": CARD_USING.format(id="use-a", item="thing-a") + CARD_USING.format(id="use-c", item=core_item)}
    rs, diags = load(pack(tmp_path / "solo", None, files))
    assert diags == []


def test_an_unknown_pack_in_depends(tmp_path):
    pack(tmp_path / "a", "pack-a", {})
    b = pack(tmp_path / "b", "pack-b", {}, depends="core pack-aa")
    rs, diags = load(tmp_path / "a", b)
    assert codes(diags) == ["E204"] and "unknown pack 'pack-aa'" in diags[0].message
    assert "did you mean 'pack-a'" in diags[0].hint


def test_pack_fg_mistakes(tmp_path):
    two = tmp_path / "two"
    two.mkdir()
    (two / "pack.fg").write_text('pack one { name "One" }\npack two { name "Two" }\n', encoding="utf-8")
    assert codes(load(two)[1]) == ["E206"]
    none = tmp_path / "none"
    none.mkdir()
    (none / "pack.fg").write_text(ITEM.format(id="fan-thing"), encoding="utf-8")
    assert codes(load(none)[1]) == ["E202"]
    elsewhere = pack(tmp_path / "elsewhere", None, {"a.fg": 'pack stray { name "Stray" }\n'})
    assert codes(load(elsewhere)[1]) == ["E210"]


# --- the command line -------------------------------------------------------------------------
LOADING_COMMANDS = {"play", "check", "content", "simulate", "replay", "serve", "render", "odds"}


def test_every_command_that_loads_content_takes_content():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    present = LOADING_COMMANDS & set(sub.choices)
    assert {"play", "check", "content", "simulate"} <= present
    for name in present:
        action = next((a for a in sub.choices[name]._actions if "--content" in a.option_strings), None)
        assert action is not None, name
        assert isinstance(action, argparse._AppendAction) and action.default == [], name  # repeatable


def test_content_json_names_the_pack_of_each_entry(capsys):
    assert main(["content", "--json", "--content", str(FAN)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"killers", "scenarios", "final_girls", "modules"}
    rows = {r["id"]: r for r in data["killers"]}
    assert rows[FAN_ID] == {"id": FAN_ID, "name": "The Tallow Man", "pack": FAN_ID}
    assert {r["pack"] for r in data["scenarios"] + data["final_girls"]} == {"core"}
    assert all(r["pack"] == "core" for k, r in rows.items() if k != FAN_ID)


def test_content_table_has_a_pack_column(capsys):
    assert main(["content", "--content", str(FAN)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["KIND", "ID", "PACK", "NAME"]
    assert any(line.split()[:3] == ["killer", FAN_ID, FAN_ID] for line in out.splitlines())


# --- the example pack -------------------------------------------------------------------------
def test_the_fan_killer_loads_with_no_diagnostics():
    rs, diags = load(FAN)
    assert [d.format() for d in diags] == []
    k = rs.killers[FAN_ID]
    assert rs.pack("killers", FAN_ID) == FAN_ID and rs.packs[FAN_ID].depends == ("core",)
    assert [f.legendary for f in k.finales].count(False) == 3 and [f.legendary for f in k.finales].count(True) == 1
    assert [d.legendary for d in k.dark_powers].count(False) == 3
    assert [d.legendary for d in k.dark_powers].count(True) == 1
    assert len(k.terror) >= 8 and k.bloodlust


def test_check_content_accepts_the_fan_killer(capsys):
    assert main(["check", "--content", str(FAN)]) == 0
    out = capsys.readouterr().err
    assert out.startswith("ok:") and f"packs: core, {FAN_ID}" in out


@pytest.mark.parametrize("scenario", sorted(load_content()[0].scenarios))
@pytest.mark.parametrize("legendary", [False, True])
def test_the_fan_killer_plays_to_the_end_in_every_bundled_scenario(scenario, legendary):
    rs, _ = load(FAN)
    for seed in range(1, 6):
        state, _ = api.new_game(rs, seed=seed, killer=FAN_ID, scenario=scenario, legendary=legendary)
        state = api.play(state, api.random_policy(seed), max_choices=20000)
        assert state.over and state.result in ("fg", "killer"), (scenario, seed)


def test_play_with_the_fan_killer_from_the_command_line(capsys):
    assert main(["play", "--content", str(FAN), "--killer", FAN_ID, "--bot", "random", "--seed", "1"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "seed: 1" and "The Tallow Man" in out[1] and out[-1].startswith("result: ")


@pytest.mark.parametrize("wrong, right, fix", [
    ("lose 1 time", "loose 1 time", "lose N time"),
    ("spawn 1 wax-moth at killer-location", "spawn 1 wax-mouth at killer-location", "wax-moth"),
    ("set mode ablaze", "set mode ablase", "ablaze"),
])
def test_a_misspelled_copy_is_rejected_with_a_hint(tmp_path, capsys, wrong, right, fix):
    copy = tmp_path / "my-copy"
    shutil.copytree(FAN, copy)
    f = copy / "tallow-man.fg"
    text = f.read_text(encoding="utf-8")
    assert wrong in text
    f.write_text(text.replace(wrong, right, 1), encoding="utf-8")
    assert main(["check", "--content", str(copy)]) == 1
    out = capsys.readouterr().err
    assert f"{f}:" in out and f"did you mean '{fix}'?" in out
