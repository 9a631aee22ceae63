# uthctl floor audit: `uthctl audit`'s checks (analysis/table_audit.py) run on each
# table's records as the floor's database holds them, with the table's last
# meters snapshot and status; every record's authenticator against the
# table's key file (audit_keys); the database's head against the board's
# own (audit_head); and a summary across the tables: each table's verdict,
# its records and hits, and the hits per configuration. A table is verified
# only when nothing fails and neither its records nor its head rest on the
# database's word alone; otherwise it failed, or it is unconfirmed.
import datetime
import json
import time
from collections import Counter

from ...analysis import audit_report, hold
from ...analysis.table_audit import audit
from ...errors import InputError
from . import head as audit_head
from . import keys as audit_keys

VERIFIED, FAILED, UNCONFIRMED = "verified", "FAILED", "unconfirmed"
EXIT = {VERIFIED: 0, FAILED: 1, UNCONFIRMED: 3}
NOT_ASKED = "not asked: no --broker given, so the board's own head was not compared"


def since_timestamp(text):
    # --since YYYY-MM-DD (UTC midnight) as a Unix time.
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise InputError("--since %s: give a date as YYYY-MM-DD" % text) from None
    return datetime.datetime(day.year, day.month, day.day,
                             tzinfo=datetime.timezone.utc).timestamp()


def audit_tables(store, table=None, since=None, keys_dir=None, heads=None, accounts=()):
    # {"ok", "verdict", "tables": {id: uthctl audit's result and ours},
    # "summary": {...}}. heads(records by table) gives each table's head
    # compared with its board's (audit_head); None: not asked. accounts:
    # the tables the floor folder made accounts for, each audited even when
    # the database holds nothing of it (a table deleted whole).
    held = set(store.table_ids())
    names = [table] if table is not None else sorted(held | set(accounts))
    every = {}
    for name in names:
        if name not in held and name not in accounts:
            raise InputError("the floor holds no table %s" % name)
        every[name] = _read_records(store, name) if name in held else ([], None)
    compared = heads(every) if heads is not None and every else {}
    results = {}
    for name, (records, unread) in every.items():
        head = compared.get(name) or audit_head.unconfirmed(NOT_ASKED)
        results[name] = _audit_one(store, name, records, unread, since, keys_dir, head) \
            if name in held else _absent(name, head)
    verdict = _floor_verdict(results)
    return {"ok": verdict == VERIFIED, "verdict": verdict, "tables": results,
            "summary": _summary(results)}


def _read_records(store, name):
    # (records, problem): a record that is not JSON fails its table's audit.
    try:
        return store.records(name), None
    except ValueError as error:
        return [], "records: the database's records cannot be read (%s)" % error


def _audit_one(store, name, records, unread, since, keys_dir, head):
    state = store.table(name)
    signed = audit_keys.signatures(records, keys_dir, name)
    if since is not None:
        records = [r for r in records if type(r.get("time")) is int and r["time"] >= since]
    meters = json.loads(state["meters"]) if state["meters"] else {}
    status = json.loads(state["board_status"]) if state["board_status"] else {}
    failures = [unread] if unread else []
    failures += [] if meters else ["meters: no meters snapshot from the table yet"]
    # Where the log starts is the board's word (its signed head, audit_head),
    # never the meters' log_dropped, which the table's host sends: a log from
    # past record 1 is audited as the part it is (so log_dropped goes unread).
    start = records[0]["seq"] if records and since is None else None
    result = audit(status, meters, records, failures,
                   "the floor's database, table %s" % name,
                   from_seq=start if start is not None and start > 1 else None)
    result["failures"] += signed["problems"]
    if head["state"] == audit_head.FAILED:
        result["failures"].append("head: " + head["text"])
    result.update(signatures=signed, head=head, verdict=_table_verdict(result, signed, head),
                  unverified=_unverified(signed, head))
    if signed.get("checked"):
        # The table's section reports the authenticators the floor checked
        # with the key file, not uthctl audit's count of them unchecked.
        result["keys"] = dict(result["keys"], checked=True, signed=signed["signed"],
                              unsigned=signed["unsigned"], key_id=signed["key_id"],
                              problems=signed["problems"])
    result["ok"] = result["verdict"] == VERIFIED
    return result


def _unverified(signed, head):
    # What rests on the database's word alone, each said with its reason.
    reasons = []
    if signed["state"] == audit_keys.UNSIGNED:
        reasons.append("signatures unsigned: " + signed["text"])
    if head["state"] == audit_head.UNCONFIRMED:
        reasons.append("head unconfirmed: " + head["text"])
    return reasons


def _absent(name, head):
    # A table with an account of which the database holds nothing: right
    # only when its board's head is record 0 too.
    failures = ["head: " + head["text"]] if head["state"] == audit_head.FAILED else []
    signed = {"state": audit_keys.CHECKED, "text": "no records", "problems": []}
    if head["state"] == audit_head.UNCONFIRMED:
        head = dict(head, text="the database holds nothing of table %s, which has an "
                    "account; %s" % (name, head["text"]))
    result = {"absent": True, "failures": failures, "hits": [], "meters": None,
              "log": {"records": 0}, "signatures": signed, "head": head}
    result["verdict"] = _table_verdict(result, signed, head)
    result["ok"] = result["verdict"] == VERIFIED
    return result


def _table_verdict(result, signed, head):
    if result["failures"]:
        return FAILED
    if signed["state"] != audit_keys.CHECKED or head["state"] == audit_head.UNCONFIRMED:
        return UNCONFIRMED
    return VERIFIED


def _floor_verdict(results):
    # No table audited proves nothing: a failure, never a pass.
    verdicts = [r["verdict"] for r in results.values()]
    if not verdicts or FAILED in verdicts:
        return FAILED
    return UNCONFIRMED if UNCONFIRMED in verdicts else VERIFIED


def check_heads(ask):
    # heads() for audit_tables from ask(records by table) -> {table: audit_live.Asking}.
    def heads(every):
        askings = ask({name: records for name, (records, _) in every.items()})
        now = time.time()
        return {name: _compared(every[name][0], asking, now)
                for name, asking in askings.items()}
    return heads


def _compared(records, asking, now):
    if asking.head is None:
        return audit_head.unconfirmed(asking.why)
    after = [asking.after[seq] for seq in sorted(asking.after)]
    return audit_head.compare(records, asking.head, after, now, board_first=asking.first)


def _summary(results):
    per_config = Counter()
    rows = []
    for name, result in results.items():
        hits = [r for r in result["hits"] if r.get("log_seq") is not None]
        config = (result["meters"] or {}).get("config")
        if not result.get("absent"):  # no records, no configuration to count under
            per_config[config] += len(hits)
        rows.append({"table": name, "ok": result["ok"], "verdict": result["verdict"],
                     "config": config, "records": result["log"]["records"], "hits": len(hits),
                     "failures": result["failures"], "signatures": result["signatures"]["state"],
                     "head": result["head"]["state"]})
    return {"tables": rows, "hits_per_config": dict(per_config),
            "holds": floor_holds([result["meters"] or {} for result in results.values()])}


def floor_holds(all_meters):
    # Each side wager's hold over every table that plays it in the same
    # Bad Beat mode, against its par with the 95% interval for that many
    # wagers (analysis/hold.py, on the tables' meters added up).
    by_mode = {}
    for meters in all_meters:
        mode = (meters.get("settings") or {}).get("bad_beat_mode", "two_way")
        summed = by_mode.setdefault(mode, {})
        for key, row in ((meters.get("side_wagers") or {}).get("wagers") or {}).items():
            total = summed.setdefault(key, {"wagers": 0, "wagered": 0, "paid": 0, "limited": 0})
            for name in total:
                total[name] += row.get(name, 0)
    found = []
    for mode, summed in sorted(by_mode.items()):
        meters = {"side_wagers": {"wagers": summed}, "settings": {"bad_beat_mode": mode}}
        found += [dict(h, bad_beat_mode=mode) for h in hold.holds(meters)]
    return found


def plots(report, path):
    # One chart a table: FILE-<table>.png beside the given FILE.png.
    written = []
    stem = path[:-4] if path.lower().endswith(".png") else path
    for name, result in report["tables"].items():
        if result.get("absent"):
            continue  # no records, no chart
        target = "%s-%s.png" % (stem, name)
        audit_report.plot(result, target)
        written.append(target)
    return written
