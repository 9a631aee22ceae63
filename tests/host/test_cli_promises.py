# What docs/uthctl.md promises of every uthctl command: --json before or after
# the subcommand, argument errors as one line (JSON with --json) and exit 2,
# never argparse's usage block; a positive --timeout; paytable letters in
# either case; --version; --plot checked before a simulation; and
# `make deploy` refusing a board it does not know.
import json
import pathlib
import socket
import subprocess
import sys
import tomllib

import pytest

from uthctl.analysis import mystery_sim
from uthctl.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
HAND = ["As", "Ks", "Qs", "Js", "10s", "2c", "3d"]


def _one_json_line(out):
    lines = out.splitlines()
    assert len(lines) == 1, out
    return json.loads(lines[0])


def _closed_port():
    # A loopback address where nothing listens: a rig that is not there.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return "127.0.0.1:%d" % sock.getsockname()[1]


# ---- --json anywhere ----

@pytest.mark.parametrize("argv", [
    ["--json", "hand", *HAND],
    ["hand", "--json", *HAND],
    ["hand", *HAND, "--json"],
])
def test_json_before_or_after_the_subcommand(capsys, argv):
    assert main(argv) == 0
    assert _one_json_line(capsys.readouterr().out)["category"] == "royal_flush"


@pytest.mark.parametrize("argv", [
    ["--json", "mystery", "configs"],
    ["mystery", "--json", "configs"],
    ["mystery", "configs", "--json"],
])
def test_json_at_every_level_of_a_nested_command(capsys, argv):
    assert main(argv) == 0
    assert len(_one_json_line(capsys.readouterr().out)["configs"]) == 12


@pytest.mark.parametrize("where", ["end", "front", "rig"])
def test_json_on_a_rig_action(capsys, where):
    # No rig listens there: the failure itself comes as JSON, one line, exit 2.
    address = _closed_port()
    argv = {"end": ["rig", "--sim", address, "chip", "3", "on", "--json"],
            "front": ["--json", "rig", "--sim", address, "chip", "3", "on"],
            "rig": ["rig", "--json", "--sim", address, "state"]}[where]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "no virtual board rig at %s" % address in _one_json_line(captured.out)["error"]
    assert captured.err == ""


# ---- argument errors: one line, exit 2, at every level ----

BAD_ARGUMENTS = [
    [],
    ["launch"],
    ["hand"],
    ["settle"],
    ["par", "trips"],
    ["par", "nope", "E"],
    ["par", "trips", "E", "--deals", "many"],
    ["paytables", "extra"],
    ["mystery"],
    ["mystery", "simulate", "--rounds", "x"],
    ["mystery", "simulate", "--config", "Z9"],
    ["mystery", "verify"],
    ["mystery", "verify", "log.jsonl", "--head", "12"],
    ["sim", "--flash"],
    ["rig", "chip", "1", "on"],
    ["rig", "--sim", "1", "chip", "x", "on"],
    ["rig", "--sim", "1", "key", "maybe"],
    ["rig", "--sim", "1", "lock", "--hold"],
    ["meters"],
    ["meters", "--port", "/dev/null", "--timeout"],
    ["status"],
    ["config", "A1", "--port"],
    ["payment", "cash", "--port", "/dev/null"],
    ["payment", "--port", "/dev/null"],
    ["monitor", "--port", "/dev/null", "--poll", "0"],
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=" ".join)
def test_argument_errors_are_one_line(capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("uthctl: error: "), captured.err
    assert "usage:" not in captured.err


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=" ".join)
def test_argument_errors_as_json(capsys, argv):
    assert main(argv + ["--json"]) == 2
    captured = capsys.readouterr()
    error = _one_json_line(captured.out)
    assert list(error) == ["error"] and error["error"]
    assert captured.err == ""


def test_a_seat_the_table_lacks_is_an_argument_error(capsys):
    # Refused before any rig is reached (none listens at this address).
    assert main(["rig", "--sim", _closed_port(), "chip", "9", "on", "--json"]) == 2
    assert _one_json_line(capsys.readouterr().out) == {
        "error": "argument seat: seat must be 1 to 7, not '9' (see uthctl rig chip --help)"}


def test_argument_error_from_the_shell_is_one_line():
    done = subprocess.run([sys.executable, "-m", "uthctl.cli", "rig", "--sim", "1", "chip",
                           "9x", "on"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "uthctl: error: argument seat: seat must be 1 to 7, not '9x' (see uthctl rig chip "
        "--help)"]


# ---- --timeout, paytable letters, --version ----

@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_timeout_must_be_positive(capsys, value):
    assert main(["meters", "--port", "/dev/null", "--timeout", value, "--json"]) == 2
    error = _one_json_line(capsys.readouterr().out)["error"]
    assert error.startswith("argument --timeout: must be a number of seconds above 0")


@pytest.mark.parametrize("wager,letter", [("trips", "e"), ("play_the_board", "b"),
                                          ("ultimate_pairs", "f")])
def test_paytable_letters_in_either_case(capsys, wager, letter):
    assert main(["par", wager, letter, "--json"]) == 0
    lower = json.loads(capsys.readouterr().out)
    assert main(["par", wager, letter.upper(), "--json"]) == 0
    assert lower == json.loads(capsys.readouterr().out)
    assert lower["letter"] == letter.upper()


def test_version_is_the_packages():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = subprocess.run([sys.executable, "-m", "uthctl.cli", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "uthctl %s\n" % version


# ---- --plot checked before the simulation runs ----

@pytest.mark.parametrize("case", ["no folder", "a folder"])
def test_plot_path_is_checked_before_simulating(tmp_path, capsys, monkeypatch, case):
    def never(*args, **kwargs):
        raise AssertionError("simulated before checking --plot")

    monkeypatch.setattr(mystery_sim, "simulate", never)
    path = tmp_path / "missing" / "awards.png" if case == "no folder" else tmp_path
    assert main(["mystery", "simulate", "--rounds", "1000", "--plot", str(path), "--json"]) == 2
    error = _one_json_line(capsys.readouterr().out)["error"]
    assert error.startswith("--plot %s" % path)
    assert ("no folder %s" % path.parent) in error if case == "no folder" else "folder" in error


def test_plot_path_that_cannot_be_written_is_refused_before_simulating(capsys, monkeypatch):
    # /proc takes no new file, whoever runs it (root too, for whom every
    # permission check passes).
    path = "/proc/awards.png"
    def never(*args, **kwargs):
        raise AssertionError("simulated before checking --plot")

    monkeypatch.setattr(mystery_sim, "simulate", never)
    assert main(["mystery", "simulate", "--rounds", "1000", "--plot", path]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "uthctl: error: --plot /proc/awards.png: cannot write it (No such file or "
        "directory)"], captured.err


def test_unrecognized_arguments_point_to_the_subcommands_help(capsys):
    assert main(["mystery", "simulate", "--rounds", "10", "--bogus", "x", "--json"]) == 2
    assert _one_json_line(capsys.readouterr().out) == {
        "error": "unrecognized arguments: --bogus x (see uthctl mystery simulate --help)"}
    assert main(["par", "trips", "A", "extra"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "uthctl: error: unrecognized arguments: extra (see uthctl par --help)"]


# ---- make deploy ----

def test_make_deploy_names_the_known_boards():
    boards = sorted(path.parent.name for path in (ROOT / "boards").glob("*/board.py"))
    assert len(boards) == 4  # the three the controller runs on, and the test rig
    done = subprocess.run(["make", "-n", "deploy", "BOARD=nope", "PORT=/dev/null"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "mpremote" not in done.stdout
    assert "unknown BOARD=nope" in done.stderr
    assert all(board in done.stderr for board in boards)
    known = subprocess.run(["make", "-n", "deploy", "BOARD=sim", "PORT=/dev/null"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert known.returncode == 0
    assert "mpremote connect /dev/null cp -r build/sim/lib" in known.stdout
