# Every `make` target and `uthctl` command, subcommand and option that the
# README and docs/*.md name exists: the targets as the Makefile defines them,
# the commands as uthctl's own argparse tree parses them.
from pathlib import Path

import pytest
from doc_names import (
    make_mentions,
    make_targets,
    unknown_make_targets,
    unknown_uthctl_names,
    uthctl_mentions,
)

from uthctl.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
TARGETS = make_targets((ROOT / "Makefile").read_text())


def names(path):
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("doc", DOCS, ids=names)
def test_every_make_target_named_exists(doc):
    assert unknown_make_targets(doc.read_text(), TARGETS) == []


@pytest.mark.parametrize("doc", DOCS, ids=names)
def test_every_uthctl_command_named_exists(doc):
    assert unknown_uthctl_names(doc.read_text(), build_parser()) == []


def test_the_docs_name_commands_at_all():
    # A parser that found nothing would pass the two tests above.
    text = "\n".join(doc.read_text() for doc in DOCS)
    words = {tuple(mention[:2]) for mention in make_mentions(text) + uthctl_mentions(text)}
    for command in ("sim", "test", "check", "deploy", "test-pico", "soak"):
        assert ("make", command) in words
    for command in ("status", "config", "set", "audit", "log", "rig", "monitor"):
        assert ("uthctl", command) in words


def test_the_makefile_targets_are_read():
    assert {"setup", "check", "test", "sim", "deploy", "bench", "lint"} <= TARGETS
    assert "VENV" not in TARGETS and "$(STAMP)" not in TARGETS


def test_a_made_up_make_target_is_caught():
    text = ("Run `make sim`, then `make simulate`.\n\n```sh\nmake test  # all\n"
            "flock /work/locks/heavy.lock nice make tests\nmake deploy BOARD=sim PORT=auto\n```\n")
    assert sorted(unknown_make_targets(text, TARGETS)) == ["make simulate", "make tests"]


def test_made_up_uthctl_names_are_caught():
    text = ("`uthctl statsu --port auto`, `uthctl log\nexprt --port P`, "
            "`uthctl mystery configs|simulte`, `uthctl meters --prot P`\n\n"
            "```console\n$ uthctl rig --sim 127.0.0.1:1 chip 2 on; uthctl rig --sim A chop 2 on\n"
            "next time: uthctl log export --port PORT --after X.jsonl --bogus\n```\n")
    problems = unknown_uthctl_names(text, build_parser())
    assert sorted(problem.rsplit(": ", 1)[1] for problem in problems) == sorted([
        "no command statsu", "no subcommand of uthctl log exprt",
        "no subcommand of uthctl mystery simulte", "no option --prot",
        "no subcommand of uthctl rig chop", "no option --bogus"])


def test_well_formed_uthctl_lines_pass():
    text = ("`uthctl --json hand As Ks Qs Js Ts`, `uthctl rig --sim ADDRESS chip|lock|key`,\n"
            "`uthctl sim --port PORT [--rig ADDRESS]`,\n"
            "`uthctl set [NAME VALUE] [--yes] --port PORT`, `uthctl rig ... key on`\n")
    assert unknown_uthctl_names(text, build_parser()) == []
