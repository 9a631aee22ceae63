# uthctl floor audit: `uthctl audit`'s checks (analysis/audit.py) run on each
# table's records as the floor's database holds them, with the table's last
# meters snapshot and status, and a summary across the tables: each table's
# verdict, its records and hits, and the hits per configuration.
import datetime
import json
from collections import Counter

from ..analysis import audit_report, hold
from ..analysis.audit import audit


def since_timestamp(text):
    # --since YYYY-MM-DD (UTC midnight) as a Unix time.
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise ValueError("--since %s: give a date as YYYY-MM-DD" % text) from None
    return datetime.datetime(day.year, day.month, day.day,
                             tzinfo=datetime.timezone.utc).timestamp()


def audit_tables(store, table=None, since=None):
    # {"ok", "tables": {id: uthctl audit's result}, "summary": {...}}.
    names = [table] if table is not None else store.table_ids()
    results = {}
    for name in names:
        state = store.table(name)
        if state is None:
            raise ValueError("the floor holds no table %s" % name)
        results[name] = _audit_one(store, name, state, since)
    return {"ok": all(r["ok"] for r in results.values()), "tables": results,
            "summary": _summary(results)}


def _audit_one(store, name, state, since):
    records = store.records(name)
    if since is not None:
        records = [r for r in records if type(r.get("time")) is int and r["time"] >= since]
    meters = json.loads(state["meters"]) if state["meters"] else {}
    status = json.loads(state["board_status"]) if state["board_status"] else {}
    failures = [] if meters else ["meters: no meters snapshot from the table yet"]
    return audit(status, meters, records, failures, "the floor's database, table %s" % name)


def _summary(results):
    per_config = Counter()
    rows = []
    for name, result in results.items():
        hits = [r for r in result["hits"] if r.get("log_seq") is not None]
        config = (result["meters"] or {}).get("config")
        per_config[config] += len(hits)
        rows.append({"table": name, "ok": result["ok"], "config": config,
                     "records": result["log"]["records"], "hits": len(hits),
                     "failures": result["failures"]})
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


def text(report):
    lines = ["Floor audit, %d tables: %s" % (
        len(report["tables"]), "every table verifies" if report["ok"] else "FAILED")]
    for row in report["summary"]["tables"]:
        lines.append("  table %s: %s, configuration %s, %d records, %d hits in the log" % (
            row["table"], "ok" if row["ok"] else "FAILED: " + "; ".join(row["failures"]),
            row["config"], row["records"], row["hits"]))
    lines.append("Hits per configuration: %s" % (", ".join(
        "%s %d" % item for item in sorted(report["summary"]["hits_per_config"].items(),
                                          key=lambda item: str(item[0]))) or "none"))
    lines.append("Side wagers across the tables: hold against par")
    lines += ["  " + line for line in hold.hold_lines(report["summary"]["holds"])]
    for name, result in report["tables"].items():
        lines += ["", "=== Table %s ===" % name, audit_report.text(result)]
    return "\n".join(lines)


def plots(report, path):
    # One chart a table: FILE-<table>.png beside the given FILE.png.
    written = []
    stem = path[:-4] if path.lower().endswith(".png") else path
    for name, result in report["tables"].items():
        target = "%s-%s.png" % (stem, name)
        audit_report.plot(result, target)
        written.append(target)
    return written
