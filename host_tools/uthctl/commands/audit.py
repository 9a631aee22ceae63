# uthctl audit --port PORT|auto [--log FILE ...] [--plot FILE.png]: the Mystery
# meter's audit, for a floor supervisor to file. Takes the meters and the
# status from the board and its event log (from the board, or from earlier
# exports), then checks the hash chain, every revealed commitment, and the
# accounting identity seeded + contributed = paid + meter + retained, on the
# meters and
# recomputed from the log. Read only: it sends `status`, `meters` and `log`.
# Exit 0 when everything verifies, 1 when anything does not (each named).
import datetime
import json
import re

from ..analysis import audit_report, expiry, hold, ledger, log_verify, logread
from ..links import logexport, ports
from ..links.hostlink import Link
from .meters import seconds


def add_parser(sub):
    parser = sub.add_parser(
        "audit", help="verify the log, the commitments and the accounts; print a report",
        description="Reads status, meters and the event log from the board (or the log from "
        "earlier exports, --log) and verifies the hash chain, every revealed commitment and "
        "seeded + contributed = paid + meter + retained. Exit 0 when all verifies, 1 when not.")
    ports.add_port(parser)
    parser.add_argument("--log", action="append", metavar="FILE",
                        help="an exported log (uthctl log export) instead of the board's; "
                        "give each of a chain of exports, oldest first")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="chart the meter over the log's records, hits marked")
    parser.add_argument("--timeout", type=seconds, default=10.0, metavar="S",
                        help="seconds to wait for each reply line (more than 0)")
    return parser


def run(args):
    if args.plot:
        audit_report.check_plot_path(args.plot)
    status, meters, records, failures, source = _gather(args)
    result = audit(status, meters, records, failures, source)
    if args.plot:
        audit_report.plot(result, args.plot)
        result["plot"] = args.plot
    print(json.dumps(result) if args.json else audit_report.text(result))
    return 0 if result["ok"] else 1


def _gather(args):
    device = ports.resolve(args.port)
    with Link(device, timeout=args.timeout, exclusive=True) as link:
        status = link.command("status")
        if args.log:
            meters = logexport.read_meters(link)
        else:
            records, meters = logexport.export(link)
    if not args.log:
        return status, meters, records, [], "the board at %s" % device
    records, failures = read_logs(args.log)
    return status, meters, records, failures, " + ".join(args.log)


def read_logs(paths):
    # The records of each file, oldest file first; a file that cannot be read
    # as a log is a failure naming its line and the record before it.
    records, failures = [], []
    for path in paths:
        try:
            with open(path) as stream:
                lines = stream.read().splitlines()
        except OSError as error:
            raise ValueError("cannot read --log %s: %s" % (path, error.strerror or error)) \
                from None
        try:
            records += logread.read_log(lines)
        except ValueError as error:
            failures.append("%s: %s%s" % (path, error, _after_record(lines, str(error))))
    return records, failures


def _after_record(lines, message):
    # Which record a bad line follows, from the lines before it.
    found = re.match(r"log line (\d+)", message)
    if not found:
        return ""
    for line in reversed(lines[:int(found.group(1)) - 1]):
        seq = re.search(r'"seq": *(\d+)', line)
        if seq:
            return " (the line after record %s)" % seq.group(1)
    return " (the first record)"


def audit(status, meters, records, failures, source):
    # Every check, and everything the report shows.
    failures = list(failures)
    head = logexport.head_of(meters)
    log = log_verify.verify_log(records, head=head) if not failures else None
    if log is not None and not log["ok"]:
        failures.append("log: " + log["problem"])
    failures += _identity_failures(meters)
    from_genesis = bool(records) and records[0].get("seq") == 1
    walked = None if log is None else ledger.Ledger(from_genesis).walk(records)
    compared, differences = ("nothing: the log could not be read", [])
    if walked is not None:
        failures += ["accounts: " + text for text in walked.problems]
        compared, differences = ledger.compare(walked, meters)
        failures += ["accounts: " + text for text in differences]
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
                "dropped": (first - 1) if first else meters.get("log_dropped", 0),
                "from_genesis": from_genesis, "head": list(head), "verify": log},
        "accounts": {"compared": compared,
                     "identity": _identity(meters),
                     "recomputed": _recomputed(walked)},
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


def _identity(meters):
    # retained: 0 from a firmware from before the retained meter existed.
    values = {name: meters.get(name) for name in ("seeded", "contributed", "paid", "meter")}
    values["retained"] = meters.get("retained", 0)
    return values


def _identity_failures(meters):
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
            "from_genesis": walked.from_genesis}
