# uthctl floor audit's report as text: the floor's verdict, a line a table
# with what its signatures and its head came to, the summary across tables,
# then each table's `uthctl audit` report.
from ...analysis import audit_report, hold
from .floor_audit import FAILED, UNCONFIRMED, VERIFIED

HEADLINES = {VERIFIED: "every table verified, its records signed and its head the board's",
             FAILED: "FAILED",
             UNCONFIRMED: "NOT VERIFIED: nothing failed, but not every table's records or head "
             "could be held against its key and its board"}


def text(report):
    lines = ["Floor audit, %d tables: %s" % (len(report["tables"]),
                                             HEADLINES[report["verdict"]])]
    if not report["tables"]:
        lines.append("  the database holds no table: nothing was audited")
    for row in report["summary"]["tables"]:
        result = report["tables"][row["table"]]
        lines.append("  table %s: %s, configuration %s, %d records, %d hits in the log" % (
            row["table"], row["verdict"] if row["ok"] or not row["failures"]
            else "FAILED: " + "; ".join(row["failures"]),
            row["config"], row["records"], row["hits"]))
        lines.append("    signatures %s: %s" % (row["signatures"],
                                                result["signatures"]["text"]))
        lines.append("    head %s: %s" % (row["head"].replace("head ", ""),
                                          result["head"]["text"]))
    lines.append("Hits per configuration: %s" % (", ".join(
        "%s %d" % item for item in sorted(report["summary"]["hits_per_config"].items(),
                                          key=lambda item: str(item[0]))) or "none"))
    lines.append("Side wagers across the tables: hold against par")
    lines += ["  " + line for line in hold.hold_lines(report["summary"]["holds"])]
    for name, result in report["tables"].items():
        if not result.get("absent"):
            lines += ["", "=== Table %s ===" % name, audit_report.text(result)]
    return "\n".join(lines)
