# The floor's intake in records a second, on SQLite and on PostgreSQL: into
# an empty database, and with 1,000,000 records stored; one message a
# transaction (as before group commit) and in batches (intake_batch.py, as
# the floor takes what waits at the broker), the batches both on the machine
# as it is and under a load this run adds (a busy process a core), side by
# side, with the machine's load average at each. Against the goals of at
# least 2,000 a second and the two databases within 20% of each other.
# Reported, never asserted.
# Usage: .venv/bin/python bench/floor_intake.py [--stored N] [--own N] [--taken N]
#                                               [--only sqlite|postgresql] [--before]
#
# The records are genuine: the firmware's Mystery engine plays the rounds
# (analysis/mystery_sim, as tests/floor/chains.simulated), its log records
# linked by the firmware's own chain module. Table H holds the first --own
# of them, put in bulk as a floor from before running checks left them (the
# intake's first record on H then walks them once, timed apart); the rest of
# the --stored records are made by the database itself, H's rows copied
# (INSERT ... SELECT) to as many more tables as it takes, so a million are
# stored in seconds, not the engine's minutes. Every later record of H is
# checked on the running state. Each record is timed through Intake.take
# or take_batch (BATCH_COUNT messages a batch), the broker's part not in it,
# with no record keys (their HMAC is a few microseconds).
import argparse
import io
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import uthctl  # noqa: F401 -- first: it gives the firmware its `micropython` shim

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "floor"), str(ROOT / "tools")]  # servers needs floor_demo

import servers  # noqa: E402
from chains import CASINO, message, records, topic  # noqa: E402
from sqlalchemy import insert, select, text  # noqa: E402

from uthctl.analysis import log_verify, mystery_sim  # noqa: E402
from uthctl.floor import schema  # noqa: E402
from uthctl.floor.database import FloorDatabase, sqlite_url  # noqa: E402
from uthctl.floor.intake import ACCEPTED, Intake  # noqa: E402
from uthctl.floor.intake_batch import BATCH_COUNT, take_batch  # noqa: E402
from uthctl.floor.page.data import tiles  # noqa: E402

GOAL_PER_S = 2_000
GOAL_APART = 0.20  # the two databases' rates within 20% of each other
BULK = 10_000  # rows a bulk insert
TILE_TABLES = 20  # tables on the page whose tiles are timed


def genuine_log(count, seed):
    # `count` records of one table's log, made by the firmware's engine.
    stream = io.StringIO()
    mystery_sim.simulate("B1", count, 3, seed, log_stream=stream)
    made = []
    for line in stream.getvalue().splitlines():
        made.append(json.loads(line))
        if len(made) == count:
            break
    return made


def bulk_store(store, table, records):
    # The records as the floor's intake would have stored them, in batches.
    with store.engine.begin() as db:
        db.execute(insert(schema.tables).values(table_id=table, casino=CASINO))
    for start in range(0, len(records), BULK):
        rows = [{"table_id": table, "seq": r["seq"], "hash": r["hash"], "prev": r["prev"],
                 "ev": r["ev"], "body": json.dumps(r, sort_keys=True), "received_at": 0.0}
                for r in records[start:start + BULK]]
        with store.engine.begin() as db:
            db.execute(insert(schema.records), rows)
    store.set_table(CASINO, table, first_seq=records[0]["seq"], last_seq=records[-1]["seq"],
                    last_hash=records[-1]["hash"])


def copied(store, source, rows):
    # `rows` more records, made by the database: the source table's rows
    # copied whole (INSERT ... SELECT) to tables C1, C2, ...; the last copy
    # cut short to make the count. Each copy a table of its own, as a floor
    # with many tables holds them.
    columns = [c for c in schema.records.c if c.name != "table_id"]
    have = store.record_count(source)
    number = 0
    while rows > 0:
        number += 1
        name = "C%d" % number
        take = min(rows, have)
        picked = select(text("'%s'" % name), *columns).where(
            schema.records.c.table_id == source, schema.records.c.seq < take + 1)
        with store.engine.begin() as db:
            db.execute(insert(schema.tables).values(table_id=name, casino=CASINO))
            db.execute(insert(schema.records).from_select(
                ["table_id"] + [c.name for c in columns], picked))
        rows -= take
    return number


def server_cpu_s(pid):
    # CPU seconds of a server process and its children (PostgreSQL's
    # backends), from /proc; 0 without a server.
    if pid is None:
        return 0.0
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def stored_bytes(store):
    # What the database takes on disk: the SQLite file with its WAL, or
    # PostgreSQL's records table with its indexes.
    if store.engine.dialect.name == "sqlite":
        path = Path(store.engine.url.database)
        return sum(p.stat().st_size for p in (path, Path(str(path) + "-wal")) if p.exists())
    with store.engine.connect() as db:
        return db.execute(text("SELECT pg_total_relation_size('records')")).scalar()


def timed_intake(store, table, records, server=None, batched=False):
    # {per_s, s, cpu_ms, load} through a new Intake, every record accepted:
    # one message a transaction (Intake.take), or BATCH_COUNT a transaction
    # (take_batch). The CPU time is this process's and the server's, so that
    # a busy machine's share of the wall clock can be told apart; the load
    # is the 1-minute load average at the end.
    intake = Intake(store, CASINO)
    payloads = [(topic(table), message(table, record)) for record in records]
    started, cpu, served = time.perf_counter(), time.process_time(), server_cpu_s(server)
    if batched:
        outcomes = []
        for start in range(0, len(payloads), BATCH_COUNT):
            outcomes += take_batch(intake, payloads[start:start + BATCH_COUNT])
    else:
        outcomes = [intake.take(*payload) for payload in payloads]
    spent = time.perf_counter() - started
    cpu = time.process_time() - cpu + server_cpu_s(server) - served
    if set(outcomes) != {ACCEPTED}:
        raise SystemExit("a genuine record was not accepted: %s" % store.refusals()[-1:])
    return {"per_s": len(records) / spent, "s": spent,
            "cpu_ms": 1000 * cpu / len(records), "load": os.getloadavg()[0]}


def _busy():
    while True:
        pass


class Load:
    # A busy process a core for as long as it is open: the machine loaded.
    def __enter__(self):
        self.busy = [multiprocessing.Process(target=_busy, daemon=True)
                     for _ in range(os.cpu_count() or 1)]
        for process in self.busy:
            process.start()
        time.sleep(1.0)  # every one running before the clock starts
        return self

    def __exit__(self, *_):
        for process in self.busy:
            process.kill()
            process.join()


def tiles_ms(store, tables):
    # The page's tiles (what each event-stream client builds every
    # PUSH_EVERY_S on this branch) for `tables` tables: the median of 11 calls.
    intake = Intake(store, CASINO)
    for number in range(tables):
        table = "T%d" % number
        for record in records(3, tag=table):
            intake.take(topic(table), message(table, record))
        intake.take(topic(table, "status"), json.dumps(
            {"table": table, "status": "online", "board": {"state": "betting"}}).encode())
    spent = []
    for _ in range(11):
        started = time.perf_counter()
        tiles(store)
        spent.append(time.perf_counter() - started)
    return 1000 * statistics.median(spent)


def one_database(name, url, log, sizes, before, server=None):
    own, stored, taken = sizes
    figures = {"database": name}
    store = FloorDatabase(url)
    try:
        # Empty: the first records of a table, from record 1.
        figures["empty"] = timed_intake(store, "E", log[:taken], server)
        figures["empty_batched"] = timed_intake(store, "B", log[:taken], server, batched=True)
        started = time.perf_counter()
        bulk_store(store, "H", log[:own])
        figures["copies"] = copied(store, "H", stored - own)
        figures["fill_s"] = time.perf_counter() - started
        if before:
            # What every hit and redraw cost before running checks: the
            # table's whole log read and verified (log_verify.verify_log).
            started = time.perf_counter()
            result = log_verify.verify_log(store.records("H"))
            figures["whole_walk_s"] = time.perf_counter() - started
            assert result["ok"], result
        # The first record after the bulk store walks H's log once (as on a
        # database from before running checks), then a new Intake, as a
        # restarted floor, reads the stored state back and walks nothing.
        figures["first_walk_s"] = timed_intake(store, "H", log[own:own + 1], server)["s"]
        parts = [log[own + 1 + n * taken:own + 1 + (n + 1) * taken] for n in range(3)]
        figures["stored"] = timed_intake(store, "H", parts[0], server)
        figures["batched"] = timed_intake(store, "H", parts[1], server, batched=True)
        with Load():
            figures["loaded"] = timed_intake(store, "H", parts[2], server, batched=True)
        figures["records"] = store.count("records")
        figures["bytes_per_record"] = stored_bytes(store) / figures["records"]
        figures["tiles_ms"] = tiles_ms(store, TILE_TABLES)
        figures["tables"] = len(store.table_ids())  # the copies' tables among them
    finally:
        store.close()
    return figures


def _rate(figures):
    return "%5.0f records/s (%.2f ms CPU a record, load %.1f)" % (
        figures["per_s"], figures["cpu_ms"], figures["load"])


def report(results, sizes):
    own, stored, taken = sizes
    print("floor intake, %d records taken each way; batches of %d; %d cores; load average "
          "%.1f at the end" % (taken, BATCH_COUNT, os.cpu_count(), os.getloadavg()[0]))
    for figures in results:
        print("  %s (%d records stored before the records taken onto them: table H's own "
              "%d and %d copies of them made by the database, in %.0f s; %d at the end, "
              "%.0f bytes a record)" % (
                  figures["database"], stored, own, figures["copies"], figures["fill_s"],
                  figures["records"], figures["bytes_per_record"]))
        print("    empty, one a transaction:    %s" % _rate(figures["empty"]))
        print("    empty, batched:              %s" % _rate(figures["empty_batched"]))
        print("    stored, one a transaction:   %s" % _rate(figures["stored"]))
        print("    stored, batched:             %s" % _rate(figures["batched"]))
        print("    stored, batched, loaded:     %s" % _rate(figures["loaded"]))
        line = "    the once-only walk of H's %d records %.1f s" % (own, figures["first_walk_s"])
        if "whole_walk_s" in figures:
            line += "; one whole-log check of them (each hit's cost before) %.1f s" % (
                figures["whole_walk_s"])
        print(line + "; the page's tiles of %d tables %.1f ms" % (
            figures["tables"], figures["tiles_ms"]))
    for key, what in (("batched", "batched"), ("loaded", "batched under load")):
        rates = [f[key]["per_s"] for f in results]
        print("  goal, %s with the records stored: at least %d records/s: %s (slowest %.0f)"
              % (what, GOAL_PER_S, "met" if min(rates) >= GOAL_PER_S else "MISSED",
                 min(rates)))
        if len(rates) == 2:
            apart = abs(rates[0] - rates[1]) / max(rates)
            print("  goal, %s: the databases within %d%%: %s (%.0f%% apart)" % (
                what, GOAL_APART * 100, "met" if apart <= GOAL_APART else "MISSED",
                apart * 100))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stored", type=int, default=1_000_000)
    parser.add_argument("--own", type=int, default=20_000,
                        help="of them table H's own log (the rest copies of it)")
    parser.add_argument("--taken", type=int, default=5_000)
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--before", action="store_true",
                        help="also time one whole-log check, as each hit cost before")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    own = max(1, min(args.own, args.stored))
    sizes = (own, args.stored, args.taken)
    started = time.perf_counter()
    log = genuine_log(own + 1 + 3 * args.taken, seed=653)
    print("made %d genuine records in %.0f s (load average %.1f)" % (
        len(log), time.perf_counter() - started, os.getloadavg()[0]))
    results = []
    with tempfile.TemporaryDirectory(prefix="floor-bench-") as folder:
        if args.only in (None, "sqlite"):
            results.append(one_database("SQLite", sqlite_url(Path(folder) / "floor.db"), log,
                                        sizes, args.before))
        if args.only in (None, "postgresql"):
            why_not = servers.why_no_postgres()
            if why_not:
                print("PostgreSQL left out: %s" % why_not)
            else:
                server = servers.Postgres().start()
                try:
                    results.append(one_database("PostgreSQL", server.url, log, sizes,
                                                args.before, server.process.pid))
                finally:
                    server.stop()
    report(results, sizes)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
