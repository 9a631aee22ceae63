# uthctl log export --port PORT|auto --out FILE [--csv] [--after FILE_OR_SEQ:HASH]:
# the board's event log, anchored to the meter's log head, as JSON lines
# (and a CSV beside them); a later export continues from an earlier one and
# checks that it joins on. With --collected, once the file is written the
# board is told its log is collected up to the last record written, which
# it takes only with the key switch held (docs/host-link.md, "Collected").
import argparse
import json
import os
from pathlib import Path

from ..errors import BoardRefusal, UthctlError, expecting
from ..links import logexport, ports
from ..links.board_link import Link
from .meters import seconds
from .mystery import _anchor


def add_parser(sub):
    parser = sub.add_parser("log", help="the board's event log: export it to a file")
    actions = parser.add_subparsers(dest="action", required=True)
    export = actions.add_parser(
        "export", help="the records up to the meter's log head, as JSON lines (and CSV)",
        description="Reads the meter's log head (`meters`), takes the board's records up to "
        "it (`log`) and checks the last is the head. With --after, takes only the records "
        "after an earlier export's last record and checks the first of them follows it.")
    ports.add_port(export)
    export.add_argument("--out", required=True, metavar="FILE",
                        help="the JSON lines file to write (one record a line)")
    export.add_argument("--csv", action="store_true", help="also write FILE.csv beside it")
    export.add_argument("--after", metavar="FILE_OR_SEQ:HASH",
                        help="an earlier export (its last record), or that record as SEQ:HASH")
    export.add_argument("--collected", action="store_true",
                        help="once FILE is written, tell the board its log is collected up "
                        "to FILE's last record (hold the key switch: only then is it taken)")
    export.add_argument("--timeout", type=seconds, default=10.0, metavar="S",
                        help="seconds to wait for each reply line (more than 0)")
    return parser


def _after(text):
    # An earlier export's file, or SEQ:HASH given by hand.
    if text is None:
        return None
    if os.path.exists(text):
        return logexport.anchor_of_file(text)
    try:
        return _anchor(text)
    except argparse.ArgumentTypeError:
        raise UthctlError("--after %s: neither an export file nor SEQ:HASH (a record number "
                          "and its 64 hex digit hash)" % text) from None


def _check_out(args):
    out = Path(args.out)
    if out.is_dir():
        raise UthctlError("--out %s is a folder, not a file" % out)
    if not out.resolve().parent.is_dir():
        raise UthctlError("--out %s: no folder %s" % (out, out.resolve().parent))
    if args.after and os.path.exists(args.after) and out.resolve() == Path(args.after).resolve():
        raise UthctlError("--out %s is the --after file: the new export would replace the one "
                          "it continues" % out)
    return logexport.csv_path(out) if args.csv else None


@expecting(OSError)
def run(args):
    """uthctl log: the board's event log: export it to a file."""
    csv_file = _check_out(args)
    after = _after(args.after)
    with Link(ports.resolve(args.port), timeout=args.timeout, exclusive=True) as link:
        records, meters = logexport.export(link, after)
        if records:
            _write(args, records, csv_file)
        collected = _collected(link, records) if args.collected else None
    result = {"out": args.out, "csv": None, "records": len(records),
              "first_seq": records[0]["seq"] if records else None,
              "last_seq": records[-1]["seq"] if records else None,
              "head": _anchor_dict(logexport.head_of(meters)),
              "after": _anchor_dict(after) if after else None,
              "dropped": meters.get("log_dropped", 0), "collected": collected}
    if records and csv_file is not None:
        result["csv"] = str(csv_file)
    print(json.dumps(result) if args.json else _text(result))
    if collected is not None and not collected["ok"]:
        raise BoardRefusal("%s is written, but the board did not take it as collected: %s"
                           % (args.out, collected["error"]))


def _write(args, records, csv_file):
    # On the disk before the board hears it is collected.
    logexport.write_jsonl(args.out, records)
    if csv_file is not None:
        logexport.write_csv(csv_file, records)


def _collected(link, records):
    # The board told its log is collected up to the file's last record: the
    # reply, {"ok": true, "collected": N, ...} or {"ok": false, "error": ...}.
    if not records:
        return {"ok": True, "collected": None, "note": "nothing new to mark"}
    reply = link.command("collected", seq=records[-1]["seq"])
    return {key: value for key, value in reply.items() if key not in ("id", "reply")}


def _anchor_dict(anchor):
    return {"seq": anchor[0], "hash": anchor[1]}


def _text(r):
    head = r["head"]
    if not r["records"]:
        return ("nothing to export: the meter's log head is still record %d, the earlier "
                "export's last; %s not written" % (head["seq"], r["out"]))
    lines = ["exported records %d-%d (%d) to %s%s" % (
        r["first_seq"], r["last_seq"], r["records"], r["out"],
        " and %s" % r["csv"] if r["csv"] else "")]
    lines.append("ends at the meter's log head: record %d, hash %s" % (head["seq"], head["hash"]))
    if r["after"]:
        lines.append("joins on to record %d of the earlier export (hash %s)"
                     % (r["after"]["seq"], r["after"]["hash"]))
    elif r["first_seq"] > 1:
        lines.append("starts at record %d: the board's bounded log has dropped the %d records "
                     "before it" % (r["first_seq"], r["first_seq"] - 1))
    collected = r.get("collected")
    if collected and collected["ok"] and collected.get("collected") is not None:
        lines.append("the board counts its log collected up to record %d (%d not collected)"
                     % (collected["collected"], collected["uncollected"]))
    lines.append("next time: uthctl log export --port PORT --out NEXT.jsonl --after %s"
                 % r["out"])
    return "\n".join(lines)
