# Random rounds sent to a running board as its `round` command, each answered
# exactly as `uthctl settle` settles the same round on the host with the
# rules set on the board; a bad round among them refused whole; then the
# board's log, exported as it grows, verifies from record 1 with every
# settlement settled again, and the side wager meters equal the sums of the
# answers. 200 rounds on the virtual board by default (about 15 s), 20 on the
# emulated Pico (`make test-pico`), 3,000 under long_run.
import contextlib
import random

import pytest

from uth.cards import RANKS, SUITS
from uth.paytables import SETTLED_WAGERS
from uth.settle import settle
from uthctl.analysis import hold, log_verify
from uthctl.cli import main as uthctl
from uthctl.links import logexport

pytestmark = pytest.mark.usefixtures("micropython")

TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
# A $500 limit per wager: Bad Beat's and Ultimate Pairs' top lines, and a
# $25 wager's bigger wins, are limited now and then (653a.12(h)).
LIMIT_CENTS = 50_000
STAKES = (0, 100, 500, 2500)
DECK = [rank + suit for rank in RANKS for suit in SUITS]
EXPORT_EVERY = 40  # rounds between log exports: well inside the board's kept log
SEED = 653


# The virtual board runs at the Pico's heap plus its own overhead on the
# 32-bit unix port (docs/heap.md); where the heap cannot hold the settlement
# a round is refused and play goes on (tests/logic/test_round_command.py).


@pytest.fixture
def board(tmp_path, target):
    with contextlib.ExitStack() as stack:
        vb = target.board(tmp_path / "flash.img")
        stack.callback(vb.stop)
        link = stack.enter_context(target.link(vb.serial_path, timeout=10.0))
        link.wait_ready(target.wait(20.0))
        rig = stack.enter_context(target.rig(vb.rig_address))
        yield link, rig


def _service(link, rig, commands):
    rig.key(True)
    rig.wait_for(lambda s: link.command("status")["state"] == "service", what="service mode")
    replies = [link.command(cmd, **fields) for cmd, fields in commands]
    rig.key(False)
    rig.wait_for(lambda s: link.command("status")["state"] != "service", what="play")
    return replies


def random_round(rng, number):
    cards = rng.sample(DECK, 7 + 2 * 7)
    seats = []
    for seat in sorted(rng.sample(range(1, 8), rng.randint(1, 7))):
        wagers = {wager: rng.choice(STAKES) for wager in SETTLED_WAGERS}
        seats.append({"seat": seat, "cards": cards[7 + 2 * (seat - 1):9 + 2 * (seat - 1)],
                      "folded": rng.random() < 0.2,
                      "wagers": {w: cents for w, cents in wagers.items() if cents}})
    return {"round": "r%d" % number, "dealer": cards[:2], "board": cards[2:7], "seats": seats}


def _on_the_host(data):
    # `uthctl settle` on the same round, with the rules set on the board.
    return settle(dict(data, paytables=TABLES, max_payout_cents=LIMIT_CENTS))


def _add(sums, data, reply):
    # The board's answers summed as its meters count them: per wager and
    # paytable, the wagers, the amount wagered, and what a win paid back.
    for seat, answered in zip(data["seats"], reply["seats"], strict=True):
        for wager, stake in seat["wagers"].items():
            row = sums.setdefault("%s/%s" % (wager, TABLES[wager]), [0, 0, 0])
            net = answered["results"][wager]["net"]
            row[0] += 1
            row[1] += stake
            row[2] += stake + net if net > 0 else 0


def _play(link, rig, rounds):
    assert link.command("config", mystery="A1")["ok"] is False  # not in service mode
    replies = _service(link, rig, [("config", {"mystery": "A1"}),
                                   ("set", {"name": "paytables", "value": TABLES}),
                                   ("set", {"name": "max_payout_cents",
                                            "value": LIMIT_CENTS})])
    assert all(reply["ok"] for reply in replies), replies
    rng = random.Random(SEED)
    records, after, sums, limited = [], None, {}, 0
    for number in range(1, rounds + 1):
        data = random_round(rng, number)
        if any(seat["wagers"] for seat in data["seats"]):
            reply = link.command("round", **data)
            assert reply["ok"], (data, reply)
            expected = _on_the_host(data)
            assert reply["seats"] == expected["seats"] and reply["round"] == data["round"], (
                data, reply, expected)
            _add(sums, data, reply)
            limited += sum(r.get("limited", False) for s in reply["seats"]
                           for r in s["results"].values())
        if number % 25 == 0:
            _refused_whole(link, data)
        if number % EXPORT_EVERY == 0 or number == rounds:
            more, meters = logexport.export(link, after)
            records += more
            after = (records[-1]["seq"], records[-1]["hash"]) if records else None
            if after is not None and rounds > EXPORT_EVERY:
                # Collected, with the key held, as `uthctl log export
                # --collected` does: a log never collected fills and refuses rounds.
                [reply] = _service(link, rig, [("collected", {"seq": after[0]})])
                assert reply["ok"], reply
    return records, meters, sums, limited


def _refused_whole(link, data):
    # The round again with a card dealt twice: refused, and nothing recorded.
    before = logexport.read_meters(link)
    bad = dict(data, board=data["board"][:4] + [data["dealer"][0]])
    reply = link.command("round", **bad)
    assert reply["ok"] is False and "duplicate card" in reply["error"], reply
    assert logexport.read_meters(link) == before


def _check(records, meters, sums, settled):
    assert records[0]["seq"] == 1  # exported from record 1 as the log grew
    verified = log_verify.verify_log(records, head=logexport.head_of(meters))
    assert verified["ok"], verified
    assert verified["settled"] == settled == meters["side_wagers"]["settled"]
    side = meters["side_wagers"]["wagers"]
    assert {key: [row["wagers"], row["wagered"], row["paid"]] for key, row in side.items()} \
        == sums
    assert hold.meters_against_log(meters, records) == []


@pytest.mark.board
def test_random_rounds_settle_on_the_board_as_on_the_host(board, target):
    link, rig = board
    rounds = 200 if target.name == "sim" else 20
    records, meters, sums, limited = _play(link, rig, rounds)
    settled = sum(1 for r in records if r["ev"] == "settled")
    _check(records, meters, sums, settled)
    # Some rounds wagered nothing; some wins hit the limit.
    assert settled > 0.9 * rounds and limited > 0


@pytest.mark.board
@pytest.mark.long_run
@pytest.mark.target("sim")  # hours on the emulated Pico
def test_thousands_of_random_rounds(board, target):
    link, rig = board
    records, meters, sums, _ = _play(link, rig, 3000)
    _check(records, meters, sums, sum(1 for r in records if r["ev"] == "settled"))


# Labels a host may send that the board's MicroPython and the host's CPython
# once wrote differently in the hash's text (docs/host-link.md, "The hash's
# text"): each record the board hashed must verify here.
LABELS = ("caf\u00e9", "a\bb", "a\x7fb", "a\fb", "\u20ac5", 'q"\\')


@pytest.mark.board
def test_rounds_labelled_with_any_character_verify_on_the_host(board, tmp_path):
    link, rig = board
    replies = _service(link, rig, [("config", {"mystery": "A1"}),
                                   ("set", {"name": "paytables", "value": TABLES})])
    assert all(reply["ok"] for reply in replies), replies
    rng = random.Random(SEED)
    for label in LABELS:
        data = dict(random_round(rng, 1), round=label)
        data["seats"][0]["wagers"] = {"trips": 100}
        reply = link.command("round", **data)
        assert reply["ok"] and reply["round"] == label, (label, reply)
    records, meters = logexport.export(link)
    assert [r["label"] for r in records if r["ev"] == "settled"] == list(LABELS)
    path = tmp_path / "log.jsonl"
    logexport.write_jsonl(path, records)
    head = "%d:%s" % logexport.head_of(meters)
    assert uthctl(["mystery", "verify", str(path), "--head", head]) == 0
    verified = log_verify.verify_log(records, head=logexport.head_of(meters))
    assert verified["ok"] and verified["chain"] == "%d records chain" % len(records), verified
