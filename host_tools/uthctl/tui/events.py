# How the board's events and states read on the screen: one line an event.
import json

from mystery.money import dollars as money
from table.controller import BETTING, FAULT, HIT_PENDING, LOCKED, NOT_CONFIGURED, SERVICE

STATE_NAMES = {BETTING: "BETTING", LOCKED: "LOCKED", HIT_PENDING: "HIT PENDING",
               SERVICE: "SERVICE", NOT_CONFIGURED: "UNCONFIGURED", FAULT: "FAULT"}


def describe(event):
    # A board event, compactly: "locked round 3, meter $100.06".
    ev = event.get("ev")
    g = event.get

    def cash(field):
        value = g(field)
        return money(value) if isinstance(value, int) else "?"

    if ev == "started":
        return "board started (%s)" % g("state")
    if ev == "config":
        return "config %s (was %s)" % (g("config"), g("was") or "none")
    if ev == "reset":
        return "reset: cycle %s, %s, meter %s, commitment %s..." % (
            g("cycle"), g("config"), cash("meter"), str(g("commitment") or "")[:16])
    if ev == "locked":
        return "locked round %s, meter %s" % (g("round"), cash("meter"))
    if ev == "contribution":
        return "contribution seat %s %s" % (g("seat"), cash("amount"))
    if ev == "hit":
        return "HIT seat %s: award %s, hit value %s revealed (round %s)" % (
            g("seat"), cash("award"), cash("hit_value"), g("round"))
    if ev == "validated":
        return "validated seat %s %s by employee %s, slip %s" % (
            g("seat"), cash("award"), g("employee") or "not given", g("slip") or "none")
    if ev == "paid":
        return "paid seat %s %s by %s" % (g("seat"), cash("award"),
                                          str(g("payment")).replace("_", " "))
    if ev == "setting":
        return "setting %s: %s (was %s)" % (g("name"), json.dumps(g("value")),
                                            json.dumps(g("was")))
    if ev == "fault":
        return "FAULT: %s" % g("reason")
    if ev == "fault_cleared":
        return "fault cleared: %s" % g("reason")
    if ev == "door" and g("state") in ("open", "closed"):
        return ("DOOR OPEN: LOCK refused until it is closed" if g("state") == "open"
                else "door closed")
    if ev == "setting_refused":
        return "setting %s refused mid-cycle, logged: the value in force kept" % g("name")
    if ev == "store_warning":
        return "store warning: %s" % g("reason")
    if ev == "expiry_warning":
        return "EXPIRY: %s" % g("reason")
    if ev == "refused":
        return "refused: %s" % g("reason")
    if ev == "redraw":
        return "redraw: cycle %s, hit value %s revealed, new commitment %s..." % (
            g("cycle"), cash("hit_value"), str(g("commitment") or "")[:16])
    return json.dumps(event, separators=(",", ":"))


def event_style(event):
    ev = event.get("ev")
    if ev in ("hit", "validated", "paid"):
        return "hit"
    if ev in ("fault", "refused", "store_warning", "setting_refused") or (
            ev == "door" and event.get("state") == "open"):
        return "error"
    if ev == "expiry_warning":
        return "warn"
    if ev in ("config", "reset", "started", "redraw"):
        return "head"
    return "normal"
