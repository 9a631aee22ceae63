# The program check at every start on a running board (docs/threat-model.md,
# "The program at start"; 9 NYCRR 5321.18(b)(3)(iv)). The virtual board's
# program is the build its supervisor lends it (boards/sim/board.py), so a
# program changed is that build with one more file beside it: the board
# faults at its next start (FAULt, a `fault` event naming both digests, LOCK
# refused) until a technician, the key held, accepts it in a signed `program`
# record. The emulated Pico's program is its image: accepted, a restart
# checks it and plays. Expected digests are worked here from the files or the
# UF2 file, as the board's `authenticate` reads them, with no seed before them.
import contextlib
import hashlib
import hmac
import shutil
import time

import pytest

from uthctl.analysis import record_auth
from uthctl.analysis.program_digest import uf2_image
from uthctl.boards import pico_image
from uthctl.boards.max7219_model import reading

KEY = "5e" * 32


def files_digest(folder):
    # The virtual board's program: each file under the lent folder as
    # "lib/<path>" (main.py as itself), by name, as name, length, bytes.
    named = sorted(("main.py" if path.relative_to(folder).as_posix() == "main.py"
                    else "lib/" + path.relative_to(folder).as_posix(), path)
                   for path in folder.rglob("*") if path.is_file())
    digest = hashlib.sha256()
    for name, path in named:
        data = path.read_bytes()
        digest.update(b"%s\n%d\n" % (name.encode(), len(data)) + data)
    return digest.hexdigest()


def auth_by_hand(key_hex, record):
    # docs/host-link.md, "Record keys": the key's id, then HMAC-SHA256 over "record:" + hash.
    key = bytes.fromhex(key_hex)
    kid = hashlib.sha256(b"uth record key id:" + key).hexdigest()[:16]
    return kid + ":" + hmac.new(key, b"record:" + record["hash"].encode(),
                                hashlib.sha256).hexdigest()


@contextlib.contextmanager
def started(target, tmp_path):
    # A new board configured A1, given its record key, the program accepted
    # in service mode; its board, link and rig, the key released.
    with contextlib.ExitStack() as stack:
        board = target.board(tmp_path / "flash.img")
        stack.callback(board.stop)
        link = stack.enter_context(target.link(board.serial_path, timeout=10.0))
        rig = stack.enter_context(target.rig(board.rig_address))
        link.wait_ready(20.0)
        assert link.command("status")["program"]["check"] == "not_accepted"
        hold_key(rig, True)
        assert link.command("config", mystery="A1")["ok"]
        assert link.command("provision", key=KEY)["ok"]
        accepted = link.command("accept_program", timeout=target.wait(20.0))
        assert accepted["ok"], accepted
        hold_key(rig, False)
        yield board, link, rig, accepted


def hold_key(rig, held):
    service = reading("SErvICE")
    rig.key(held)
    rig.wait_for(lambda s: (reading(s["display"]) == service) == held, what="the key")


def last_record(link, kind):
    # The newest record of that kind among the last three (service mode's
    # own records may follow it: entered, left).
    head = link.command("meters")["meters"]["log_seq"]
    link.send({"cmd": "log", "since": head - 2})
    found = []
    while True:
        message = link.read_message()
        if "record" not in message:
            assert message["ok"], message
            break
        found.append(message["record"])
    record = [r for r in found if r["ev"] == kind][-1]
    assert all(r["ev"] == "service" for r in found[found.index(record) + 1:]), found
    return record


@pytest.mark.target("sim")
def test_a_changed_program_faults_until_accepted_with_the_key(target, tmp_path):
    with started(target, tmp_path) as (board, link, rig, accepted):
        lent = board._build[0]
        old = files_digest(lent)
        assert (accepted["was"], accepted["digest"]) == (None, old)
        record = last_record(link, "program")
        assert (record["ev"], record["digest"], record["kind"]) == ("program", old, "files")
        assert record["auth"] == auth_by_hand(KEY, record)
        # The program changed: one file more in the build the board runs.
        changed = tmp_path / "changed" / "firmware"  # the board finds its build by that name
        shutil.copytree(lent, changed)
        (changed / "extra.txt").write_bytes(b"not the accepted program\n")
        new = files_digest(changed)
        rig.power(False)
        board._build = (changed, board._build[1])
        link.events.clear()
        rig.power(True)
        fault = link.wait_event("fault", timeout=target.wait(20.0))
        assert (fault["program"], fault["accepted"]) == (new, old), fault
        rig.wait_for(lambda s: reading(s["display"]) == reading("FAULt"), what="FAULt")
        seq = link.command("meters")["meters"]["log_seq"]
        rig.chip(2, True)
        rig.press_lock()
        status = link.command("status")
        assert status["state"] == "fault" and "program" in status["fault"], status
        assert status["program"]["check"] == "changed"
        assert link.command("meters")["meters"]["log_seq"] == seq  # no round locked
        assert not link.command("accept_program")["ok"]  # not without the key
        rig.key(True)
        time.sleep(target.wait(0.3))  # past the key's debounce (controller.SETTLE_MS)
        again = link.command("accept_program", timeout=target.wait(20.0))
        assert again["ok"] and (again["was"], again["digest"]) == (old, new), again
        record = last_record(link, "program")
        assert (record["ev"], record["was"], record["digest"]) == ("program", old, new)
        assert record["auth"] == auth_by_hand(KEY, record)
        hold_key(rig, False)
        rig.press_lock()  # the chip still on seat 2: the round locks now
        rig.wait_for(lambda s: 2 in [n + 1 for n, on in enumerate(s["bet_lights"]) if on],
                     what="the round locked")
        assert link.command("meters")["meters"]["round"] == 1


@pytest.mark.pico_quick
@pytest.mark.target("pico")
def test_the_pico_checks_its_image_at_start(target, tmp_path):
    image = hashlib.sha256(uf2_image(pico_image.project_image_path())).hexdigest()
    with started(target, tmp_path) as (board, link, rig, accepted):
        assert (accepted["was"], accepted["digest"]) == (None, image)
        rig.power(False)
        link.events.clear()
        rig.power(True)
        link.wait_ready(target.boot_wait)
        status = link.command("status")
        assert status["state"] == "betting", status
        # What the check added to this start, on the chip's clock: SHA-256 in
        # software over the whole image (over 400 KB) cannot take under 0.1 s at
        # 125 MHz (that would be under 32 cycles a byte). Printed for docs/benchmarks.md.
        took = status["program"].pop("check_ms")
        print("the Pico's program check at start: %d ms over %d bytes"
              % (took, len(uf2_image(pico_image.project_image_path()))))
        assert type(took) is int and took > 100, took
        assert status["program"] == {"check": "accepted", "kind": "image", "digest": image,
                                     "accepted": image}


def test_each_start_times_its_program_check(target, tmp_path):
    # What the check adds to a start, on the board's own clock (`status`'s
    # program.check_ms), printed for docs/benchmarks.md on every target: the
    # virtual board's files, the emulated Pico's image, the emulated ESP32's
    # files. On a chip, SHA-256 in software over the program (over 80 KB)
    # cannot take under a millisecond; the virtual board's may round to 0.
    board = target.board(tmp_path / "flash.img")
    try:
        with target.link(board.serial_path, timeout=10.0) as link:
            link.wait_ready(20.0)
            program = link.command("status", timeout=target.wait(10.0))["program"]
    finally:
        board.stop()
    took = program["check_ms"]
    print("%s: the program check at start took %s ms (%s)" % (target.name, took,
                                                                program["kind"]))
    assert program["check"] == "not_accepted" and program["digest"], program
    assert type(took) is int and took >= (0 if target.name == "sim" else 1), program


@pytest.mark.target("sim")
def test_uthctl_accept_program_in_service_mode_and_status_says_so(cli_table, capsys,
                                                                  tmp_path):
    table = cli_table
    assert "program        not accepted yet" in table.run(capsys, "status")
    refused = table.run(capsys, "accept-program", code=2)
    assert "service mode" in refused, refused
    key_file = tmp_path / "table-1.keys"
    record_auth.add_key(key_file, "1")
    table.provision(capsys, key_file)
    table.key(True)
    given = table.run(capsys, "accept-program", "--json")
    table.key(False)
    digest = files_digest(table.vb._build[0])
    assert (given["digest"], given["was"]) == (digest, None), given
    shown = table.run(capsys, "status")
    assert "program        accepted, checked at this start (files %s), the check took " \
        % digest[:16] in shown
