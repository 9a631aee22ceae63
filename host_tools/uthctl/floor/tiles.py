# What the floor page shows of each table, from the database: its link,
# state, meter as its display shows it, configuration, pending hit, fault,
# the rule sections its configuration rests on with their dates (and which
# are past them), and its alerts not yet acknowledged. Each tile is built on
# its own: what a table sent is any JSON at all, and a tile that cannot be
# built shows that table as unreadable, never the page as an error.
import json

from mystery.meter import PENDING_AWARD, PENDING_SEAT
from mystery.money import decimal


def tiles(store):
    return [_tile_or_why(store, table_id) for table_id in store.table_ids()]


def _tile_or_why(store, table_id):
    try:
        built = tile(store, table_id)
        json.dumps(built, allow_nan=False)  # the page's JSON.parse takes every tile
        return built
    except Exception as error:  # noqa: BLE001 -- this table's alone; the others are shown
        return {"table": table_id, "unreadable": "%s: %s" % (type(error).__name__, error)}


def tile(store, table_id):
    state = store.table(table_id)
    meters = _object(state["meters"])
    board = _object(state["board_status"])
    return {
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
        # Records held by their chain alone: no signed record has joined.
        "unsigned": state["last_seq"] is not None and state["key_id"] is None,
        "internal": state["internal"],
        "alerts": [{"id": a["id"], "kind": a["kind"], "text": a["text"],
                    "raised_at": a["raised_at"]}
                   for a in store.alerts(table_id, open_only=True)],
    }


def _object(text):
    # A JSON object the floor stored, or {} for none.
    value = json.loads(text) if text else {}
    return value if isinstance(value, dict) else {}


def _rules(board):
    # The board's status "rules": {"sections": [[section, effective, expires]],
    # "expired": [...] or None when its clock cannot tell, "clock", ...}.
    rules = board.get("rules")
    return rules if isinstance(rules, dict) else {}


def _sections(rules):
    # Each section with its dates, and whether the board's clock says it is past them.
    expired = rules.get("expired")
    sections = rules.get("sections")
    shown = []
    for row in sections if isinstance(sections, list) else []:
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
