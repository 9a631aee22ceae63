# A soak's run on a board already up (its host link and rig open): the table
# configured if it is new, `rounds` rounds dealt, the board's log exported
# every `export_every` rounds, each export joined on to the one before it as
# `uthctl log export --after` does, and at the end the joined exports audited
# from their first record as `uthctl audit --log` does. Returns its figures;
# "differences" lists everything that disagreed, which should be nothing.
import json
import random
import time
from pathlib import Path

from ..analysis.table_audit import audit
from ..errors import BoardRefusal
from ..links import logexport
from .dealer import Dealer, SoakError
from .record import HostRecord

EXPORT_EVERY = 50  # rounds; the board keeps 256 records, about two a round (LOCK, settlement)
MAX_DIFFERENCES = 100  # a board this far off is not soaked further


class Exports:
    # The board's log taken a piece at a time, each piece joined on to the last.
    def __init__(self, path):
        self.path = Path(path)
        self.path.write_text("")
        self.records = []
        self.count = 0

    def take(self, dealer):
        after = None
        if self.records:
            after = (self.records[-1]["seq"], self.records[-1]["hash"])
        records, meters = logexport.export(dealer.link, after)
        dealer.drain()
        with open(self.path, "a") as stream:
            stream.writelines(json.dumps(record) + "\n" for record in records)
        self.records += records
        self.count += 1
        return meters


def soak(link, rig, rounds, seed, out_dir, config="A1", export_every=EXPORT_EVERY,
         poll=0.001, stretch=1.0, progress=None, about=None, settle=True):
    # about: what the figures say of the board (which, its clock); settle:
    # on a table the soak configures, each round's cards are settled too
    # (soak/rounds.py)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    record = HostRecord()
    dealer = Dealer(link, rig, record, random.Random(seed), poll, stretch)
    exports = Exports(out_dir / "log.jsonl")
    link.events.clear()
    start = logexport.read_meters(link)
    record.start_from(start)
    if start.get("phase") == "unconfigured":
        dealer.configure(config, settle)
    began = time.monotonic()
    hits = 0
    try:
        for number in range(1, rounds + 1):
            hits += dealer.play()
            if number % export_every == 0:
                meters = exports.take(dealer)
                record.reconcile(meters, "at export %d" % exports.count)
                _side_wagers(dealer, meters, start)
            if progress is not None:
                progress(number)
            if len(record.differences) >= MAX_DIFFERENCES:
                record.differ("the soak stopped after %d differences" % MAX_DIFFERENCES)
                break
    except (SoakError, BoardRefusal, OSError, ValueError) as error:
        record.differ("the soak stopped: %s" % error)
    seconds = time.monotonic() - began
    # A board whose log had removed records before the soak (collected, or
    # lost) cannot be audited from record 1; any other must be.
    whole = not start.get("log_removed", start.get("log_dropped"))
    figures = _finish(dealer, exports, record, (dealer.rounds, hits, seconds, seed), whole,
                      start)
    figures.update(about or {})
    (out_dir / "soak.json").write_text(json.dumps(figures, indent=1) + "\n")
    return figures


def _finish(dealer, exports, record, played, whole, start):
    rounds, hits, seconds, seed = played
    try:
        meters = exports.take(dealer)
        record.reconcile(meters, "at the end")
        _side_wagers(dealer, meters, start)
        status = dealer.command("status")
        # A board that had dropped records: its exports are a part, from the first.
        part = None if whole or not exports.records else exports.records[0]["seq"]
        report = audit(status, meters, exports.records, [], str(exports.path), from_seq=part)
    except (SoakError, BoardRefusal, OSError, ValueError) as error:
        record.differ("the closing export or audit failed: %s" % error)
        report = None
    differences = list(record.differences)
    if report is not None:
        differences += ["audit: " + text for text in report["failures"]]
        if whole and not report["log"]["from_genesis"]:
            differences.append("audit: the exports do not reach back to record 1")
    figures = {
        "rounds": rounds, "hits": hits, "seconds": round(seconds, 1),
        "rounds_per_second": round(rounds / seconds, 1) if seconds else None,
        "seed": seed, "events": dict(sorted(record.events.items())),
        "totals": record.totals(), "exports": exports.count,
        "records": len(exports.records), "log": str(exports.path),
        "audit": None if report is None else {
            "ok": report["ok"], "from_genesis": report["log"]["from_genesis"],
            "records": report["log"]["records"], "recomputed": report["accounts"]["recomputed"]},
        "settled": 0 if dealer.sums is None else dealer.sums.settled,
        "differences": differences, "ok": not differences,
    }
    return figures


def _side_wagers(dealer, meters, start):
    if dealer.sums is not None:
        for text in dealer.sums.differences(meters, start.get("side_wagers") or {}):
            dealer.record.differ(text)
