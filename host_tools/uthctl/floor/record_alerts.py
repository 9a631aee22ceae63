# The alerts a table's own records and events raise and clear: what stands
# at the table until the board says it ended. The controller's door opened
# (a `door` record, state "open") raises a `door` alert that its `door`
# "closed" record clears; the display's fault (a `fault` record, source
# "display") raises a `display` alert that its `fault_cleared` record clears.
# Any other fault is a `fault` alert, which a person acknowledges: only a
# restart clears the store's or the expanders' fault on the board.
#
# Where the board's log took no record (a store in a fault, a full flash),
# the same comes as a live event: it raises alike, but never clears. A clear
# is the board's word in its chained, signed log; a live event is only the
# word of whoever holds the table's MQTT account, which may be an attacker's,
# and a forged "closed" must not put out a standing alert.
DOOR = "door"
FAULT = "fault"
DISPLAY = "display"
_CLEARED_BY_THE_BOARD = (DISPLAY,)  # fault sources whose fault_cleared the board logs


def change(event):
    # ("raise" or "clear", kind, text) for a record or event that moves an
    # alert, else None. What a table sent is any JSON: never raises.
    ev = event.get("ev")
    record = "seq" in event
    where = " (record %s)" % event["seq"] if record else ""
    if ev == DOOR:
        if event.get("state") == "open":
            return ("raise", DOOR, "the controller's door opened%s: LOCK refused until it "
                    "is closed" % where)
        if event.get("state") == "closed" and record:
            return ("clear", DOOR, "the door closed%s" % where)
        return None
    kind = event.get("source") if event.get("source") in _CLEARED_BY_THE_BOARD else FAULT
    if ev == FAULT:
        return ("raise", kind, str(event.get("reason")) + where)
    if ev == "fault_cleared" and kind != FAULT and record:
        return ("clear", kind, "%s cleared%s" % (kind, where))
    return None


def apply(store, table, event, log=None):
    # Raises or clears the alert the record or event moves, if any.
    moved = change(event)
    if moved is None:
        return
    action, kind, text = moved
    if action == "raise":
        store.raise_alert(table, kind, text)
    elif store.clear_alert(table, kind, text) and log is not None:
        log("table %s: its %s alert cleared: %s" % (table, kind, text))
