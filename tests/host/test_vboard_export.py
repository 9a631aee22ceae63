# The board's own log export, captured from the host link as it comes
# ({"cmd": "log"}: one {"reply": "log", "record": ...} line a record, then the
# closing reply), checked by `uthctl mystery verify` against the meter's log
# head. A hit is made to come in the second round by the board's TEST-ONLY
# seeded random source, predicted in independent_draws.py (A1: $100-$200,
# a $1 chip at 2%, so six seats add 12 cents a round, 653b.1(c)(4)).
import contextlib
import json

import pytest
from independent_draws import seeded_draws

from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.links.rig import lit

A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS = 100 * 100, 200 * 100
ROUND_CENTS = 6 * 2  # six seats, 2 cents each
SEATS = range(1, 7)

pytestmark = pytest.mark.usefixtures("micropython")


def seed_hitting_in_round_two():
    # Round one takes the meter to $100.12, round two to $100.24: a hit value
    # in [100.12, 100.23] is passed in round two.
    for seed in range(1, 200_000):
        value = seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, 1)[0][0]
        if A1_MINIMUM_CENTS + ROUND_CENTS <= value < A1_MINIMUM_CENTS + 2 * ROUND_CENTS:
            return seed
    raise AssertionError("no seed found")


def play_round(rig, link):
    for seat in SEATS:
        rig.chip(seat, True)
    rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), what="bet lights on")
    rig.press_lock()
    link.wait_event("locked")
    for seat in SEATS:
        rig.chip(seat, False)
    state = rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]),
                         what="the round to end")
    return any(state["jackpot_lights"])


def export(link, target, request_id=99):
    # The lines of one log export as the board sent them, the closing reply last.
    link.write(b'{"cmd": "log", "id": %d}\r\n' % request_id)
    lines = []
    while True:
        line = link.read_line(target.wait(10.0))
        assert line is not None, "the export stopped after %d lines" % len(lines)
        lines.append(line.decode())
        if json.loads(line).get("id") == request_id:
            return lines


@pytest.mark.pico_quick
def test_verify_checks_the_boards_own_export(tmp_path, capsys, target):
    with contextlib.ExitStack() as stack:
        vb = target.board(tmp_path / "flash.img", seed=seed_hitting_in_round_two(), power=False)
        stack.callback(vb.stop)
        vb.power(True)
        link = stack.enter_context(target.link(vb.serial_path, timeout=10.0))
        rig = stack.enter_context(target.rig(vb.rig_address))
        link.wait_ready(20.0)
        rig.key(True)  # service mode: the configuration
        rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service mode")
        assert link.command("config", mystery="A1")["ok"]
        rig.key(False)
        link.wait_event("reset")
        assert [play_round(rig, link) for _ in range(2)] == [False, True]
        rig.turn_key()  # validates the hit: paid, and the meter reset
        link.wait_event("paid")
        link.wait_event("reset")
        lines = export(link, target)
        meters = link.command("meters")["meters"]
    # config, reset, service mode left, 2 rounds, hit, validated, paid, reset:
    # 9 records, 9 replies + 1.
    assert meters["log_seq"] == 9 and len(lines) == 10
    assert all(line.endswith("\r\n") for line in lines)
    path = tmp_path / "export.jsonl"
    path.write_text("".join(lines))
    head = "%d:%s" % (meters["log_seq"], meters["log_hash"])
    capsys.readouterr()
    assert uthctl(["mystery", "verify", str(path), "--head", head, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["records"] == 9
    assert (out["hits"], out["anchored"]) == (1, 1)
    assert (out["starts_at"], out["ends_at"]) == ("genesis", "the meter's head")
