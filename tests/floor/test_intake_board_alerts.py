# What a table's own records raise and clear on the floor: the controller's
# door opened is a `door` alert until its `door` closed record; the display's
# fault a `display` alert until its `fault_cleared` record. A live event where
# the board's log took none raises alike but never clears: a clear is the
# board's chained word, and a table's MQTT account may be an attacker's.
import json

import pytest
from chains import CASINO, message, topic

from mystery import chain
from uthctl.floor.intake import ACCEPTED, KEPT, Intake

DISPLAY = "display: the LED meter does not acknowledge (9 bytes missed)"


@pytest.fixture
def intake(store):
    return Intake(store, CASINO)


def _log(*events):
    made, prev = [], chain.GENESIS
    for seq, event in enumerate(events, 1):
        record = chain.link(dict(event), seq, prev)
        made.append(record)
        prev = record["hash"]
    return made


def _standing(store):
    return [(a["kind"], a["text"]) for a in store.alerts("3", open_only=True)]


def _take(intake, records):
    return [intake.take(topic("3"), message("3", r)) for r in records]


def test_a_door_opened_raises_an_alert_its_closing_clears(intake, store):
    made = _log({"ev": "door", "state": "open"}, {"ev": "door", "state": "closed"})
    assert _take(intake, made[:1]) == [ACCEPTED]
    assert _standing(store) == [
        ("door", "the controller's door opened (record 1): LOCK refused until it is closed")]
    assert _take(intake, made[1:]) == [ACCEPTED]
    assert _standing(store) == []
    cleared = store.alerts("3")[0]
    assert cleared["kind"] == "door" and cleared["text"].endswith(
        "; cleared: the door closed (record 2)")


def test_a_display_fault_record_raises_an_alert_its_clearing_clears(intake, store):
    made = _log({"ev": "fault", "source": "display", "reason": DISPLAY},
                {"ev": "fault_cleared", "source": "display", "reason": DISPLAY})
    _take(intake, made[:1])
    assert _standing(store) == [("display", DISPLAY + " (record 1)")]
    _take(intake, made[1:])
    assert _standing(store) == []
    assert store.alerts("3")[0]["text"].endswith("; cleared: display cleared (record 2)")


def test_a_door_and_a_display_fault_stand_and_clear_apart(intake, store):
    made = _log({"ev": "door", "state": "open"},
                {"ev": "fault", "source": "display", "reason": DISPLAY},
                {"ev": "door", "state": "closed"})
    _take(intake, made)
    assert [kind for kind, _ in _standing(store)] == ["display"]


def _live(intake, event):
    return intake.take(topic("3"), json.dumps({"table": "3", "event": event}).encode())


def test_a_live_door_event_raises_but_a_live_closing_clears_nothing(intake, store):
    # The event alone: the board's log took no record (a full flash).
    assert _live(intake, {"ev": "door", "state": "open"}) == KEPT
    assert [kind for kind, _ in _standing(store)] == ["door"]
    assert _live(intake, {"ev": "door", "state": "closed"}) == KEPT
    assert _live(intake, {"ev": "fault_cleared", "source": "door"}) == KEPT
    assert [kind for kind, _ in _standing(store)] == ["door"]


def test_a_fault_cleared_cannot_put_out_another_kind_of_alert(intake, store):
    # The store's fault (no source) and the floor's own kinds stand until a
    # person acknowledges them, whatever source a record names.
    _live(intake, {"ev": "fault", "reason": "store: the newest meter copy is unreadable"})
    intake.take(topic("3", "status"), b'{"table": "3", "status": "offline"}')
    made = _log({"ev": "fault_cleared", "source": "offline", "reason": "x"},
                {"ev": "fault_cleared", "source": "fault", "reason": "x"},
                {"ev": "fault_cleared", "reason": "x"})
    assert _take(intake, made) == [ACCEPTED] * 3
    assert sorted(kind for kind, _ in _standing(store)) == ["fault", "offline"]
