# A command's refusal and a firmware bug are told apart (docs/host-link.md,
# "Internal errors"): a command's bad input or a state that forbids it is
# refused with its reason; any other exception in a command's handler is a
# bug, whose reply names it as an internal error (its type and message), is
# counted in `status`, and never reads as a refusal. The bugs here are made by
# replacing one firmware function with one that fails as a bug would.
import tmpdir
from mystery.refusal import Refused
from table_rig import Rig


def _missing_key():
    return {}["seats"]  # KeyError: 'seats', as a record read by the wrong name


def _bad_number(method):
    return int("seven")  # ValueError, as a conversion gone wrong


def _internal(name, message):
    return {"type": name, "message": message}


def test_refused_is_not_a_value_error():
    # A ValueError raised by a bug must never pass for a refusal.
    assert not issubclass(Refused, ValueError)
    assert issubclass(Refused, Exception)


@tmpdir.within
def test_a_key_error_in_a_handler_is_an_internal_error_not_a_refusal(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.table.bonus.meters = _missing_key
    reply = rig.command(cmd="meters", id=5)[-1]
    assert reply["ok"] is False and reply["id"] == 5
    message = str(KeyError("seats"))  # as this runtime words it (CPython quotes the key)
    assert reply["internal"] == _internal("KeyError", message)
    assert reply["error"] == "internal error: KeyError: " + message


@tmpdir.within
def test_a_value_error_in_a_handler_is_an_internal_error_and_the_payment_is_kept(root):
    rig = Rig(root)
    rig.table.set_payment = _bad_number
    reply = rig.command(cmd="payment", method="jackpot_slip")[-1]
    assert reply["ok"] is False and reply["internal"]["type"] == "ValueError"
    assert reply["error"].startswith("internal error: ValueError: ")
    assert rig.table.payment == "table_inventory"


@tmpdir.within
def test_a_refusal_has_no_internal_field_and_is_not_counted(root):
    rig = Rig(root)
    refused = rig.command(cmd="payment", method="cash")[-1]
    assert refused == {"ok": False,
                       "error": "payment must be one of table_inventory, jackpot_slip"}
    assert rig.command(cmd="status")[-1]["internal_errors"] == 0


@tmpdir.within
def test_status_counts_the_internal_errors_since_start_up(root):
    rig = Rig(root)
    assert rig.command(cmd="status")[-1]["internal_errors"] == 0
    meters = rig.table.bonus.meters
    rig.table.bonus.meters = _missing_key
    for _ in range(3):
        assert "internal" in rig.command(cmd="meters")[-1]
    rig.table.bonus.meters = meters
    assert rig.command(cmd="meters")[-1]["ok"] is True
    rig.command(cmd="payment", method="cash")  # a refusal: not counted
    assert rig.command(cmd="status")[-1]["internal_errors"] == 3


def _records_then_bug(since):
    yield {"ev": "first"}
    raise TypeError("'NoneType' object is not subscriptable")


@tmpdir.within
def test_a_bug_in_a_log_export_ends_it_with_an_internal_error(root):
    rig = Rig(root)
    rig.table.bonus.log_export = _records_then_bug
    lines = rig.command(cmd="log", id=9)
    assert lines[0] == {"reply": "log", "record": {"ev": "first"}}
    assert lines[-1] == {"ok": False, "id": 9,
                         "error": "internal error: TypeError: 'NoneType' object is not "
                         "subscriptable",
                         "internal": _internal("TypeError",
                                               "'NoneType' object is not subscriptable")}
    assert rig.command(cmd="status")[-1]["internal_errors"] == 1


@tmpdir.within
def test_an_internal_error_message_is_cut_short(root):
    rig = Rig(root)
    rig.table.bonus.meters = lambda: {}["x" * 500]
    reply = rig.command(cmd="meters")[-1]
    assert len(reply["internal"]["message"]) == 120
    assert reply["internal"]["message"] == str(KeyError("x" * 500))[:120]


@tmpdir.within
def test_bad_input_is_still_refused_with_its_reason(root):
    # The inputs a handler checks itself, up front: refusals, never internal errors.
    rig = Rig(root)
    for command, error in (
            ({"cmd": "log", "since": -1}, "since must be a record number, 0 or more"),
            ({"cmd": "config"}, "config needs \"mystery\": a configuration name such as \"B2\""),
            ({"cmd": "set", "name": 5}, "set needs \"name\", a setting's name, and \"value\""),
            ({"cmd": "validation"},
             "validation needs \"employee\", the validating employee's number"),
            ({"cmd": "clock"}, "this board has no calendar clock"),
            ({"cmd": "authenticate", "seed": "00"},
             "this board names no program to authenticate")):
        assert rig.command(**command)[-1] == {"ok": False, "error": error}, command
    assert rig.command(cmd="status")[-1]["internal_errors"] == 0


@tmpdir.within
def test_a_round_with_bad_cards_is_refused_not_an_internal_error(root):
    # The round parser's ValueError names the host's input: a refusal.
    rig = Rig(root)
    rig.configure("A1")
    reply = rig.command(cmd="round", dealer=["Qs", "Qs"], board=["2c", "3c", "4c", "5c", "7d"],
                        seats=[{"seat": 1, "cards": ["Ah", "Kh"], "wagers": {}}])[-1]
    assert reply["ok"] is False and "internal" not in reply, reply
    assert "duplicate card" in reply["error"], reply
