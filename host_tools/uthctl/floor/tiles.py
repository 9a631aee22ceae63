# What the floor page shows of each table, from the database: its link,
# state, meter as its display shows it, configuration, pending hit, fault,
# the rule sections its configuration rests on with their dates (and which
# are past them), and its alerts not yet acknowledged.
import json

from mystery.meter import PENDING_AWARD, PENDING_SEAT
from mystery.money import decimal


def tiles(store):
    shown = []
    for table_id in store.table_ids():
        state = store.table(table_id)
        meters = json.loads(state["meters"]) if state["meters"] else {}
        board = json.loads(state["board_status"]) if state["board_status"] else {}
        shown.append({
            "table": table_id,
            "link": state["status"] or "unknown", "link_since": state["status_at"],
            "state": board.get("state"), "fault": board.get("fault"),
            "display": _dollars(meters.get("display_cents")),
            "config": meters.get("config"),
            "pending": _pending(meters.get("pending")),
            "expired": _rules(board).get("expired"),
            "rules": _sections(_rules(board)),
            "rules_clock": _rules(board).get("clock"),
            "records": state["last_seq"],
            "alerts": [{"id": a["id"], "kind": a["kind"], "text": a["text"],
                        "raised_at": a["raised_at"]}
                       for a in store.alerts(table_id, open_only=True)],
        })
    return shown


def _rules(board):
    # The board's status "rules": {"sections": [[section, effective, expires]],
    # "expired": [...] or None when its clock cannot tell, "clock", ...}.
    rules = board.get("rules")
    return rules if isinstance(rules, dict) else {}


def _sections(rules):
    # Each section with its dates, and whether the board's clock says it is past them.
    expired = rules.get("expired")
    shown = []
    for row in rules.get("sections") or []:
        if not (isinstance(row, list) and len(row) == 3):
            continue
        section, effective, expires = row
        shown.append({"section": section, "effective": effective, "expires": expires,
                      "expired": section in expired if isinstance(expired, list) else None})
    return shown


def _pending(pending):
    # The meters' pending hit, [seat, award in micro-dollars, ...], or None.
    if not isinstance(pending, list) or len(pending) <= PENDING_AWARD:
        return None
    award = pending[PENDING_AWARD]
    return {"seat": pending[PENDING_SEAT],
            "award": "$" + decimal(award) if type(award) is int else None}


def _dollars(cents):
    return None if type(cents) is not int else "$%d.%02d" % divmod(cents, 100)
