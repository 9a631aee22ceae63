# A table's own page: its tile, its records a page at a time (newest
# first), its hits with who validated each, its rules with their dates,
# whether its chain and its authenticators verify (`uthctl floor audit`'s
# checks on this table, audit.py), and the points of its meter's chart over
# a day or a week. The audit reads the table's whole log, so the page costs
# what `floor audit --table` costs; the floor's live view never runs it.
from mystery.money import decimal

from .. import record_words
from ..audit import floor_audit as audit

PAGE = 50  # records a page
HITS = 100  # hits shown, newest first
SPANS = {"day": 86_400, "week": 7 * 86_400}
CHART_POINTS = 2000  # at most, spread evenly over the span
METER_KINDS = ("round", "reset", "redraw")  # the records that state the meter after them


def table_view(store, table_id, before, keys_dir, view):
    # Everything the table's page shows, or None: no such table. view: the
    # floor's (page_data.PageData.build), whose tile of the table is shown.
    tile = next((t for t in view["tiles"] if t["table"] == table_id), None)
    if tile is None:
        return None
    before = int(before) if before and before.isdigit() else None
    records = store.records_page(table_id, before, PAGE)
    return {"table": table_id, "now": view["at"], "tile": tile,
            "records": [{"seq": seq, "at": at, "ev": ev, "words": record_words.words(record),
                         "board_time": _board_time(record), "raw": record_words.raw(record)}
                        for seq, at, ev, record in records],
            "older": records[-1][0] if len(records) == PAGE and records[-1][0] > 1 else None,
            "paged": before is not None,
            "hits": hits(store, table_id),
            "verified": _verified(store, table_id, keys_dir)}


def hits(store, table_id):
    # The newest hits, each with its validation when one followed it.
    found = store.newest_of(table_id, ("hit", "validated"), limit=2 * HITS)
    shown, validations = [], {}
    for _, at, record in found:  # newest first: a validation before its hit
        if record.get("ev") == "validated":
            validations[record.get("cycle")] = (at, record)
            continue
        validated = validations.pop(record.get("cycle"), None)
        award = record.get("award")
        shown.append({"seat": record.get("seat"), "cycle": record.get("cycle"),
                      "award": "$" + decimal(award) if type(award) is int else "?",
                      "at": at, "validated_at": validated[0] if validated else None,
                      "employee": validated[1].get("employee") if validated else None,
                      "slip": validated[1].get("slip") if validated else None})
    return shown[:HITS]


def _verified(store, table_id, keys_dir):
    # The chain, the commitments, the accounts, and with a keys folder the
    # authenticators: the audit's verdict on this table and its reasons.
    if keys_dir is None:
        return {"verdict": None, "text": "not checked: the page was given no keys folder"}
    result = audit.audit_tables(store, table=table_id, keys_dir=keys_dir)["tables"][table_id]
    return {"verdict": result["verdict"], "failures": result["failures"],
            "chain": "verifies" if not [f for f in result["failures"]
                                        if not f.startswith("signatures:")] else "FAILS",
            "signatures": result["signatures"]["state"],
            "signatures_text": result["signatures"]["text"]}


def meter_points(store, table_id, span, now):
    # {"t": [Unix times], "dollars": [the meter after each]} over the span,
    # at most CHART_POINTS (evenly chosen, the newest kept).
    rows = store.records_received_since(table_id, now - SPANS[span], METER_KINDS)
    rows = [(at, record["meter"]) for _, at, record in rows
            if type(record.get("meter")) is int]
    step = max(1, -(-len(rows) // CHART_POINTS))
    chosen = rows[::-1][::step][::-1]
    return {"span": span, "t": [at for at, _ in chosen],
            "dollars": [meter / 1_000_000 for _, meter in chosen]}


def _board_time(record):
    # When the board made the record, by its own clock, where the record
    # says (a hit's "time"); None where it does not.
    at = record.get("time")
    return at if type(at) in (int, float) and at > 0 else None
