# The floor's intake in records a second, on SQLite and on PostgreSQL: into
# an empty database, and onto a table that already holds 1,000,000 records
# (about three years of one table at 350,000 rounds a year); against the
# goals of at least 2,000 a second and the two databases within 20% of each
# other. Reported, never asserted.
# Usage: .venv/bin/python bench/floor_intake.py [--stored N] [--taken N]
#                                               [--only sqlite|postgresql] [--before]
#
# The records are genuine: the firmware's Mystery engine plays the rounds
# (analysis/mystery_sim, as tests/floor/chains.simulated), its log records
# linked by the firmware's own chain module. The stored ones go into the
# records table in bulk, as a floor from before running checks left them;
# the intake's first record on the table then walks them once (timed and
# shown apart), and every later record is checked on the running state.
# Each record is timed through Intake.take, one message at a time, as the
# floor's loop hands them over (the broker's part is not in it), with no
# record keys (their HMAC is a few microseconds).
import argparse
import io
import json
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
from sqlalchemy import insert, text  # noqa: E402

from uthctl.analysis import log_verify, mystery_sim  # noqa: E402
from uthctl.floor import schema  # noqa: E402
from uthctl.floor.database import Store, sqlite_url  # noqa: E402
from uthctl.floor.intake import ACCEPTED, Intake  # noqa: E402
from uthctl.floor.page_data import tiles  # noqa: E402

GOAL_PER_S = 2_000
GOAL_APART = 0.20  # the two databases' rates within 20% of each other
BATCH = 10_000  # rows a bulk insert
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
    for start in range(0, len(records), BATCH):
        rows = [{"table_id": table, "seq": r["seq"], "hash": r["hash"], "prev": r["prev"],
                 "ev": r["ev"], "body": json.dumps(r, sort_keys=True), "received_at": 0.0}
                for r in records[start:start + BATCH]]
        with store.engine.begin() as db:
            db.execute(insert(schema.records), rows)
    store.set_table(CASINO, table, first_seq=records[0]["seq"], last_seq=records[-1]["seq"],
                    last_hash=records[-1]["hash"])


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


def timed_intake(store, table, records, server=None):
    # {per_s, s, cpu_per_record_ms} through a new Intake, every record
    # accepted; the CPU time is this process's and the server's, so that a
    # busy machine's share of the wall clock can be told apart.
    intake = Intake(store, CASINO)
    payloads = [message(table, record) for record in records]
    started, cpu, served = time.perf_counter(), time.process_time(), server_cpu_s(server)
    for payload in payloads:
        outcome = intake.take(topic(table), payload)
        if outcome != ACCEPTED:
            raise SystemExit("a genuine record was %s: %s" % (outcome, store.refusals()[-1:]))
    spent = time.perf_counter() - started
    cpu = time.process_time() - cpu + server_cpu_s(server) - served
    return {"per_s": len(records) / spent, "s": spent,
            "cpu_ms": 1000 * cpu / len(records)}


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


def one_database(name, url, log, stored, before, server=None):
    figures = {"database": name}
    store = Store(url)
    try:
        taken = log[stored:]
        # Empty: the first records of a table, from record 1.
        figures["empty"] = timed_intake(store, "E", log[:len(taken)], server)
        started = time.perf_counter()
        bulk_store(store, "H", log[:stored])
        figures["bulk_s"] = time.perf_counter() - started
        figures["bytes_per_record"] = stored_bytes(store) / (stored + len(taken))
        if before:
            # What every hit and redraw cost before running checks: the
            # table's whole log read and verified (log_verify.verify_log).
            started = time.perf_counter()
            result = log_verify.verify_log(store.records("H"))
            figures["whole_walk_s"] = time.perf_counter() - started
            assert result["ok"], result
        # The first record after the bulk store walks the log once (as on a
        # database from before running checks), then a new Intake, as a
        # restarted floor, reads the stored state back and walks nothing.
        figures["first_walk_s"] = timed_intake(store, "H", taken[:1], server)["s"]
        figures["stored"] = timed_intake(store, "H", taken[1:], server)
        figures["tiles_ms"] = tiles_ms(store, TILE_TABLES)
    finally:
        store.close()
    return figures


def report(results, stored, taken):
    print("floor intake, %d records taken one at a time, table H with %d stored before "
          "(load average %.1f on %d cores at the end)" % (
              taken, stored, os.getloadavg()[0], os.cpu_count()))
    for figures in results:
        empty, full = figures["empty"], figures["stored"]
        line = ("  %-10s empty: %5.0f records/s (%.2f ms CPU a record); with %d stored: "
                "%5.0f records/s (%.2f ms CPU); bulk store %.0f s; the once-only walk of the "
                "stored log %.1f s; %.0f bytes a record stored"
                % (figures["database"], empty["per_s"], empty["cpu_ms"], stored, full["per_s"],
                   full["cpu_ms"], figures["bulk_s"], figures["first_walk_s"],
                   figures["bytes_per_record"]))
        line += "; the page's tiles of %d tables %.1f ms" % (TILE_TABLES + 2,
                                                             figures["tiles_ms"])
        if "whole_walk_s" in figures:
            line += "; one whole-log check (each hit's cost before) %.1f s" % (
                figures["whole_walk_s"])
        print(line)
    rates = [f[key]["per_s"] for f in results for key in ("empty", "stored")]
    print("  goal: at least %d records/s: %s (slowest %.0f)"
          % (GOAL_PER_S, "met" if min(rates) >= GOAL_PER_S else "MISSED", min(rates)))
    if len(results) == 2:
        apart = abs(rates[1] - rates[3]) / max(rates[1], rates[3])
        print("  goal: the databases within %d%% with the records stored: %s (%.0f%% apart)"
              % (GOAL_APART * 100, "met" if apart <= GOAL_APART else "MISSED", apart * 100))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stored", type=int, default=1_000_000)
    parser.add_argument("--taken", type=int, default=5_000)
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--before", action="store_true",
                        help="also time one whole-log check, as each hit cost before")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    log = genuine_log(args.stored + args.taken, seed=653)
    print("made %d genuine records in %.0f s" % (len(log), time.perf_counter() - started))
    results = []
    with tempfile.TemporaryDirectory(prefix="floor-bench-") as folder:
        if args.only in (None, "sqlite"):
            results.append(one_database("SQLite", sqlite_url(Path(folder) / "floor.db"), log,
                                        args.stored, args.before))
        if args.only in (None, "postgresql"):
            why_not = servers.why_no_postgres()
            if why_not:
                print("PostgreSQL left out: %s" % why_not)
            else:
                server = servers.Postgres().start()
                try:
                    results.append(one_database("PostgreSQL", server.url, log, args.stored,
                                                args.before, server.process.pid))
                finally:
                    server.stop()
    report(results, args.stored, args.taken)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
