# Taking the event log from a running board over its host link, anchored to
# the meter's log head (docs/host-link.md): read the head from `meters`
# first, ask for the records with `log`, keep those up to the head and check
# the last one is the head itself. A later export joins on to an earlier one:
# it asks for the records after that export's last record and checks the
# first new record's `prev` is that record's hash.
#
# What the board refuses, or answers so that it cannot be taken, raises
# BoardRefusal (errors.py); a file that cannot be read raises ValueError.
#
# Files are JSON lines, one record a line (what `uthctl mystery verify` and
# `uthctl audit --log` read), and, when asked, a CSV beside them for a
# spreadsheet: a fixed set of columns, then the whole record as JSON.
import csv
import json
import os
import time
from pathlib import Path

from mystery import chain
from mystery.money import decimal

from ..analysis import logread
from ..analysis.ledger import triples
from ..analysis.log_verify import head_of
from ..errors import BoardRefusal, InputError
from .board_link import LinkError

CSV_COLUMNS = ("seq", "ev", "time_utc", "cycle", "round", "seat", "config", "payment",
               "award_usd", "meter_usd", "contributed_usd", "seats", "hit_value_usd",
               "qualifying_wagers", "wagered_usd", "record")


class JoinError(BoardRefusal):
    """The board's log does not join on to the earlier export's last record."""
    pass


def read_meters(link):
    """The board's meters snapshot over the link."""
    reply = link.command("meters")
    if not reply.get("ok"):
        raise BoardRefusal("the board refused `meters`: %s"
                           % reply.get("error", "no reason given"))
    return reply["meters"]


def fetch_records(link, since):
    """Every record the board sends from seq `since` on, in order."""
    # Every record the board sends for {"cmd": "log", "since": since}, in
    # order; events that come between them are kept in link.events.
    number, link.next_id = link.next_id, link.next_id + 1
    link.send({"cmd": "log", "since": since, "id": number})
    records = []
    while True:
        message = link.read_message()
        if message is None:
            raise LinkError("the board stopped sending its log after %d records (no line "
                            "within %.1f s)" % (len(records), link.timeout))
        if "ev" in message:
            link.events.append(message)
        elif message.get("reply") == "log" and "record" in message:
            records.append(message["record"])
        elif message.get("id") == number:
            return _closed(message, records)


def _closed(reply, records):
    if not reply.get("ok"):
        raise BoardRefusal("the board ended the export with an error: %s (nothing written)"
                         % reply.get("error", "no reason given"))
    if reply.get("count") != len(records):
        raise BoardRefusal("the board counted %s records, %d came: the export was cut short"
                         % (reply.get("count"), len(records)))
    return records


def export(link, after=None):
    """The board's records up to its meter's head, and its meters."""
    # (records up to the meter's head, meters): after=(seq, hash) of the
    # earlier export's last record, or None for the whole log the board keeps.
    meters = read_meters(link)
    head = head_of(meters)
    since = 0 if after is None else after[0] + 1
    if after is not None and head[0] < after[0]:
        raise JoinError("the board's log head is record %d, before record %d of the earlier "
                        "export: another board's export, or this board's log was started "
                        "again" % (head[0], after[0]))
    records = [] if head[0] < since else fetch_records(link, since)
    records = [record for record in records if _seq(record) <= head[0]]
    for record in records:
        problem = logread.shape_problem(record)
        if problem:
            raise BoardRefusal("record %s from the board is not a log record: %s"
                             % (_seq(record), problem))
    if after is not None:
        _check_join(records, after, head)
    _check_head(records, head, after)
    return records, meters


def _seq(record):
    seq = record.get("seq") if isinstance(record, dict) else None
    return seq if type(seq) is int else 0


def _check_join(records, after, head):
    seq, digest = after
    if not records:
        if head[1] != digest:
            raise JoinError("record %d on the board is not record %d of the earlier export "
                            "(hash %s, the export has %s): the logs do not join on"
                            % (seq, seq, head[1][:16], digest[:16]))
        return
    first = records[0]
    if first["seq"] != seq + 1:
        raise JoinError("the board no longer keeps record %d (its bounded log dropped the "
                        "records before %d): this export cannot join on to record %d of "
                        "the earlier export; export without --after to start again"
                        % (seq + 1, first["seq"], seq))
    if first["prev"] != digest:
        raise JoinError("record %d's prev is %s, but record %d of the earlier export has hash "
                        "%s: the logs do not join on"
                        % (first["seq"], first["prev"][:16], seq, digest[:16]))


def _check_head(records, head, after):
    last = records[-1] if records else None
    last_seq, last_hash = (last["seq"], last["hash"]) if last else (after or (0, chain.GENESIS))
    if (last_seq, last_hash) != head:
        raise BoardRefusal("the export ends at record %d (hash %s), not at the meter's log head, "
                         "record %d (hash %s): nothing written"
                         % (last_seq, last_hash[:16], head[0], head[1][:16]))


def anchor_of_file(path):
    """(seq, hash) of the last record of an earlier export file."""
    # (seq, hash) of the last record of an earlier export, whose chain must hold.
    records = read_file(path)
    if not records:
        raise InputError("--after %s holds no records" % path)
    ok, message = chain.verify(records)
    if not ok:
        raise InputError("--after %s does not verify: %s" % (path, message))
    return records[-1]["seq"], records[-1]["hash"]


def read_file(path):
    """The records of an export file, or InputError saying why not."""
    try:
        with open(path) as stream:
            return logread.read_log(stream)
    except OSError as error:
        raise InputError("cannot read %s: %s" % (path, error.strerror or error)) from None
    except ValueError as error:
        raise InputError("%s: %s" % (path, error)) from None


# ---- files ----

def csv_path(out):
    """The CSV's path beside the JSON lines export `out`."""
    path = Path(out).with_suffix(".csv")
    if path == Path(out):
        raise InputError("--out %s: the CSV goes beside it as FILE.csv; give the JSON lines "
                         "file another suffix (.jsonl)" % out)
    return path


def write_jsonl(path, records):
    """Write the records as JSON lines, one a record."""
    _replace(path, "".join(json.dumps(record) + "\n" for record in records))


def write_csv(path, records):
    """Write the records as CSV, one row a record."""
    rows = [CSV_COLUMNS] + [csv_row(record) for record in records]
    temporary = Path(str(path) + ".part")
    with open(temporary, "w", newline="") as stream:
        csv.writer(stream).writerows(rows)
    temporary.replace(path)


def _replace(path, text):
    # Whole or not at all: a failed write leaves no half file under the name;
    # on the disk (fsync) before `log export --collected` tells the board.
    temporary = Path(str(path) + ".part")
    with open(temporary, "w") as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())
    temporary.replace(path)


def csv_row(record):
    """One record as a CSV row."""
    contributions = triples(record.get("contributions")) or []
    contributed = sum(amount for _, _, amount in contributions) if contributions else None
    when = record.get("time")
    return (record["seq"], record["ev"],
            "" if when is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(when)),
            _blank(record.get("cycle")), _blank(record.get("round")),
            _blank(record.get("seat")), _blank(record.get("config")),
            _blank(record.get("payment")), usd(record.get("award")), usd(record.get("meter")),
            usd(contributed), " ".join(str(seat) for seat, _, _ in contributions),
            usd(record.get("hit_value")), _blank(record.get("qualifying_wagers")),
            usd(record.get("wagered")), json.dumps(record, sort_keys=True))


def _blank(value):
    return "" if value is None else value


def usd(micros):
    """Exact dollars of micros for a spreadsheet, or blank for none."""
    # Exact dollars for a spreadsheet (100.12, 0.015), or blank for none.
    return decimal(micros) if type(micros) is int else ""
