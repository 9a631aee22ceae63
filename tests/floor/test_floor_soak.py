# The floor's soak (`make test-floor`, marked long_run): UTH_FLOOR_BOARDS
# virtual boards (20 unless told), each with its bridge, play
# UTH_FLOOR_ROUNDS rounds between them while the broker, bridges and boards
# are killed at random moments (seeded by UTH_FLOOR_SEED, printed); after
# recovery the database equals every board's own log export, record for
# record, with no duplicates and nothing refused. A board keeps only its
# last few hundred records (mystery/store.py's segments): the floor's older
# ones are checked as one unbroken chain from record 1 into the board's.
# A progress line goes out every PROGRESS_S (seen with pytest -s, as
# `make test-floor` runs it), so a run cut short still says how far it got.
import contextlib
import json
import os
import random
import threading
import time
import traceback

import pytest
import servers

from floor_demo.virtual_tables import Table, start_floor, stop_process, wait_until
from mystery import chain
from uthctl.floor.database import FloorDatabase
from uthctl.links.rig import RigError

pytestmark = [pytest.mark.long_run, pytest.mark.board, pytest.mark.usefixtures("micropython")]
BOARDS = int(os.environ.get("UTH_FLOOR_BOARDS", "20"))
ROUNDS = int(os.environ.get("UTH_FLOOR_ROUNDS", "50000"))
SEED = int(os.environ.get("UTH_FLOOR_SEED", str(int(time.time()))))
CHAOS_EVERY_S = (2.0, 8.0)
SETTLE_S = 180.0
PROGRESS_S = 60.0


STUCK_AFTER = 12  # rounds in a row cut short: the table no longer plays (about 2 min)


def play(table, rounds, counts, abort, recorded):
    # Its share of the rounds, counted by the round records the floor holds
    # (a power cut just before a commit ends a round the board never
    # recorded): played until that many are there, a few more where the
    # floor lags. One cut short by a power cut is tried again. Anything else,
    # or a table that no longer plays, ends the soak and is reported, never
    # lost with its thread nor left to spin.
    in_a_row, target = 0, rounds
    try:
        while not abort.is_set():
            if counts["played"] >= target:
                short = rounds - recorded(table.name)
                if short <= 0:
                    return
                target = counts["played"] + short
                continue
            try:
                table.play_round()
                counts["played"] += 1
                in_a_row = 0
            except (RigError, OSError) as error:
                counts["interrupted"] += 1
                in_a_row += 1
                if in_a_row >= STUCK_AFTER:
                    raise RuntimeError("table %s: %d rounds in a row cut short, the last by %s"
                                       % (table.name, in_a_row, error)) from error
                for seat in (1, 2, 3):
                    with contextlib.suppress(RigError, OSError):
                        table.rig.chip(seat, False)
                time.sleep(1.0)
    except Exception:  # noqa: BLE001 -- the player's error fails the soak
        counts["error"] = traceback.format_exc()
        abort.set()


def progress(started, counts, blows):
    played = sum(c["played"] for c in counts)
    elapsed = time.monotonic() - started
    print("floor soak: %6.0f s, %d rounds played (%.1f a second), %d cut short, %d blows"
          % (elapsed, played, played / max(elapsed, 1e-9),
             sum(c["interrupted"] for c in counts), len(blows)), flush=True)


def chaos(rng, broker, tables, stop, log, abort, failed):
    # A blow that cannot be undone (a broker or board that does not come
    # back) ends the soak, reported, rather than leave a table dead.
    try:
        while not stop.wait(rng.uniform(*CHAOS_EVERY_S)) and not abort.is_set():
            blow = rng.choice(("broker", "bridge", "board"))
            victim = rng.choice(tables)
            log.append((round(time.time(), 1), blow, victim.name))
            if blow == "broker":
                broker.kill()
                time.sleep(rng.uniform(0, 2))
                broker.start()
            elif blow == "bridge":
                victim.kill_bridge()
                time.sleep(rng.uniform(0, 2))
                victim.start_bridge()
            else:
                victim.power_cut()
    except Exception:  # noqa: BLE001 -- the blows' error fails the soak
        failed.append(traceback.format_exc())
        abort.set()


def settled(store, tables, since):
    # Every table's floor head is the head its bridge last reported, reported after `since`.
    for table in tables:
        state = store.table(table.name)
        if not state or not state["meters"] or state["meters_at"] < since:
            return False
        if json.loads(state["meters"])["log_seq"] != state["last_seq"]:
            return False
    return True


def test_the_floor_soak(tmp_path, floor_dir, need_mosquitto):
    print("floor soak: %d boards, %d rounds, seed %d" % (BOARDS, ROUNDS, SEED))
    names = [str(n) for n in range(1, BOARDS + 1)]
    for name in names:
        floor_dir.add_table(name)
    servers.without_keys(floor_dir, names)  # boards with no key: taken by their chain alone
    port = servers.free_port()
    broker = servers.Mosquitto(floor_dir.broker_config(port), port,
                               tmp_path / "mosquitto.log").start()
    db_url = "sqlite:///%s" % (tmp_path / "floor.db")
    with contextlib.ExitStack() as stack:
        stack.callback(broker.kill)
        tables = []
        for name in names:
            tables.append(Table(name, tmp_path, floor_dir, broker))
            stack.callback(tables[-1].close)
            tables[-1].start_bridge()
        floor = start_floor(floor_dir, broker, db_url, tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        store = FloorDatabase(db_url)
        stack.callback(store.close)

        stop, abort, blows, chaos_failed = threading.Event(), threading.Event(), [], []
        chaos_thread = threading.Thread(target=chaos, args=(random.Random(SEED), broker, tables,
                                                            stop, blows, abort, chaos_failed))
        counts = [{"played": 0, "interrupted": 0} for _ in tables]
        players = [threading.Thread(target=play, args=(t, -(-ROUNDS // BOARDS), c, abort,
                                                       lambda name: rounds_held(store, name)))
                   for t, c in zip(tables, counts, strict=True)]
        started = time.monotonic()
        chaos_thread.start()
        for player in players:
            player.start()
        for player in players:
            while player.is_alive():
                player.join(PROGRESS_S)
                if player.is_alive():
                    progress(started, counts, blows)
        stop.set()
        chaos_thread.join()
        assert chaos_failed == [] and [c["error"] for c in counts if "error" in c] == []
        if broker.process is None:
            broker.start()
        quiet = time.time()
        wait_until(lambda: settled(store, tables, quiet + 3), SETTLE_S,
                   "every table's head on the floor")
        for table in tables:
            stop_process(table.bridge)
        progress(started, counts, blows)
        print("floor soak: blows %s" % blows)
        held = 0
        for table in tables:
            held += same_as_board(store.records(table.name), table.own_export(), table.name)
        rounds = sum(rounds_held(store, t.name) for t in tables)
        print("floor soak: %d records on the floor, %d of them rounds; %d resent records "
              "dropped as duplicates, %d refused" % (
                  held, rounds, sum(store.table(t.name)["duplicates"] for t in tables),
                  len(store.refusals())), flush=True)
        assert rounds >= ROUNDS
        assert store.refusals() == []


def rounds_held(store, name):
    return sum(1 for record in store.records(name) if record["ev"] == "round")


def same_as_board(floor, board, name):
    # The floor's records equal the board's from its oldest kept record on;
    # before that, one unbroken chain from record 1 (each seq once, in order)
    # that the board's first kept record follows. The floor's count.
    assert board, "table %s: the board exported no records" % name
    first = board[0]["seq"]
    assert [r["seq"] for r in floor] == list(range(1, len(floor) + 1)), "table %s" % name
    assert floor[first - 1:] == board, "table %s: the floor differs from its board" % name
    ok, problem = chain.verify(floor, first_prev=chain.GENESIS)
    assert ok, "table %s: %s" % (name, problem)
    return len(floor)
