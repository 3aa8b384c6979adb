"""Shell completion scripts for ``lastbreath``, written from its argparse parser.

    eval "$(lastbreath --completion bash)"                  # in ~/.bashrc
    eval "$(lastbreath --completion zsh)"                   # in ~/.zshrc (through bashcompinit)
    lastbreath --completion fish > ~/.config/fish/completions/lastbreath.fish

Commands, each command's options, and the values of options with a fixed set of choices
(``--bot``, ``--tie``…) complete; so do the ids of the content: ``--killer``, ``--scenario``,
``--final-girl`` and ``--module`` complete killer, scenario, Final Girl and module ids, and
``render`` and ``odds`` the ids they take, from the bundled content and every ``--content`` pack
already on the command line (the scripts ask ``lastbreath --complete-ids WHAT [--content PATH…]``,
which prints the ids, one a line, and nothing at all on any error). Other values and positional
arguments complete as file names. The scripts are generated from the parser, so a new command or
option completes without edits.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Sequence

__all__ = ["ID_COMMANDS", "ID_FLAGS", "SHELLS", "ids", "print_ids", "script"]

SHELLS = ("bash", "zsh", "fish")
ID_FLAGS = {"--killer": ("killers",), "--scenario": ("scenarios",), "--final-girl": ("final_girls",),
            "--module": ("modules",)}  # options whose value is a content id, and the tables they name
ID_COMMANDS = {"render": ("cards", "items", "final_girls", "killers", "scenarios", "player_boards"),
               "odds": ("cards",)}  # commands whose positional arguments are content ids


def ids(what: str, content: Sequence[str] = ()) -> list[str]:
    """The ids that ``what`` (an option of ID_FLAGS or a command of ID_COMMANDS) takes, from the
    bundled content and the ``content`` packs (those that load; none on any error)."""
    from lastbreath.dsl import bundled_paths, load_content

    tables = ID_FLAGS.get(what) or ID_COMMANDS.get(what) or ()
    if not tables:
        return []
    paths = [*bundled_paths(), *(Path(c) for c in content if Path(c).exists())]
    rs, _diags = load_content(paths)
    if rs is None:
        rs, _diags = load_content(list(bundled_paths()))
    if rs is None:
        return []
    return sorted({i for t in tables for i in getattr(rs, t, {})})


def print_ids(argv: Sequence[str]) -> int:
    """``lastbreath --complete-ids WHAT [--content PATH]…``: the ids, one a line (for the scripts)."""
    words = list(argv)
    what = words[0] if words else ""
    content = [words[i + 1] for i in range(1, len(words) - 1) if words[i] == "--content"]
    try:
        got = ids(what, content)
    except Exception:  # completion never shows an error: no ids at all
        got = []
    sys.stdout.write("".join(f"{i}\n" for i in got))
    return 0


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps its subparsers here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS]


def _help(parser: argparse.ArgumentParser, name: str) -> str:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def _bash(prog: str, parser: argparse.ArgumentParser) -> str:
    fn = "_" + prog.replace("-", "_")
    commands = _commands(parser)
    top = " ".join([*commands, *(s for a in _options(parser) for s in a.option_strings)])
    cases, values = [], []
    for name, sub in commands.items():
        opts = " ".join(s for a in _options(sub) for s in a.option_strings)
        cases.append(f"        {name}) opts={shlex.quote(opts)} ;;")
        for a in _options(sub):
            if a.choices:
                pats = "|".join(f"{name}:{s}" for s in a.option_strings)
                values.append(f"        {pats}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(map(str, a.choices)))}"
                              f' -- "$cur")); return ;;')
    for a in _options(parser):
        if a.choices:
            pats = "|".join(f":{s}" for s in a.option_strings)
            values.append(f"        {pats}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(map(str, a.choices)))}"
                          f' -- "$cur")); return ;;')
    id_flags = "|".join(ID_FLAGS)
    id_commands = "|".join(ID_COMMANDS)
    return "\n".join([
        f"# bash completion for {prog}: eval \"$({prog} --completion bash)\"",
        f"{fn}() {{",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" opts="" i',
        "    local content=()",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        [[ "${COMP_WORDS[i]}" == --content ]] && content+=(--content "${COMP_WORDS[i+1]}")',
        "    done",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        "            --completion) ((i++)) ;;",
        "            -*) ;;",
        '            *) cmd="${COMP_WORDS[i]}"; break ;;',
        "        esac",
        "    done",
        '    case "$cmd:$prev" in',
        *values,
        "    esac",
        '    case "$prev" in',
        f'        {id_flags}) COMPREPLY=($(compgen -W "$({prog} --complete-ids "$prev" "${{content[@]}}" 2>/dev/null)"'
        ' -- "$cur")); return ;;',
        "    esac",
        f'    if [[ "$cur" != -* ]] && [[ "$cmd" == @({id_commands}) ]] && [[ "$prev" != --* ]]; then',
        f'        COMPREPLY=($(compgen -W "$({prog} --complete-ids "$cmd" "${{content[@]}}" 2>/dev/null)" -- "$cur"));'
        " return",
        "    fi",
        '    if [[ -z "$cmd" ]]; then',
        f'        COMPREPLY=($(compgen -W {shlex.quote(top)} -- "$cur")); return',
        "    fi",
        '    case "$cmd" in',
        *cases,
        "    esac",
        '    if [[ "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        f"complete -o filenames -F {fn} {prog}",
        "",
    ])


def _zsh(prog: str, parser: argparse.ArgumentParser) -> str:
    return "\n".join([
        f"# zsh completion for {prog}: eval \"$({prog} --completion zsh)\" (uses zsh's bash completion support)",
        "autoload -U +X compinit && compinit",
        "autoload -U +X bashcompinit && bashcompinit",
        _bash(prog, parser).split("\n", 1)[1],
    ])


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(prog: str, parser: argparse.ArgumentParser) -> str:
    fn = f"__{prog.replace('-', '_')}_ids"
    lines = [f"# fish completion for {prog}: {prog} --completion fish > ~/.config/fish/completions/{prog}.fish",
             f"complete -c {prog} -f",
             f"function {fn}  # content ids, with the --content packs already on the command line",
             "    set -l words (commandline -opc)",
             "    set -l content",
             "    for i in (seq (count $words))",
             "        if test \"$words[$i]\" = --content; and test $i -lt (count $words)",
             "            set content $content --content $words[(math $i + 1)]",
             "        end",
             "    end",
             f"    {prog} --complete-ids $argv $content 2>/dev/null",
             "end"]
    commands = _commands(parser)
    for name in commands:
        lines.append(f"complete -c {prog} -n __fish_use_subcommand -a {name} -d {_fish_quote(_help(parser, name))}")

    def option(a: argparse.Action, cond: str) -> str:
        flags = " ".join(f"-l {s[2:]}" if s.startswith("--") else f"-s {s[1:]}" for s in a.option_strings)
        takes = a.nargs != 0
        long = next((o for o in a.option_strings if o in ID_FLAGS), "")
        extra = (f" -x -a {_fish_quote(' '.join(map(str, a.choices)))}" if a.choices else
                 f" -x -a {_fish_quote(f'({fn} {long})')}" if long else (" -r -F" if takes else ""))
        return f"complete -c {prog} -n {_fish_quote(cond)} {flags}{extra} -d {_fish_quote((a.help or '')[:80])}"

    for a in _options(parser):
        lines.append(option(a, "__fish_use_subcommand"))
    for name, sub in commands.items():
        for a in _options(sub):
            lines.append(option(a, f"__fish_seen_subcommand_from {name}"))
        if name in ID_COMMANDS:  # positional arguments: content ids
            lines.append(f"complete -c {prog} -n {_fish_quote(f'__fish_seen_subcommand_from {name}')} "
                         f"-x -a {_fish_quote(f'({fn} {name})')}")
        elif any(not a.option_strings for a in sub._actions):  # positional arguments: files
            lines.append(f"complete -c {prog} -n {_fish_quote(f'__fish_seen_subcommand_from {name}')} -F")
    return "\n".join(lines) + "\n"


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script of ``parser``'s program for ``shell`` (bash, zsh or fish)."""
    prog = parser.prog
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](prog, parser)
