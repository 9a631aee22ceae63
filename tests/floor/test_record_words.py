# A record in words, as the table page lists it, from records of the
# firmware's own shapes (mystery/meter.py, bonus.py); anything else, or a
# record of a shape the floor did not expect, reads as its fields.
from uthctl.floor.record_words import words


def test_the_firmwares_records_in_words():
    assert words({"ev": "config", "config": "A1", "was": None}) == "configuration A1"
    assert words({"ev": "config", "config": "B1", "was": "A1"}) == "configuration B1 (was A1)"
    # Micro-dollars in dollars: 15,000 is $0.015 (a fraction of a cent kept), 123,456,000 $123.456.
    assert words({"ev": "round", "round": 7, "meter": 123_456_000,
                  "contributions": [[1, 500, 50_000], [4, 100, 15_000]]}) == (
        "round 7: seat 1 contributed $0.05; seat 4 contributed $0.015, meter $123.456")
    assert words({"ev": "round", "round": 8, "meter": 100_000_000, "contributions": []}) == (
        "round 8: no seat contributed, meter $100.00")
    assert words({"ev": "retained", "amount": 60_000, "cycle": 2}) == (
        "$0.06 retained from cycle 2")
    assert words({"ev": "key", "key_id": "ab12", "was": "cd34"}) == (
        "record key ab12 in force (replacing cd34)")
    assert words({"ev": "paid", "seat": 2, "award": 180_000_000, "cycle": 1,
                  "payment": "jackpot_slip"}) == "$180.00 paid to seat 2 (jackpot slip)"
    old, new = "2c" * 32, "af" * 32
    assert words({"ev": "program", "was": old, "digest": new, "kind": "files"}) == (
        "program afafafafafafafaf accepted in service mode (was 2c2c2c2c2c2c2c2c)")
    assert words({"ev": "program", "was": None, "digest": new, "kind": "image"}) == (
        "program afafafafafafafaf accepted in service mode (was none accepted)")
    assert words({"ev": "start", "program": new, "cause": "wdt_reset"}) == (
        "controller started, program afafafafafafafaf, reset cause wdt_reset")
    assert words({"ev": "start", "program": None, "cause": None}) == (
        "controller started, program UNREADABLE")
    assert words({"ev": "door", "state": "open", "seq": 12}) == (
        "the controller's door opened: LOCK refused until it closed")
    assert words({"ev": "door", "state": "closed"}) == "the controller's door closed"
    reason = "display: the LED meter does not acknowledge (9 bytes missed)"
    assert words({"ev": "fault", "source": "display", "reason": reason}) == (
        "FAULT (display): " + reason)
    assert words({"ev": "fault_cleared", "source": "display", "reason": reason}) == (
        "fault cleared (display): " + reason)
    assert words({"ev": "service", "entered": True}) == "service mode entered"
    assert words({"ev": "service", "entered": False}) == "service mode left"
    assert words({"ev": "clock", "was": [2021, 1, 1, 0, 0, 9],
                  "new": [2026, 12, 5, 14, 30, 0]}) == (
        "clock set to 2026-12-05 14:30:00 (was 2021-01-01 00:00:09)")
    assert words({"ev": "clock", "was": [2021, 1, 1, 0, 0, 9], "new": [2026, 12, 5, 14, 30, 0],
                  "by": "floor"}) == (
        "clock set to 2026-12-05 14:30:00 (was 2021-01-01 00:00:09) by the floor")
    assert words({"ev": "fault", "source": "seats", "reason": "I2C expander 0x21: no answer"}) \
        == "FAULT (seats): I2C expander 0x21: no answer"
    assert words({"ev": "fault_cleared", "source": "display", "reason": "no acknowledge"}) == (
        "fault cleared (display): no acknowledge")


def test_a_record_of_an_unknown_kind_or_shape_reads_as_its_fields():
    assert words({"ev": "tilt", "reason": "store", "seq": 9, "hash": "x"}) == (
        "tilt: reason=store")
    assert words({"ev": "round", "round": 1, "meter": "lots", "contributions": 5}) == (
        "round: contributions=5, meter=lots, round=1")
