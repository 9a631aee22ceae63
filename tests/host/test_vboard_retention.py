# No record leaves the board's log before it is collected (docs/mystery.md,
# "Collected"), on the virtual board: 400 `round` commands with nothing
# collecting once left `log_dropped` at 160, the oldest segments gone; now
# every record is kept, the board warns at 75% of its room and refuses
# rounds and LOCK before one would have to go, and `uthctl log export
# --collected` frees the room only with the key switch held.
import contextlib
import json
import random

import pytest
from test_board_rounds import TABLES, _service, random_round

from uthctl.cli import main as uthctl
from uthctl.links import logexport

pytestmark = pytest.mark.usefixtures("micropython")

# boards/sim/board.py: 20 segments of 32 records, a commit at most 4 records:
# 19 segments of at least 29 stay when the oldest goes.
CAPACITY = 19 * (32 - 4 + 1)


def _round(link, rng, number):
    data = random_round(rng, number)
    data["seats"][0]["wagers"] = {"trips": 100}  # a settlement record each
    return link.command("round", **data)


def _export(capsys, port, out, *more):
    capsys.readouterr()
    code = uthctl(["log", "export", "--port", port, "--out", str(out), "--json", *more])
    captured = capsys.readouterr()
    return code, captured


@pytest.mark.board
@pytest.mark.target("sim")
def test_400_rounds_uncollected_are_all_kept_and_lock_is_refused_before_one_goes(
        tmp_path, capsys, target):
    with contextlib.ExitStack() as stack:
        vb = target.board(tmp_path / "flash.img")
        stack.callback(vb.stop)
        link = stack.enter_context(target.link(vb.serial_path, timeout=10.0))
        link.wait_ready(target.wait(20.0))
        rig = stack.enter_context(target.rig(vb.rig_address))
        replies = _service(link, rig, [("config", {"mystery": "A1"}),
                                       ("set", {"name": "paytables", "value": TABLES})])
        assert all(reply["ok"] for reply in replies), replies
        rng = random.Random(38)
        for number in range(1, 401):
            reply = _round(link, rng, number)
            assert reply["ok"], (number, reply)
        meters = logexport.read_meters(link)
        assert meters["log_dropped"] == 0 and meters["log_capacity"] == CAPACITY
        records, _ = logexport.export(link)
        assert [r["seq"] for r in records] == list(range(1, meters["log_seq"] + 1))
        # On to the limit: the warning at 75%, then rounds refused with room
        # left for a hit's validation and reset.
        number = 400
        while True:
            number += 1
            reply = _round(link, rng, number)
            if not reply["ok"]:
                break
            assert number < 1000, "rounds never refused"
        assert reply["error"].startswith("the log is full: "), reply
        [warning] = [e for e in link.events if e.get("ev") == "log_warning"]
        # Said in the commit that reached 75% (a round's record and the warning).
        assert CAPACITY * 3 // 4 <= warning["uncollected"] <= CAPACITY * 3 // 4 + 1, warning
        assert rig.wait_for(lambda s: link.command("status")["display"] == "LoG FuLL",
                            timeout=target.wait(20.0), what="the log's warning shown")
        meters = logexport.read_meters(link)
        assert meters["log_dropped"] == 0 and meters["log_collected"] == 0
        rig.chip(2, True)
        rig.press_lock()
        refused = link.wait_event("refused")
        assert refused["reason"].startswith("the log is full: "), refused
        rig.chip(2, False)
        # The export alone, the key not held: written, and the mark stays.
        port = vb.serial_path
        code, captured = _export(capsys, port, tmp_path / "not_held.jsonl", "--collected")
        said = captured.out + captured.err  # with --json, the error is a JSON line
        assert code != 0 and "did not take it as collected" in said, captured
        assert "only with the key switch held" in said
        assert (tmp_path / "not_held.jsonl").exists()
        assert logexport.read_meters(link)["log_collected"] == 0
        # With the key held: collected up to the file's last record.
        rig.key(True)
        rig.wait_for(lambda s: link.command("status")["state"] == "service",
                     what="service mode")
        code, captured = _export(capsys, port, tmp_path / "held.jsonl", "--collected")
        assert code == 0, captured
        out = json.loads(captured.out)
        assert out["first_seq"] == 1 and out["collected"]["collected"] == out["last_seq"]
        rig.key(False)
        rig.wait_for(lambda s: link.command("status")["state"] == "betting", what="betting")
        meters = logexport.read_meters(link)
        assert (meters["log_collected"], meters["log_uncollected"], meters["log_dropped"]) \
            == (out["last_seq"], meters["log_seq"] - out["last_seq"], 0)
        assert _round(link, rng, number)["ok"]


# Each board's log, as its board file sizes it (docs/mystery.md, "Collected"):
# segments - 1 of at least 29 records.
CAPACITIES = {"sim": 19 * 29, "pico": 39 * 29, "esp32": 63 * 29}


@pytest.mark.board
@pytest.mark.pico_quick
def test_a_confirmation_from_the_host_needs_the_key_switch(tmp_path, target):
    with contextlib.ExitStack() as stack:
        vb = target.board(tmp_path / "flash.img")
        stack.callback(vb.stop)
        link = stack.enter_context(target.link(vb.serial_path, timeout=10.0))
        link.wait_ready(target.wait(20.0))
        rig = stack.enter_context(target.rig(vb.rig_address))
        [reply] = _service(link, rig, [("config", {"mystery": "A1"})])
        assert reply["ok"], reply
        meters = logexport.read_meters(link)
        head = meters["log_seq"]
        assert (meters["log_capacity"], meters["log_collected"], meters["log_uncollected"]) == (
            CAPACITIES[target.name], 0, head)
        # The table's host, the key not held: unsigned, or with a made-up
        # authenticator on a board with no key; refused, the mark unmoved.
        refused = link.command("collected", seq=head)
        assert "only with the key switch held" in refused["error"], refused
        refused = link.command("collected", seq=head, auth="ab" * 32)
        assert "no record key" in refused["error"], refused
        assert logexport.read_meters(link)["log_collected"] == 0
        [taken] = _service(link, rig, [("collected", {"seq": head})])
        assert taken["ok"] and taken["collected"] == head, taken
        # Past it, service mode entered and left for the confirmation: records too.
        assert logexport.read_meters(link)["log_uncollected"] == 2
