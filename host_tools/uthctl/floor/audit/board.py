# uthctl floor audit --port P --table N: the database held against the
# board's own export over its USB link (links/logexport.py), record by
# record from the board's oldest kept record on, and its head against the
# board's (audit_head). The technician's link to the board is the anchor.
import time

from ...links import logexport, ports
from ...links.board_link import Link
from . import head as audit_head

SHOWN = 5  # differing records named in the report; the rest counted
EXPORT_TIMEOUT_S = 10.0


def board_heads(port, table):
    # heads() for audit.audit_tables: the one table against the board's export.
    def heads(every):
        with Link(ports.resolve(port), timeout=EXPORT_TIMEOUT_S, exclusive=True) as link:
            board, meters = logexport.export(link)
        return {table: against_export(every[table][0], board, meters, time.time())}
    return heads


def against_export(db_records, board, meters, now):
    # The head compared as audit_head does, and every record both hold equal.
    db_head = db_records[-1]["seq"] if db_records else 0
    differences = differing(db_records, [r for r in board if r["seq"] <= db_head])
    after = [r for r in board if r["seq"] > db_head]
    head = audit_head.compare(db_records, logexport.head_of(meters), after, now)
    if not differences:
        return dict(head, compared=len(board))
    text = "%s%s" % ("; ".join(differences[:SHOWN]), "; and %d more" % (
        len(differences) - SHOWN) if len(differences) > SHOWN else "")
    return dict(head, state=audit_head.FAILED, compared=len(board),
                text="against the board's export: %s (%s)" % (text, head["text"]))


def differing(db_records, board):
    # What differs, record by record, over the board's records.
    held = {r.get("seq"): r for r in db_records}
    found = []
    for record in board:
        mine = held.get(record["seq"])
        if mine is None:
            found.append("the database lacks record %d" % record["seq"])
        elif mine != record:
            fields = sorted(k for k in set(mine) | set(record) if mine.get(k) != record.get(k))
            found.append("record %d differs from the board's in %s"
                         % (record["seq"], ", ".join(fields)))
    return found
