# A log record as a pit manager would say it: "round 3: seats 1, 2, 3
# contributed $0.02 each, meter $100.18". Money in dollars (the records hold
# micro-dollars; a settled round's stakes, cents). A record of a kind not
# named here, or of a shape the floor did not expect, reads as its fields:
# what a table sent is any JSON, and its words never fail.
from mystery.money import dollars


def words(record):
    try:
        said = _SAYING.get(record.get("ev"), _fields)(record)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        said = None
    return said or _fields(record)


def raw(record):
    # The record's own fields, its chain's left out (seq, hashes, auth).
    shown = {k: v for k, v in record.items() if k not in ("seq", "prev", "hash", "auth", "ev")}
    return ", ".join("%s=%s" % (k, shown[k]) for k in sorted(shown))


def _fields(record):
    return "%s: %s" % (record.get("ev"), raw(record))


def _money(micros):
    if type(micros) is not int:
        raise TypeError("not micro-dollars")
    return dollars(micros)


def _cents(cents):
    return _money(cents * 10_000)


def _seats(seats):
    seats = [str(s) for s in seats]
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(seats)


def _round(r):
    rows = [(seat, amount) for seat, _wager, amount in r["contributions"]]
    if not rows:
        given = "no seat contributed"
    elif len({amount for _, amount in rows}) == 1:
        given = "%s contributed %s%s" % (_seats(s for s, _ in rows), _money(rows[0][1]),
                                         " each" if len(rows) > 1 else "")
    else:
        given = "; ".join("seat %s contributed %s" % (s, _money(a)) for s, a in rows)
    return "round %s: %s, meter %s" % (r["round"], given, _money(r["meter"]))


def _settled(r):
    nets = [(row[0], sum(row[4])) for row in r["seats"]]
    return "round settled: " + ", ".join(
        "seat %s %s%s" % (seat, "+" if net > 0 else "", _cents(net)) for seat, net in nets)


_SAYING = {
    "round": _round,
    "settled": _settled,
    "reset": lambda r: "cycle %s reset at %s (configuration %s)" % (
        r["cycle"], _money(r["meter"]), r["config"]),
    "hit": lambda r: "HIT: seat %s awarded %s (cycle %s, round %s; hit value %s revealed)" % (
        r["seat"], _money(r["award"]), r["cycle"], r["round"], _money(r["hit_value"])),
    "validated": lambda r: "hit of %s to seat %s validated by %s, slip %s" % (
        _money(r["award"]), r["seat"], r["employee"] or "(no employee given)",
        r["slip"] or "(none given)"),
    "paid": lambda r: "%s paid to seat %s (%s)" % (
        _money(r["award"]), r["seat"], str(r["payment"]).replace("_", " ")),
    "retained": lambda r: "%s retained from cycle %s" % (_money(r["amount"]), r["cycle"]),
    "redraw": lambda r: "cycle %s's exposed hit value redrawn at meter %s" % (
        r["cycle"], _money(r["meter"])),
    "config": lambda r: "configuration %s%s" % (
        r.get("config") or r["name"], " (was %s)" % r["was"] if r.get("was") else ""),
    "setting": lambda r: "setting %s: %s (was %s)" % (r["name"], r["value"], r["was"]),
    "door": lambda r: {"open": "the controller's door opened: LOCK refused until it closed",
                       "closed": "the controller's door closed"}[r["state"]],
    "fault": lambda r: "FAULT (%s): %s" % (r["source"], r["reason"]),
    "fault_cleared": lambda r: "fault cleared (%s): %s" % (r["source"], r["reason"]),
    "key": lambda r: "record key %s in force%s" % (
        r["key_id"], " (replacing %s)" % r["was"] if r.get("was") else ""),
    "program": lambda r: "program %s accepted in service mode (was %s)" % (
        r["digest"][:16], r["was"][:16] if r.get("was") else "none accepted"),
    "start": lambda r: "controller started, program %s%s" % (
        r["program"][:16] if r.get("program") else "UNREADABLE",
        ", reset cause %s" % r["cause"] if r.get("cause") else ""),
    "service": lambda r: "service mode %s" % ("entered" if r["entered"] else "left"),
    "clock": lambda r: "clock set to %s (was %s)%s" % (
        _when(r["new"]), _when(r["was"]), " by the floor" if r.get("by") == "floor" else ""),
}


def _when(fields):
    # [year, month, day, hours, minutes, seconds] as the board's clock gives it.
    return "%04d-%02d-%02d %02d:%02d:%02d" % tuple(fields)
