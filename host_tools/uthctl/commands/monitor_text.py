# How `uthctl monitor` words the board's events (docs/host-link.md) and the
# table as `status` and `meters` show it: one readable line each.
import json

from mystery.configs import MICROS_PER_CENT
from mystery.money import dollars


def _cents(cents):
    return dollars(cents * MICROS_PER_CENT)


def _record(event):
    return " (log record %d)" % event["seq"] if "seq" in event else ""


def _started(e):
    return "controller started: %s" % e.get("state")


def _config(e):
    return "configuration %s -> %s%s" % (e.get("was") or "none", e.get("config"), _record(e))


def _reset(e):
    return "reset: cycle %s of %s starts at %s, commitment %s%s" % (
        e.get("cycle"), e.get("config"), dollars(e["meter"]), str(e.get("commitment"))[:16] + "…",
        _record(e))


def _locked(e):
    return "round %s locked, meter %s%s" % (e.get("round"), dollars(e["meter"]), _record(e))


def _contribution(e):
    return "  seat %s: %s wager contributes %s" % (e.get("seat"), _cents(e["wager"]),
                                                   dollars(e["amount"]))


def _hit(e):
    return "HIT seat %s: %s (cycle %s, round %s; hit value %s revealed)%s" % (
        e.get("seat"), dollars(e["award"]), e.get("cycle"), e.get("round"),
        dollars(e["hit_value"]), _record(e))


def _validated(e):
    by = ""
    if e.get("employee") is not None or e.get("slip") is not None:
        by = " by employee %s, slip %s" % (e.get("employee") or "-", e.get("slip") or "-")
    return "hit validated%s: seat %s, %s (cycle %s)%s" % (
        by, e.get("seat"), dollars(e["award"]), e.get("cycle"), _record(e))


def _paid(e):
    return "paid: seat %s, %s by %s%s" % (e.get("seat"), dollars(e["award"]),
                                          str(e.get("payment")).replace("_", " "), _record(e))


def _retained(e):
    return "retained: %s above the award, the meter reset to its minimum (cycle %s)%s" % (
        dollars(e["amount"]), e.get("cycle"), _record(e))


def _setting(e):
    return "setting %s: %s -> %s%s" % (e.get("name"), json.dumps(e.get("was")),
                                       json.dumps(e.get("value")), _record(e))


def _redraw(e):
    return "redraw: cycle %s's exposed hit value replaced%s" % (e.get("cycle"), _record(e))


def _key(e):
    # The key's id alone: no event carries the key.
    replaced = "replacing %s" % e["was"] if e.get("was") else "the board's first"
    return "record key %s given (%s)%s" % (e["key_id"], replaced, _record(e))


def _repl(e):
    exposed = ", cycle %s's hit value exposed" % e.get("cycle") if e.get("exposed") else ""
    return "REPL opened in service mode%s%s" % (exposed, _record(e))


def _program(e):
    was = "replacing %s" % e["was"][:16] if e.get("was") else "the board's first"
    return "program %s accepted (%s)%s" % (e["digest"][:16], was, _record(e))


def _start(e):
    program = e["program"][:16] if e.get("program") else "UNREADABLE"
    cause = ", reset cause %s" % e["cause"] if e.get("cause") else ""
    return "controller start recorded: program %s%s%s" % (program, cause, _record(e))


def _door(e):
    if e["state"] == "open":
        return "DOOR OPEN: the controller's door opened, LOCK refused until it is closed%s" % (
            _record(e))
    return "door closed%s" % _record(e) if e["state"] == "closed" else json.dumps(e)


def _service(e):
    return "service mode %s%s" % ("entered" if e["entered"] else "left", _record(e))


def _clock(e):
    when = "%04d-%02d-%02d %02d:%02d:%02d"
    return "clock set to %s (was %s)%s" % (when % tuple(e["new"]), when % tuple(e["was"]),
                                           _record(e))


def _reason(label):
    return lambda e: "%s: %s" % (label, e.get("reason"))


WORDS = {"started": _started, "config": _config, "reset": _reset, "locked": _locked,
         "contribution": _contribution, "hit": _hit, "validated": _validated, "paid": _paid,
         "retained": _retained, "setting": _setting, "redraw": _redraw, "key": _key,
         "repl": _repl, "program": _program, "start": _start, "door": _door,
         "service": _service, "clock": _clock,
         "fault": _reason("FAULT"), "store_warning": _reason("store warning"),
         "expiry_warning": _reason("EXPIRY warning"),
         "refused": _reason("refused"), "fault_cleared": _reason("fault cleared"),
         "setting_refused": lambda e: "setting %s refused mid-cycle (cycle %s, round %s), "
                                      "logged%s" % (e["name"], e["cycle"], e["round"],
                                                    _record(e))}


def event_line(event):
    # A known event in words; any other (or one missing a field) as received.
    words = WORDS.get(event.get("ev"))
    try:
        return words(event) if words else json.dumps(event)
    except (KeyError, TypeError, ValueError):
        return json.dumps(event)


def _seats(seats):
    return ",".join(str(seat) for seat in seats) if seats else "none"


def table_line(status, meters):
    # The polled view: state, seats, lights, meter and display.
    line = "table: %s, locked in %s, stale chips %s, display %s" % (
        status.get("state"), _seats(status.get("locked_in")), _seats(status.get("stale_chips")),
        status.get("display"))
    lights = status.get("lights")
    if lights is not None:  # as the controller last drove them (older firmware: absent)
        line += ", bet lights %s, jackpot light %s" % (_seats(lights.get("bet")),
                                                        _seats(lights.get("jackpot")))
    if meters is not None:
        line += ", meter %s (%s, cycle %s, round %s)" % (
            dollars(meters["meter"]), meters.get("config"), meters.get("cycle"),
            meters.get("round"))
    if status.get("fault"):
        line += ", FAULT: %s" % status["fault"]
    if status.get("door") == "open":
        line += ", DOOR OPEN"
    return line
