# uthctl audit --port PORT|auto [--log FILE ...] [--key-file F] [--plot FILE.png]:
# the Mystery meter's audit, for a floor supervisor to file. Takes the meters
# and the status from the board and its event log (from the board, or from
# earlier exports), then checks the hash chain, every revealed commitment, and
# the accounting identity seeded + contributed = paid + meter + retained, on
# the meters and recomputed from the log (analysis/table_audit.py); with the table's
# key file, every record's authenticator (docs/host-link.md, "Record keys").
# Read only: it sends `status`, `meters` and `log`.
# Exit 0 when everything verifies, 1 when anything does not (each named).
import json
import os
import re

from ..analysis import audit_report, logread, record_auth
from ..analysis.table_audit import audit
from ..errors import UthctlError, expecting
from ..links import logexport, ports
from ..links.board_link import Link
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
    parser.add_argument("--from", dest="from_seq", type=int, metavar="SEQ",
                        help="audit a part of the log, which must start at record SEQ: "
                        "without it a log must start at record 1 or at the board's oldest "
                        "kept record, so that none cut from its front goes unseen")
    parser.add_argument("--key-file", metavar="F",
                        help="the table's key file (mode 600): check every record's "
                        "authenticator with its keys; without it they are counted, not checked")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="chart the meter over the log's records, hits marked")
    parser.add_argument("--timeout", type=seconds, default=10.0, metavar="S",
                        help="seconds to wait for each reply line (more than 0)")
    return parser


@expecting(OSError)
def run(args):
    """uthctl audit: verify the log, the commitments and the accounts; print a report."""
    if args.plot:
        audit_report.check_plot_path(args.plot)
    # Read before the board is asked anything: a key file others can read is refused.
    keys = record_auth.load_keys(args.key_file) if args.key_file else None
    status, meters, records, failures, source = _gather(args)
    result = audit(status, meters, records, failures, source, from_seq=args.from_seq,
                   keys=keys)
    if args.plot:
        audit_report.plot(result, args.plot)
        result["plot"] = os.path.abspath(args.plot)
    print(json.dumps(result) if args.json else audit_report.text(result))
    if args.plot and not args.json:
        print("\nplot: the meter chart written to %s" % result["plot"])
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
            raise UthctlError("cannot read --log %s: %s" % (path, error.strerror or error)) \
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
