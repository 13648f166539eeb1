"""``python -m rules check FILE.json [...]``: JSON reports; exit 0 valid, 1 errors, 2 malformed.
``python -m rules attack [--system ffa|t4|2d6] FILE.json``: one attack resolved (docs/combat.md,
docs/combat-t4.md, docs/combat-2d6.md); exit 0, 2 malformed."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from .attack import attack_result_as_dict, resolve_attack, throw_dice
from .attack_input import read_attack
from .combat.command import FFA, SYSTEMS, resolve_command
from .document import MalformedDocument, decode_json, parse_document, printable
from .engine import check
from .fighters import CombatRefused, InputRefused
from .report import Report
from .statblock import stat_block

EXIT_VALID, EXIT_ERRORS, EXIT_MALFORMED = 0, 1, 2


def _read(source: str) -> Any:
    """Decode one document; raises MalformedDocument with a one-line reason."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as handle:
                data = handle.read()
    except OSError as error:
        raise MalformedDocument("", f"cannot be read ({error.strerror or error})") from None
    return decode_json(data)


def text_summary(report: Report) -> str:
    points = report.points
    lines = [
        f"{report.name}: {'valid' if report.valid else 'NOT VALID'}",
        f"UPP {report.upp}",
        "Points: "
        + ", ".join(
            f"{part} {getattr(points, part)}"
            for part in ("attributes", "skills", "perks", "flaws", "rank", "psionics", "package")
        )
        + f"; total {points.total} of {points.budget}, {points.remaining} remaining",
        "Derived: " + " ".join(f"{k} {v}" for k, v in report.derived.as_dict().items()),
        f"Skills: {report.skills.total_used} of {report.skills.total_allowed} levels counted, "
        f"maximum level {report.skills.max_level}, level-0 skills "
        f"{report.skills.zero_level_used} of {report.skills.zero_level_free} free",
    ]
    if report.problems:
        lines.append("Problems:")
        lines.extend(f"  {p.severity}: {p.message} [{p.code} at {p.path}]" for p in report.problems)
    else:
        lines.append("No problems.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    checker = commands.add_parser("check", help="check character documents against the rules")
    checker.add_argument("files", nargs="+", metavar="FILE", help="JSON documents, or - for stdin")
    output = checker.add_mutually_exclusive_group()
    output.add_argument("--text", action="store_true", help="print a human-readable summary")
    output.add_argument("--stat-block", action="store_true", help="print the stat block")
    attacker = commands.add_parser("attack", help="resolve one attack (docs/combat.md)")
    attacker.add_argument("file", metavar="FILE", help="the attack as JSON, or - for stdin")
    attacker.add_argument(
        "--system", choices=SYSTEMS, help="the combat system (default ffa, as the input says)"
    )
    args = parser.parse_args(argv)

    # UTF-8 whatever the locale; a character no encoding can write (a file name's undecodable
    # byte) is written as an escape rather than stopping the run.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    if args.command == "attack":
        return _attack(args.file, args.system)
    status = EXIT_VALID
    outputs: list[Any] = []
    for source in args.files:
        file_status, output = _check_file(source, args)
        status = max(status, file_status)
        if output is not None:
            outputs.append(output)
    _print_outputs(outputs, args)
    return status


def _check_file(source: str, args: argparse.Namespace) -> tuple[int, Any]:
    """The exit status of one document and what to print for it (None: nothing)."""
    label = "<stdin>" if source == "-" else source
    try:
        character = parse_document(_read(source))
    except MalformedDocument as error:
        # The file's name escaped like the rest of the line: a line break in it would make two.
        where = f"{printable(label)}: {error.path}" if error.path else printable(label)
        print(f"{where}: {error.message}", file=sys.stderr)
        if len(args.files) > 1 and not (args.text or args.stat_block):
            return EXIT_MALFORMED, {
                "file": label,
                "malformed": f"{error.path}: {error.message}".lstrip(": "),
            }
        return EXIT_MALFORMED, None
    report = check(character)
    status = EXIT_VALID if report.valid else EXIT_ERRORS
    if args.text:
        return status, text_summary(report)
    if args.stat_block:
        return status, stat_block(character, report)
    return status, report.as_dict()


def _print_outputs(outputs: list[Any], args: argparse.Namespace) -> None:
    if args.text or args.stat_block:
        if outputs:
            print("\n\n".join(outputs))
    elif len(args.files) == 1:
        if outputs:
            print(json.dumps(outputs[0], indent=2, ensure_ascii=False))
    else:
        print(json.dumps(outputs, indent=2, ensure_ascii=False))


def _attack(source: str, system: str | None) -> int:
    """Resolve the attack of one input file under ``system`` (None: FFA): its JSON result, or
    one line naming each fault's field."""
    label = "<stdin>" if source == "-" else source
    try:
        data = _read(source)
        if system not in (None, FFA):
            result = resolve_command(system, data, random.SystemRandom())
        else:
            plan, dice = read_attack(_ffa_input(data))
            if dice is None:
                dice = throw_dice(plan, random.SystemRandom())
            result = attack_result_as_dict(resolve_attack(plan, dice))
    except MalformedDocument as error:
        problems: tuple[CombatRefused, ...] = (CombatRefused(error.path, error.message),)
    except InputRefused as error:
        problems = error.problems
    except CombatRefused as error:
        problems = (error,)
    else:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return EXIT_VALID
    # One line, as the command promises scripts, naming every fault in the input's order.
    faults = " | ".join(
        f"{problem.field}: {problem.message}" if problem.field else problem.message
        for problem in problems
    )
    print(f"{printable(label)}: {faults}", file=sys.stderr)
    return EXIT_MALFORMED


def _ffa_input(data: Any) -> Any:
    """An FFA attack's input without its ``system`` key, which may only say "ffa" (other
    systems are chosen with --system)."""
    if not isinstance(data, dict) or "system" not in data:
        return data
    if data["system"] != FFA:
        raise CombatRefused(
            "system", "an FFA attack reads 'ffa' here; choose another with --system"
        )
    return {key: value for key, value in data.items() if key != "system"}
