# The words `uthctl monitor` gives the board's events, for the examples of
# docs/host-link.md (money in micro-dollars, wagers in cents).
import json

import pytest

from uthctl.commands.monitor_text import event_line, table_line

EXAMPLES = [
    ({"ev": "started", "state": "betting"}, "controller started: betting"),
    ({"ev": "config", "config": "B2", "was": "A1", "seq": 41},
     "configuration A1 -> B2 (log record 41)"),
    ({"ev": "reset", "cycle": 3, "config": "B2", "meter": 100020000,
      "commitment": "9f2c" * 16, "seq": 42},
     "reset: cycle 3 of B2 starts at $100.02, commitment 9f2c9f2c9f2c9f2c… (log record 42)"),
    ({"ev": "locked", "round": 118, "seq": 43, "meter": 100160000},
     "round 118 locked, meter $100.16 (log record 43)"),
    ({"ev": "contribution", "round": 118, "seat": 2, "wager": 200, "amount": 70000},
     "  seat 2: $2.00 wager contributes $0.07"),
    ({"ev": "hit", "seat": 4, "award": 187340000, "cycle": 3, "round": 230,
      "hit_value": 187300000, "seq": 160},
     "HIT seat 4: $187.34 (cycle 3, round 230; hit value $187.30 revealed) (log record 160)"),
    ({"ev": "validated", "seat": 4, "award": 187340000, "cycle": 3, "seq": 161},
     "hit validated: seat 4, $187.34 (cycle 3) (log record 161)"),
    ({"ev": "paid", "seat": 4, "award": 187340000, "cycle": 3, "payment": "jackpot_slip",
      "seq": 162}, "paid: seat 4, $187.34 by jackpot slip (log record 162)"),
    ({"ev": "key", "key_id": "9c41e07b5d2a3f68", "was": None, "seq": 12},
     "record key 9c41e07b5d2a3f68 given (the board's first) (log record 12)"),
    ({"ev": "key", "key_id": "0d5e9a4c2b1f7e38", "was": "9c41e07b5d2a3f68", "seq": 40},
     "record key 0d5e9a4c2b1f7e38 given (replacing 9c41e07b5d2a3f68) (log record 40)"),
    ({"ev": "program", "digest": "af" * 32, "was": "2c" * 32, "kind": "files", "seq": 61},
     "program afafafafafafafaf accepted (replacing 2c2c2c2c2c2c2c2c) (log record 61)"),
    ({"ev": "start", "program": "af" * 32, "cause": "pwron_reset", "seq": 62},
     "controller start recorded: program afafafafafafafaf, reset cause pwron_reset "
     "(log record 62)"),
    ({"ev": "service", "entered": True, "seq": 63}, "service mode entered (log record 63)"),
    ({"ev": "service", "entered": False}, "service mode left"),
    ({"ev": "clock", "was": [2021, 1, 1, 0, 0, 9], "new": [2026, 12, 5, 14, 30, 0], "seq": 64},
     "clock set to 2026-12-05 14:30:00 (was 2021-01-01 00:00:09) (log record 64)"),
    ({"ev": "refused", "reason": "no round while the meter is pending"},
     "refused: no round while the meter is pending"),
    ({"ev": "fault", "reason": "store: no readable meter record"},
     "FAULT: store: no readable meter record"),
    ({"ev": "store_warning", "reason": "meter copy meter.b is unreadable"},
     "store warning: meter copy meter.b is unreadable"),
    ({"ev": "fault_cleared", "source": "display", "seq": 47,
      "reason": "display: the LED meter does not acknowledge (9 bytes missed)"},
     "fault cleared: display: the LED meter does not acknowledge (9 bytes missed)"),
    ({"ev": "door", "state": "open", "seq": 48},
     "DOOR OPEN: the controller's door opened, LOCK refused until it is closed (log record 48)"),
    ({"ev": "door", "state": "closed", "seq": 49}, "door closed (log record 49)"),
    ({"ev": "door", "state": "open"},
     "DOOR OPEN: the controller's door opened, LOCK refused until it is closed"),
    ({"ev": "setting_refused", "name": "wager_cents", "value": 500, "phase": "running",
      "cycle": 1, "round": 1, "seq": 45},
     "setting wager_cents refused mid-cycle (cycle 1, round 1), logged (log record 45)"),
]


@pytest.mark.parametrize("event,words", EXAMPLES, ids=[e["ev"] for e, _ in EXAMPLES])
def test_each_event_in_words(event, words):
    assert event_line(event) == words


def test_an_unknown_or_incomplete_event_is_shown_as_received():
    for event in ({"ev": "lights", "seats": [1]}, {"ev": "locked", "round": 3}):
        assert event_line(event) == json.dumps(event)


def test_the_polled_table():
    status = {"state": "locked", "display": "100.04", "fault": None, "locked_in": [2, 5],
              "stale_chips": []}
    meters = {"meter": 100040000, "config": "A1", "cycle": 1, "round": 1}
    assert table_line(status, meters) == ("table: locked, locked in 2,5, stale chips none, "
                                          "display 100.04, meter $100.04 (A1, cycle 1, round 1)")
    status["lights"] = {"bet": [2, 5], "jackpot": []}
    assert table_line(status, None) == ("table: locked, locked in 2,5, stale chips none, "
                                        "display 100.04, bet lights 2,5, jackpot light none")
    status["door"] = "open"
    assert table_line(status, None).endswith("jackpot light none, DOOR OPEN")

