# uthctl log export and uthctl audit against a running board, through its
# pty as against /dev/ttyACM0: rounds played through the rig, hits validated
# with the key. The meters they must agree with are predicted here from the
# regulation and the board's TEST-ONLY seeded draws (independent_draws.py):
# A1 is $100-$200 at 2% (653b.1(c)(4)), so each of six $1 chips adds 2 cents,
# seat by seat; the first to take the meter above the hit value hits, for the
# meter to the cent; what later seats add stays for the next cycle.
import contextlib
import json
import time

import pytest
from independent_draws import seeded_draws
from test_vboard_export import seed_hitting_in_round_two

from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.links.rig import lit

MINIMUM, MAXIMUM = 100_00, 200_00  # A1, cents
SEAT_CENTS = 2  # 2% of a $1 chip
SEATS = range(1, 7)
MICROS_PER_CENT = 10_000


def predicted(seed, rounds):
    # The meters after `rounds` six-seat rounds, every hit validated and reset.
    values = iter([value for value, _ in seeded_draws(seed, MINIMUM, MAXIMUM, 64)])
    value, meter, seeded, paid, hits = next(values), MINIMUM, MINIMUM, 0, 0
    for _ in range(rounds):
        award = None
        for _seat in SEATS:
            meter += SEAT_CENTS
            if award is None and meter > value:
                award = min(meter, MAXIMUM)
        if award is not None:
            meter, paid, hits = meter - award + MINIMUM, paid + award, hits + 1
            seeded, value = seeded + MINIMUM, next(values)
    contributed = rounds * len(SEATS) * SEAT_CENTS
    return {name: cents * MICROS_PER_CENT for name, cents in
            (("meter", meter), ("seeded", seeded), ("paid", paid), ("contributed", contributed))
            } | {"hits": hits}


@contextlib.contextmanager
def table(target, tmp_path, seed):
    # A board configured A1 in service mode, its link and rig.
    with contextlib.ExitStack() as stack:
        board = target.board(tmp_path / "flash.img", seed=seed, power=False)
        stack.callback(board.stop)
        board.power(True)
        link = stack.enter_context(target.link(board.serial_path, timeout=10.0))
        rig = stack.enter_context(target.rig(board.rig_address))
        link.wait_ready(20.0)
        rig.key(True)
        rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service")
        assert link.command("config", mystery="A1")["ok"]
        rig.key(False)
        link.wait_event("reset")
        yield board, link, rig


def play(target, link, rig, rounds):
    # Rounds of six $1 chips; each hit validated with the key (paid, reset).
    # Quick polls on the virtual board; the emulated Pico is not to be flooded.
    poll = 0.005 if target.name == "sim" else 0.05
    hits = 0
    for _ in range(rounds):
        while link.command("status")["state"] != "betting":
            time.sleep(poll)
        for seat in SEATS:
            rig.chip(seat, True)
        rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), interval=poll,
                     what="bet lights on")
        rig.press_lock(hold_ms=50)
        link.wait_event("locked")
        for seat in SEATS:
            rig.chip(seat, False)
        state = rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]),
                             interval=poll, what="the round to end")
        if any(state["jackpot_lights"]):
            hits += 1
            rig.turn_key()
            link.wait_event("paid")
            link.wait_event("reset")
    link.events.clear()
    return hits


def cli(capsys, *argv):
    capsys.readouterr()
    code = uthctl(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cli_json(capsys, *argv, code=0):
    got, out, err = cli(capsys, *argv, "--json")
    assert got == code, (out, err)
    return json.loads(out)


def accounts(meters):
    return {name: meters[name] for name in ("meter", "seeded", "paid", "contributed", "hits")}


@pytest.mark.pico_quick
def test_export_joins_on_and_audit_verifies(tmp_path, capsys, target):
    seed = seed_hitting_in_round_two()
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    with table(target, tmp_path, seed) as (board, link, rig):
        assert play(target, link, rig, 2) == 1
        port = board.serial_path
        out = cli_json(capsys, "log", "export", "--port", port, "--out", str(first), "--csv")
        # config, reset, service mode left, round, round, hit, validated, paid, reset.
        assert (out["first_seq"], out["last_seq"], out["records"]) == (1, 9, 9)
        assert out["head"]["seq"] == 9
        lines = first.read_text().splitlines()
        assert [json.loads(line)["ev"] for line in lines] == [
            "config", "reset", "service", "round", "round", "hit", "validated", "paid", "reset"]
        csv_lines = (tmp_path / "first.csv").read_text().splitlines()
        assert len(csv_lines) == 10 and csv_lines[0].startswith("seq,ev,time_utc,")
        last = json.loads(lines[-1])
        assert play(target, link, rig, 1) == 0
        out = cli_json(capsys, "log", "export", "--port", port, "--out", str(second),
                       "--after", str(first))
        assert (out["first_seq"], out["last_seq"]) == (10, 10)
        assert json.loads(second.read_text())["prev"] == last["hash"]
        # The same anchor given by hand, but with another record's hash: refused.
        wrong = "9:" + json.loads(lines[-2])["hash"]
        code, _, err = cli(capsys, "log", "export", "--port", port, "--out",
                           str(tmp_path / "wrong.jsonl"), "--after", wrong)
        assert code == 2 and "the logs do not join on" in err and "record 10's prev" in err
        assert not (tmp_path / "wrong.jsonl").exists()

        report = cli_json(capsys, "audit", "--port", port, "--log", str(first), "--log",
                          str(second))
        assert report["ok"] and report["log"]["from_genesis"]
        assert accounts(report["meters"]) == predicted(seed, 3)
        code, text, _ = cli(capsys, "audit", "--port", port, "--plot", str(tmp_path / "m.png"))
        assert code == 0 and "AUDIT PASSED" in text
        assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
        assert text.rstrip().endswith("plot: the meter chart written to %s" % (tmp_path / "m.png"))
        # One byte of the first export changed: the audit fails, naming it.
        changed = lines[4].replace('"meter": 1002', '"meter": 1003', 1)
        assert changed != lines[4]
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(lines[:4] + [changed] + lines[5:]) + "\n")
        code, text, _ = cli(capsys, "audit", "--port", port, "--log", str(bad), "--log",
                            str(second))
        assert code == 1 and "AUDIT FAILED" in text and "record 5 was altered" in text
        # The first export's first four records cut, which the board still keeps (it
        # has dropped none): the audit names them missing, and passes only a part asked for.
        cut = tmp_path / "cut.jsonl"
        cut.write_text("\n".join(lines[4:]) + "\n")
        code, text, _ = cli(capsys, "audit", "--port", port, "--log", str(cut), "--log",
                            str(second))
        assert code == 1 and "AUDIT FAILED" in text, text
        assert "records 1-4 are missing from the log's front" in text, text
        code, text, _ = cli(capsys, "audit", "--port", port, "--log", str(cut), "--log",
                            str(second), "--from", "5")
        assert code == 0 and text.startswith("Mystery audit of part of the log, from record 5"), \
            text


def seed_with_hits(rounds, hits):
    for seed in range(1, 10_000):
        if predicted(seed, rounds)["hits"] >= hits:
            return seed
    raise AssertionError("no seed found")


@pytest.mark.long_run
@pytest.mark.target("sim")
def test_audit_of_a_long_virtual_run(tmp_path, capsys, target):
    # 300 rounds, none collected: the board keeps every record (its log lets
    # a record go only once collected: docs/mystery.md, "Collected"), so the
    # board's own log audits from record 1, as do an export taken midway and
    # one joined on at the end. (A log whose oldest records the board removed:
    # tests/host/test_audit_checks.py.)
    rounds, midway = 300, 120
    seed = seed_with_hits(rounds, 2)
    want = predicted(seed, rounds)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    with table(target, tmp_path, seed) as (board, link, rig):
        hits = play(target, link, rig, midway)
        port = board.serial_path
        cli_json(capsys, "log", "export", "--port", port, "--out", str(first))
        hits += play(target, link, rig, rounds - midway)
        assert hits == want["hits"]
        cli_json(capsys, "log", "export", "--port", port, "--out", str(second), "--after",
                 str(first))
        board_only = cli_json(capsys, "audit", "--port", port)
        both = cli_json(capsys, "audit", "--port", port, "--log", str(first), "--log",
                        str(second))
        code, text, _ = cli(capsys, "audit", "--port", port)
    assert accounts(board_only["meters"]) == want
    assert board_only["ok"], board_only["failures"]
    dropped = board_only["log"]["dropped"]
    assert dropped == 0 and board_only["log"]["first_seq"] == 1
    assert board_only["meters"]["log_dropped"] == 0
    assert code == 0 and "AUDIT PASSED" in text
    # The exports' chain goes back to record 1: every total recomputed.
    assert both["ok"], both["failures"]
    # "dropped" is what the board's log removed, whatever the log audited holds.
    assert both["log"]["from_genesis"] and both["log"]["dropped"] == dropped
    assert {k: both["accounts"]["recomputed"][k] for k in want} == want
