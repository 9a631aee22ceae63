# The audit's checks and everything its report shows, from a board's status,
# meters and log records: the hash chain and every revealed commitment, the
# accounting identity seeded + contributed = paid + meter + retained on the
# meters and recomputed record by record, the holds beside the par sheets,
# and the rules in force with their dates (`uthctl audit`, the soak); with
# the table's record keys, every record's authenticator (record_auth.py).
import datetime

from . import audit_report, expiry, hold, ledger, log_verify, record_auth


def audit(status, meters, records, failures, source, from_seq=None, keys=None):
    # Every check, and everything the report shows. from_seq: the record a
    # part of the log is audited from (the report says so first); without
    # it the log must start at record 1 or at the board's oldest kept record.
    # keys: the table's record keys ({key id: key}, record_auth.load_keys), to
    # check every authenticator with; None: they are counted, not checked.
    failures = list(failures)
    signatures = authenticators(records, meters, keys)
    failures += signatures.get("problems", [])
    head = log_verify.head_of(meters)
    # Where the board's kept log starts: all it removed, collected or not
    # (log_removed); a board from before collection counted them in log_dropped.
    dropped = meters.get("log_removed", meters.get("log_dropped"))
    log = log_verify.verify_log(records, head=head, dropped=dropped, from_seq=from_seq) \
        if not failures else None
    if log is not None and not log["ok"]:
        failures.append("log: " + log["problem"])
    failures += identity_failures(meters)
    from_genesis = bool(records) and records[0].get("seq") == 1
    walked = None if log is None else ledger.Ledger(from_genesis).walk(records)
    compared = "nothing: the log could not be read"
    if walked is not None:
        compared, differences = ledger_failures(walked, meters)
        failures += differences
    if log is not None and log["ok"] and from_genesis:
        failures += hold.meters_against_log(meters, records)
    first = records[0]["seq"] if records else None
    return {
        "ok": not failures, "failures": failures, "source": source,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "firmware": {key: status.get(key) for key in ("version", "build")},
        "status": {key: status.get(key) for key in ("state", "payment", "fault")},
        "settings": meters.get("settings") or status.get("settings"),
        "meters": meters,
        "log": {"records": len(records), "first_seq": first,
                "last_seq": records[-1]["seq"] if records else None,
                "dropped": dropped or 0, "part": from_seq,
                "from_genesis": from_genesis, "head": list(head), "verify": log},
        "accounts": {"compared": compared,
                     "identity": _identity(meters),
                     "recomputed": _recomputed(walked)},
        "keys": signatures,
        "hits": audit_report.hits(meters, records),
        "holds": hold.holds(meters),
        "config": audit_report.config_rules(meters.get("config")),
        "rule_tables": audit_report.rule_tables(expiry.host_date()),
        # The sections in force past their dates: by the host's date, and as
        # the board judged by its clock (status "rules"; None from older firmware).
        "expiry": {"host": expiry.mystery_report(meters.get("config")),
                   "board": status.get("rules")},
        "series": walked.series if walked else [],
        "hit_marks": walked.hit_marks if walked else [],
    }


def authenticators(records, meters, keys):
    # What the records' authenticators show: {"checked", "signed", "unsigned",
    # "key_id" in force at the log's end, "board_key_id", "problems"}. A
    # rewrite with every later hash recomputed chains and adds up, and fails
    # here unless the key was taken too.
    board_kid = meters.get("key_id")
    if keys is None:
        signed = sum(1 for record in records if "auth" in record)
        return {"checked": False, "signed": signed, "unsigned": len(records) - signed,
                "key_id": None, "board_key_id": board_kid}
    found = record_auth.check_records(records, keys)
    problems = ["record keys: " + text for text in found["problems"]]
    if board_kid is not None and board_kid not in keys:
        problems.append("record keys: the board's key in force, %s, is not in the key file"
                        % board_kid)
    elif found["key_id"] is not None and board_kid != found["key_id"]:
        problems.append("record keys: the log ends with key %s in force, the board says %s"
                        % (found["key_id"], board_kid))
    return dict(found, checked=True, board_key_id=board_kid, problems=problems)


def _identity(meters):
    # retained: 0 from a firmware from before the retained meter existed.
    values = {name: meters.get(name) for name in ("seeded", "contributed", "paid", "meter")}
    values["retained"] = meters.get("retained", 0)
    return values


def ledger_failures(walked, meters):
    # (what was compared, problems): the walk's own problems and its totals
    # against the board's meters.
    compared, differences = ledger.compare(walked, meters)
    return compared, ["accounts: " + text for text in walked.problems + differences]


def identity_failures(meters):
    values = _identity(meters)
    if not all(type(value) is int for value in values.values()):
        return ["meters: the board's meters lack %s"
                % ", ".join(name for name, value in values.items() if type(value) is not int)]
    left = values["seeded"] + values["contributed"]
    right = values["paid"] + values["meter"] + values["retained"]
    if left != right:
        return ["meters: seeded + contributed = %d, paid + meter + retained = %d: the identity "
                "is broken by %+d" % (left, right, left - right)]
    return []


def _recomputed(walked):
    if walked is None:
        return None
    return {"seeded": walked.seeded, "contributed": walked.contributed, "paid": walked.paid,
            "retained": walked.retained, "meter": walked.meter, "hits": walked.hits,
            "qualifying_wagers": walked.qualifying_wagers, "wagered": walked.wagered,
            "from_genesis": walked.from_genesis}
