# The interactive table's round entry: a round typed as the dealer's cards,
# the board's and each seat's, sent to the board as its `round` command, and
# the board's settlement shown. Offline: the host link is a fake that answers
# as the board does; the board's own settling is test_round_command's.
import threading
from collections import deque

import pytest

from uthctl.tui.hands import Hands
from uthctl.tui.round_entry import STAKE_CENTS, parse_entry, settlement_lines
from uthctl.tui.screen import Canvas
from uthctl.tui.view import TableView

OFFERED = {"trips": "E", "ultimate_pairs": "F"}


class _Fake:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def test_a_typed_round_is_the_boards_round_command():
    data = parse_entry("QsKs 9sTsJs9c9d 1:9h2c 5:7c2d/f", OFFERED)
    assert data == {"dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
                    "seats": [{"seat": 1, "cards": ["9h", "2c"], "folded": False,
                               "wagers": {"trips": STAKE_CENTS, "ultimate_pairs": STAKE_CENTS}},
                              {"seat": 5, "cards": ["7c", "2d"], "folded": True,
                               "wagers": {"trips": STAKE_CENTS, "ultimate_pairs": STAKE_CENTS}}]}


@pytest.mark.parametrize("text, says", [
    ("QsKs 9sTsJs9c9d", "at least one seat"),
    ("QsK 9sTsJs9c9d 1:9h2c", "the dealer: 2 cards"),
    ("QsKs 9sTsJs9c 1:9h2c", "the board: 5 cards"),
    ("QsKs 9sTsJs9c9d one:9h2c", "seat:cards"),
    ("QsKs 9sTsJs9c9d 1:9h", "seat 1: 2 cards"),
])
def test_a_mistyped_round_is_not_sent(text, says):
    with pytest.raises(ValueError, match=says):
        parse_entry(text, OFFERED)


def test_no_round_without_paytables_set():
    with pytest.raises(ValueError, match="offers no side wager"):
        parse_entry("QsKs 9sTsJs9c9d 1:9h2c", {})


# Seat 1's four nines: Trips E 30 to 1 on $5 (+$150); 9-2 makes no Ultimate
# Pairs line (-$5). A $1,000 limit cut a $2,500 Bad Beat win.
REPLY = {"ok": True, "reply": "round", "seq": 12, "seats": [{"seat": 1, "results": {
    "trips": {"category": "four_of_a_kind", "odds": 30, "net": 15000},
    "bad_beat": {"category": "four_of_a_kind", "odds": 500, "net": 100000, "limited": True,
                 "unlimited": 250000},
    "ultimate_pairs": {"category": None, "odds": None, "net": -500}}}]}


def test_the_settlement_lines():
    assert settlement_lines(REPLY) == [
        "round settled on the board (log record 12):",
        "  seat 1: trips four of a kind +$150.00; bad beat four of a kind +$1,000.00 (limited "
        "from +$2,500.00); ultimate pairs loses -$5.00"]


def test_the_hands_send_the_round_and_note_the_results():
    sent = []

    def command(cmd, **fields):
        sent.append((cmd, fields))
        return REPLY

    host = _Fake(command=command, inbox=deque())
    said = []
    hands = Hands(None, host, lambda text, style: said.append(text))
    data = parse_entry("QsKs 9sTsJs9c9d 1:9h2c", OFFERED)
    hands.settle_round(data)
    assert sent == [("round", data)]
    assert [item for _, item in host.inbox] == settlement_lines(REPLY)
    assert said == ["round settled: log record 12 (the results are in the events)"]
    refused = _Fake(command=lambda cmd, **f: {"ok": False, "error": "no paytable"},
                    inbox=deque())
    Hands(None, refused, lambda text, style: said.append(text)).settle_round(data)
    assert said[-1] == "the board refused the round: no paytable"


def test_e_opens_the_entry_and_enter_sends_it():
    jobs = []
    board = _Fake(alive=lambda: True, failure=None, serial_path="/dev/pts/99")
    meters = {"meter": 100_000_000, "contributed": 0, "seeded": 100_000_000, "paid": 0,
              "hits": 0, "phase": "running", "config": "A1", "cycle": 1, "round": 0,
              "pending": None, "last_hits": [], "settings": {"paytables": OFFERED}}
    host = _Fake(status={"state": "betting", "payment": "table_inventory", "locked_in": []},
                 meters=meters,
                 inbox=deque(), failure=None, answered_at=None, at_repl=None)
    hands = _Fake(auto=None, autoplaying=threading.Event(),
                  do=lambda job, *args: jobs.append((job, args)), settle_round="settle")
    view = TableView(board, host, hands, None)
    view.key(ord("e"))
    for char in "QsKs 9sTsJs9c9d 1:9h2x":
        view.key(ord(char))
    view.key(127)  # backspace
    view.key(ord("c"))
    canvas = Canvas(80, 24)
    view.draw(canvas)
    assert "> QsKs 9sTsJs9c9d 1:9h2c_" in canvas.text()
    view.key(10)
    assert view.entry is None
    assert jobs == [("settle", (parse_entry("QsKs 9sTsJs9c9d 1:9h2c", OFFERED),))]
