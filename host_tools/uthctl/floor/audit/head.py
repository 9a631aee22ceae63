# The database's head against the board's own, which the board gave live
# (authenticated by its record key, over the audit's nonce) or over its USB
# link: the one anchor outside the database. A tail deleted from the
# database, meters rolled back with it, leaves every record there verifying;
# only the board still holds the records after it. Its front likewise:
# the board's signed head says where the log it keeps starts (`dropped`),
# and a database whose log starts later lacks records the board still has.
from mystery import chain

CONFIRMED, BEHIND, UNCONFIRMED, FAILED = "confirmed", "behind", "head unconfirmed", "failed"
# A record the board made this long ago (by its clock) and the database
# lacks is not one in transit: the bridge publishes each record as the
# board commits it and sends the rest again after any outage, in seconds.
BEHIND_GRACE_S = 600


def unconfirmed(why):
    return {"state": UNCONFIRMED, "text": why}


def compare(db_records, board_head, after, now, grace=BEHIND_GRACE_S, board_first=None):
    # board_head: (seq, hash) the board vouched for; after: the board's
    # records after the database's head (asked for only when it is behind);
    # board_first: the oldest record the board keeps, as it vouched too.
    db_head = (db_records[-1]["seq"], db_records[-1]["hash"]) if db_records \
        else (0, chain.GENESIS)
    seq, digest = board_head
    found = {"board_seq": seq, "db_seq": db_head[0]}
    if db_records and board_first is not None and db_records[0]["seq"] > board_first:
        return dict(found, state=FAILED, text="the database's log starts at record %d, but "
                    "the board keeps its records from record %d on (its signed head): "
                    "records %d-%d are missing from the database's front"
                    % (db_records[0]["seq"], board_first, board_first,
                       db_records[0]["seq"] - 1))
    if seq == db_head[0]:
        if digest == db_head[1]:
            return dict(found, state=CONFIRMED, text="the board's head is the database's, "
                        "record %d" % seq)
        return dict(found, state=FAILED, text="the board's head, record %d, is not the "
                    "database's record %d: the database's records were rewritten" % (seq, seq))
    if seq < db_head[0]:
        return dict(found, state=FAILED, text="the database holds records %d-%d past the "
                    "board's head, record %d: records the board never made"
                    % (seq + 1, db_head[0], seq))
    return dict(found, **_behind(db_head, board_head, after, now, grace))


def _behind(db_head, board_head, after, now, grace):
    missing = "records %d-%d" % (db_head[0] + 1, board_head[0])
    wanted = [r for r in after if db_head[0] < r.get("seq", 0) <= board_head[0]]
    joined = bool(wanted) and wanted[0]["seq"] == db_head[0] + 1
    ok, problem = chain.verify(wanted, first_prev=db_head[1] if joined else None)
    reaches = bool(wanted) and ok and (wanted[-1]["seq"], wanted[-1]["hash"]) == tuple(board_head)
    if joined and not reaches:
        return {"state": FAILED, "text": "the database's head, record %d, is not on the "
                "board's chain (%s): the database's records were rewritten"
                % (db_head[0], "the board's records end elsewhere" if ok else problem)}
    if not reaches:
        return unconfirmed("the database lacks %s of the board's, which did not come to "
                           "show whether its head, record %d, is on the board's chain"
                           % (missing, db_head[0]))
    made = wanted[0].get("time")
    age = now - made if type(made) is int else None
    if age is not None and age <= grace:
        if joined:
            return {"state": BEHIND, "text": "behind by %d: the database lacks %s, made "
                    "within %d s, which the floor may not have taken yet"
                    % (len(wanted), missing, grace)}
        return unconfirmed("the database lacks %s; the board keeps them only from record %d "
                           "on, made within %d s" % (missing, wanted[0]["seq"], grace))
    held = ", which the board holds, the first" if joined else \
        " (the board keeps them from record %d on), record %d" % ((wanted[0]["seq"],) * 2)
    return {"state": FAILED, "text": "the database lacks %s%s made %s: a deleted tail, or a "
            "floor that stopped taking records" % (missing, held, "%d s ago by the board's "
                                                   "clock" % age if age is not None
                                                   else "at no time the record shows")}
