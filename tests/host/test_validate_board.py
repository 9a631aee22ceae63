# uthctl validate against a running board through its pty, as against
# /dev/ttyACM0: refused before anything is sent while no hit is pending or
# with a bad number; sent while a hit is pending, it is recorded by the key
# turn in the validated record, which the audit report shows. The hit comes
# in round two from the board's TEST-ONLY seeded draws (independent_draws.py).
import contextlib
import json

import pytest
from test_vboard_export import play_round, seed_hitting_in_round_two

from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl

pytestmark = pytest.mark.usefixtures("micropython")


@contextlib.contextmanager
def _board(target, tmp_path):
    # A board configured A1 in service mode, its port free for uthctl.
    with contextlib.ExitStack() as stack:
        board = target.board(tmp_path / "flash.img", seed=seed_hitting_in_round_two())
        stack.callback(board.stop)
        rig = stack.enter_context(target.rig(board.rig_address))
        with target.link(board.serial_path, timeout=10.0) as link:
            link.wait_ready(20.0)
            rig.key(True)
            rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service")
            assert link.command("config", mystery="A1")["ok"]
            rig.key(False)
            link.wait_event("reset")
        yield board, rig


def _run(capsys, port, *argv, code=0):
    capsys.readouterr()
    assert uthctl([*argv, "--port", port, "--timeout", "10"]) == code
    out, err = capsys.readouterr()
    return err.strip() if code else out


def test_validate_is_recorded_by_the_key_turn(target, tmp_path, capsys):
    with _board(target, tmp_path) as (board, rig):
        port = board.serial_path
        error = _run(capsys, port, "validate", "--employee", "4417", code=2)
        assert error == "uthctl: error: not sent: no hit is pending (the table is betting)"
        with target.link(port, timeout=10.0) as link:
            assert not play_round(rig, link) and play_round(rig, link)  # round two hits
        error = _run(capsys, port, "validate", "--employee", " 4417", code=2)
        assert error == ("uthctl: error: not sent: employee must be 1 to 24 printable "
                         "characters, no space at either end")
        out = _run(capsys, port, "validate", "--employee", "4417", "--slip", "JS-00912")
        assert "employee 4417, jackpot slip JS-00912" in out
        shown = json.loads(_run(capsys, port, "status", "--json"))
        assert shown["status"]["validation"] == {"employee": "4417", "slip": "JS-00912"}
        rig.turn_key()
        rig.wait_for(lambda s: not any(s["jackpot_lights"]), what="the jackpot light off")
        report = json.loads(_run(capsys, port, "audit", "--json"))
        assert report["ok"], report["failures"]
        assert report["hits"][0]["validated"] == {"employee": "4417", "slip": "JS-00912"}
        text = _run(capsys, port, "audit")
        assert "validated by employee 4417, jackpot slip JS-00912" in text
