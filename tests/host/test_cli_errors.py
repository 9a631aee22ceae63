# uthctl's one error type (uthctl/errors.py): what a command expects to go
# wrong reaches the user as one line and exit status 2; anything else is a
# bug in uthctl, said to be one (exit 1), with its traceback under --debug.
# And the table's state names come from the firmware (table/controller.py),
# not from a table of uthctl's own.
import contextlib
import importlib
import json

import pytest

import table.controller
from uthctl.cli import main
from uthctl.commands import status as status_command
from uthctl.commands import validate as validate_command
from uthctl.errors import Refusal, UthctlError, expecting


class _Link:
    # A board that answers `status` and `meters` with what a test gives.
    def __init__(self, status, meters=None):
        self.replies = {"status": dict(status, ok=True, reply="status"),
                        "meters": {"ok": True, "reply": "meters", "meters": meters}
                        if meters is not None else {"ok": False, "error": "store: fault"},
                        "validation": {"ok": True, "reply": "validation", "employee": "7",
                                       "slip": None}}
        self.sent = []

    def command(self, cmd, **fields):
        self.sent.append(cmd)
        return self.replies[cmd]


def _fake_board(monkeypatch, module, link):
    monkeypatch.setattr(module, "open_link", lambda args: contextlib.nullcontext(link))


def _broken(*args, **kwargs):
    raise ValueError("a bug's ValueError")


def test_an_expected_error_is_one_line_and_status_2(monkeypatch, capsys):
    def refusing(link):
        raise Refusal("the board refused status: no")

    monkeypatch.setattr(status_command, "read_table", refusing)
    _fake_board(monkeypatch, status_command, None)
    assert main(["status", "--port", "x"]) == 2
    assert capsys.readouterr().err == "uthctl: error: the board refused status: no\n"


def test_a_value_error_from_a_bug_is_an_internal_error_not_an_error_message(monkeypatch,
                                                                             capsys):
    # Before: any ValueError anywhere read as the user's error (status 2).
    _fake_board(monkeypatch, status_command, _Link({"state": "betting"}))
    monkeypatch.setattr(status_command, "format_status", _broken)
    assert main(["status", "--port", "x"]) == 1
    err = capsys.readouterr().err
    assert err == ("uthctl: internal error (a bug in uthctl): ValueError: a bug's ValueError; "
                   "run again with --debug for its traceback\n")


def test_a_bug_in_json_mode_says_it_is_internal(monkeypatch, capsys):
    _fake_board(monkeypatch, status_command, _Link({"state": "betting"}))
    monkeypatch.setattr(status_command, "config_details", _broken)
    assert main(["--json", "status", "--port", "x"]) == 1
    said = json.loads(capsys.readouterr().out)
    assert said == {"error": "internal error (a bug in uthctl): ValueError: a bug's ValueError",
                    "internal": True}


@pytest.mark.parametrize("where", [["--debug", "status"], ["status", "--debug"]])
def test_debug_shows_the_bugs_traceback(monkeypatch, capsys, where):
    _fake_board(monkeypatch, status_command, _Link({"state": "betting"}))
    monkeypatch.setattr(status_command, "format_status", _broken)
    assert main(where + ["--port", "x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "in _broken" in err and err.endswith("ValueError: a bug's ValueError\n")


def test_expecting_converts_only_the_kinds_it_names():
    @expecting(OSError)
    def run(args):
        raise args

    with pytest.raises(UthctlError, match="^no such port$"):
        run(FileNotFoundError("no such port"))
    with pytest.raises(KeyError):
        run(KeyError("seats"))
    refusal = Refusal("as it was")
    with pytest.raises(Refusal) as raised:
        run(refusal)
    assert raised.value is refusal


def test_a_board_commands_key_error_is_a_bug_not_an_error(monkeypatch, capsys):
    # A status reply without the fields uthctl reads: uthctl's bug to fix.
    _fake_board(monkeypatch, status_command, _Link({"state": "betting"}))
    assert main(["status", "--port", "x"]) == 1
    assert "internal error (a bug in uthctl): KeyError" in capsys.readouterr().err


# ---- the state names ----


@pytest.fixture
def renamed_hit_pending(monkeypatch):
    # The firmware's name for the pending hit changed: uthctl follows it.
    monkeypatch.setattr(table.controller, "HIT_PENDING", "awaiting_validation")
    yield "awaiting_validation"
    monkeypatch.undo()
    importlib.reload(status_command)
    importlib.reload(validate_command)


def test_status_names_the_states_by_the_firmwares_names(renamed_hit_pending):
    reloaded = importlib.reload(status_command)
    assert renamed_hit_pending in reloaded.STATES and "hit_pending" not in reloaded.STATES
    assert reloaded.STATES[renamed_hit_pending].startswith("hit pending")


def test_the_state_table_covers_every_firmware_state():
    names = {table.controller.BETTING, table.controller.LOCKED, table.controller.HIT_PENDING,
             table.controller.SERVICE, table.controller.FAULT, table.controller.NOT_CONFIGURED}
    assert set(status_command.STATES) == names


def test_the_floor_page_names_the_states_by_the_firmwares_names(renamed_hit_pending):
    # The page's labels and its tiles' pending check follow a renamed state.
    from uthctl.floor.page import text as page_text
    from uthctl.floor.page import tiles
    try:
        labels = importlib.reload(page_text).STATE_NAMES
        assert labels[renamed_hit_pending] == "HIT PENDING" and "hit_pending" not in labels
        assert importlib.reload(tiles).PENDING == renamed_hit_pending
    finally:
        table.controller.HIT_PENDING = "hit_pending"
        importlib.reload(page_text)
        importlib.reload(tiles)


def test_the_floor_page_labels_every_firmware_state():
    from uthctl.floor.page.text import STATE_NAMES
    names = {table.controller.BETTING, table.controller.LOCKED, table.controller.HIT_PENDING,
             table.controller.SERVICE, table.controller.FAULT, table.controller.NOT_CONFIGURED}
    assert names <= set(STATE_NAMES)


def test_validate_checks_the_state_by_the_firmwares_name(renamed_hit_pending, monkeypatch,
                                                         capsys):
    reloaded = importlib.reload(validate_command)
    link = _Link({"state": renamed_hit_pending},
                 {"pending": [3, 150_000_000, 1, 9, None]})
    monkeypatch.setattr(reloaded, "open_link", lambda args: contextlib.nullcontext(link))

    class Args:
        employee, slip, json = "7", None, True

    assert reloaded.run(Args()) == 0
    assert link.sent == ["status", "validation", "meters"]


# ---- the board's internal errors ----


def test_a_boards_internal_error_is_an_error_naming_the_firmwares_bug(monkeypatch, capsys):
    link = _Link({"state": "betting"})
    link.replies["status"] = {"ok": False, "error": "internal error: KeyError: 'seats'",
                              "internal": {"type": "KeyError", "message": "'seats'"}}
    _fake_board(monkeypatch, status_command, link)
    assert main(["status", "--port", "x"]) == 2
    assert capsys.readouterr().err == (
        "uthctl: error: the board's firmware met a bug answering status: internal error: "
        "KeyError: 'seats' (the table plays on; read its status and meters again)\n")


def test_status_shows_the_boards_internal_error_count_when_there_are_any():
    status = {"state": table.controller.BETTING, "payment": "table_inventory",
              "locked_in": [], "stale_chips": []}
    assert "firmware bugs" not in status_command.format_status(dict(status, internal_errors=0),
                                                               None, "store: fault")
    shown = status_command.format_status(dict(status, internal_errors=2), None, "store: fault")
    assert "firmware bugs  2 command(s) got an internal error since start-up" in shown


def _expected_kinds(path):
    # The names each @expecting(...) in a module lists, read from its source.
    import ast
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "expecting":
            found.append([ast.unparse(arg) for arg in node.args])
    return found


def test_no_command_expects_a_plain_value_error():
    # A bug's ValueError would reach the user as a one-line message; what a
    # command does expect is an InputError (or its own type) raised where
    # the input is read.
    from pathlib import Path

    import uthctl.commands
    folder = Path(uthctl.commands.__file__).parent
    lists = {path.name: _expected_kinds(path) for path in folder.glob("*.py")}
    assert sum(len(found) for found in lists.values()) >= 20  # the decorators were read
    listing = sorted(name for name, found in lists.items()
                     if any("ValueError" in kinds for kinds in found))
    assert listing == []


@pytest.mark.parametrize("argv,words", [
    (["hand", "As", "Zz", "Qh", "Jc", "Ts"], "unknown card"),
    (["par", "trips", "Z"], "no paytable"),
    (["bridge", "--port", "/dev/null", "--table", "t1", "--casino", "c", "--broker", "mqtt://example.com:1883",
      "--credentials", "/nonexistent"], "plain MQTT"),
    (["bridge", "--port", "/dev/null", "--table", "t 1", "--casino", "c", "--broker", "mqtt://127.0.0.1:1883",
      "--credentials", "/nonexistent"], "1 to 32 letters"),
    (["bridge", "--port", "/dev/null", "--table", "t1", "--casino", "c", "--broker", "mqtt://127.0.0.1:1883",
      "--credentials", "/nonexistent"], "--credentials"),
])
def test_bad_input_is_still_an_error_message_not_a_bug(capsys, argv, words):
    # Each was a plain ValueError that @expecting(ValueError) turned into a message.
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert words in captured.out + captured.err
    assert "internal error" not in captured.out + captured.err
