# The floor's one writer onto its database: SQLite by default (a file in WAL
# mode), PostgreSQL with a postgresql+psycopg:// URL, through one code path.
import json
import time

from sqlalchemy import (
    and_,
    bindparam,
    delete,
    func,
    insert,
    inspect,
    or_,
    select,
    update,
)

from . import schema
from .batch_writes import Batching
from .limits import storable
from .opening import check_existing, create_schema, engine_for, sqlite_url  # noqa: F401

PAYLOAD_KEPT = 2000  # characters of a refused payload kept for the record
CLEARED = ""  # an alert's acked_by when the floor cleared it, no person

# The statements the intake runs for every record, made once: SQLAlchemy
# then binds their parameters only (making one costs more than running it).
_TABLE_ROW = select(schema.tables).where(schema.tables.c.table_id == bindparam("b_table"))
_ADD_RECORD = insert(schema.records)
_MOVE_HEAD = update(schema.tables).where(
    schema.tables.c.table_id == bindparam("b_table")).values(
    last_seq=bindparam("b_seq"), last_hash=bindparam("b_hash"), key_id=bindparam("b_key"),
    first_seq=func.coalesce(schema.tables.c.first_seq, bindparam("b_seq")),
    checks=bindparam("b_checks"))
_CYCLE_FACT = select(schema.cycles.c.value).where(
    schema.cycles.c.table_id == bindparam("b_table"), schema.cycles.c.cycle == bindparam("b_key"),
    schema.cycles.c.fact == bindparam("b_fact"))


def _older_table_row(engine):
    # A reader's look at a table's row in a database an older floor made
    # and this reader must not change: the columns it has.
    present = {column["name"] for column in inspect(engine).get_columns("tables")}
    if present >= set(schema.tables.c.keys()):
        return _TABLE_ROW
    return select(*[column for column in schema.tables.c if column.name in present]).where(
        schema.tables.c.table_id == bindparam("b_table"))


class FloorDatabase(Batching):
    """Every table's records, meters and status as the floor keeps them (SQL)."""

    def __init__(self, url, create=True):
        # create=False: a database that must already be the floor's (check_existing).
        if not create:
            check_existing(url)
        self.engine = engine_for(url)
        # The reads the intake makes for every record, each one statement:
        # on PostgreSQL without a transaction around it (BEGIN and the
        # ROLLBACK on its return were two more round trips to the server).
        self.reads = self.engine
        if self.engine.dialect.name == "postgresql":
            self.reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.table_row = _TABLE_ROW
        if create:
            create_schema(self.engine)
            schema.upgrade(self.engine)
        else:
            self.table_row = _older_table_row(self.engine)

    def close(self):
        self.engine.dispose()

    def batch(self):
        # One transaction for many messages' reads and writes (batch_writes.py).
        return Batching.batch(self, _ADD_RECORD, _MOVE_HEAD)

    # ---- reading ----

    def table(self, table_id):
        batch = self._batch()
        if batch is not None:
            return self._table_in_batch(batch, table_id, lambda: self._read_table(table_id))
        return self._read_table(table_id)

    def _read_table(self, table_id):
        with self._reading() as db:
            row = db.execute(self.table_row, {"b_table": table_id}).mappings().first()
        return dict(row) if row else None

    def table_ids(self):
        with self._reading() as db:
            return [row[0] for row in db.execute(
                select(schema.tables.c.table_id).order_by(schema.tables.c.table_id))]

    def record_at(self, table_id, seq):
        with self._reading() as db:
            row = db.execute(select(schema.records.c.body).where(
                schema.records.c.table_id == table_id,
                schema.records.c.seq == seq)).first()
        return json.loads(row[0]) if row else None

    def records(self, table_id):
        # Every record the floor holds for the table, in order.
        with self._reading() as db:
            rows = db.execute(select(schema.records.c.body).where(
                schema.records.c.table_id == table_id).order_by(schema.records.c.seq))
            return [json.loads(row[0]) for row in rows]

    def walk_records(self, table_id, chunk=1000):
        # The table's records in order, read a chunk at a time: a walk of a
        # long log without holding it all (the running checks' first walk).
        after = 0
        while True:
            with self._reading() as db:
                rows = db.execute(select(schema.records.c.seq, schema.records.c.body).where(
                    schema.records.c.table_id == table_id, schema.records.c.seq > after).order_by(
                    schema.records.c.seq).limit(chunk)).all()
            for row in rows:
                yield json.loads(row[1])
            if len(rows) < chunk:
                return
            after = rows[-1][0]

    def cycle_fact(self, table_id, fact, key):
        # (found, value) of one fact of one of the table's cycles (running.py).
        with self._reading() as db:
            row = db.execute(_CYCLE_FACT, {"b_table": table_id, "b_key": key,
                                           "b_fact": fact}).first()
        return (True, json.loads(row[0])) if row else (False, None)

    def count(self, name):
        with self.engine.connect() as db:
            return len(db.execute(select(schema.metadata.tables[name])).all())

    def refusals(self):
        with self.engine.connect() as db:
            return [dict(row) for row in db.execute(
                select(schema.refusals).order_by(schema.refusals.c.id)).mappings()]

    def alerts(self, table_id=None, open_only=False):
        query = select(schema.alerts).order_by(schema.alerts.c.id)
        if table_id is not None:
            query = query.where(schema.alerts.c.table_id == table_id)
        if open_only:
            query = query.where(schema.alerts.c.acked_by.is_(None))
        with self.engine.connect() as db:
            return [dict(row) for row in db.execute(query).mappings()]

    # ---- reading for the page (page/data.py, page/table.py) ----

    def all_tables(self):
        with self.engine.connect() as db:
            return [dict(row) for row in db.execute(
                select(schema.tables).order_by(schema.tables.c.table_id)).mappings()]

    def alerts_shown(self, history):
        # (the standing alerts, the `history` last acknowledged, newest first).
        with self.engine.connect() as db:
            standing = db.execute(select(schema.alerts).where(
                schema.alerts.c.acked_by.is_(None)).order_by(schema.alerts.c.id)).mappings()
            standing = [dict(row) for row in standing]
            done = db.execute(select(schema.alerts).where(
                schema.alerts.c.acked_by.is_not(None)).order_by(
                schema.alerts.c.acked_at.desc(), schema.alerts.c.id.desc()).limit(
                history)).mappings()
            return standing, [dict(row) for row in done]

    def records_after(self, heads):
        # heads: {table: the last seq read}; every record past them, as
        # (table, seq, received_at, record) in each table's order. One query.
        if not heads:
            return []
        columns = schema.records.c
        past = or_(*[and_(columns.table_id == table, columns.seq > seq)
                     for table, seq in heads.items()])
        with self.engine.connect() as db:
            rows = db.execute(select(columns.table_id, columns.seq, columns.received_at,
                                     columns.body).where(past).order_by(
                columns.table_id, columns.seq))
            return [(t, seq, at, json.loads(body)) for t, seq, at, body in rows]

    def records_received_since(self, table_id, since, kinds=None):
        # The table's records the floor took at or after `since`, in order,
        # as (seq, received_at, record); kinds: only those `ev`s. Read from
        # the first record at or after `since` on (first_seq_since), so a
        # day costs a day's records, not the table's history.
        columns = schema.records.c
        query = select(columns.seq, columns.received_at, columns.body).where(
            columns.table_id == table_id, columns.received_at >= since,
            columns.seq >= self.first_seq_since(table_id, since))
        if kinds is not None:
            query = query.where(columns.ev.in_(kinds))
        with self.engine.connect() as db:
            return [(seq, at, json.loads(body))
                    for seq, at, body in db.execute(query.order_by(columns.seq))]

    def first_seq_since(self, table_id, since):
        # The first of the table's records the floor took at or after
        # `since`, found by halving its records' seq range (the primary
        # key): the floor holds a table's records from first_seq to
        # last_seq without a gap, taken in that order. Past last_seq: none.
        with self.engine.connect() as db:
            row = db.execute(select(schema.tables.c.first_seq, schema.tables.c.last_seq).where(
                schema.tables.c.table_id == table_id)).first()
            if row is None or row[0] is None:
                return 0
            low, high = row[0], row[1] + 1
            while low < high:
                middle = (low + high) // 2
                at = db.execute(select(schema.records.c.received_at).where(
                    schema.records.c.table_id == table_id,
                    schema.records.c.seq == middle)).scalar()
                if at is not None and at >= since:
                    high = middle
                else:
                    low = middle + 1
            return low

    def newest_of(self, table_id, kinds, limit=1):
        # The table's newest records of those `ev`s, newest first, as
        # (seq, received_at, record).
        columns = schema.records.c
        with self.engine.connect() as db:
            rows = db.execute(select(columns.seq, columns.received_at, columns.body).where(
                columns.table_id == table_id, columns.ev.in_(kinds)).order_by(
                columns.seq.desc()).limit(limit))
            return [(seq, at, json.loads(body)) for seq, at, body in rows]

    def records_page(self, table_id, before, count):
        # Up to `count` records of the table below seq `before` (None: from
        # the head), newest first, as (seq, received_at, ev, record).
        columns = schema.records.c
        query = select(columns.seq, columns.received_at, columns.ev, columns.body).where(
            columns.table_id == table_id)
        if before is not None:
            query = query.where(columns.seq < before)
        with self.engine.connect() as db:
            rows = db.execute(query.order_by(columns.seq.desc()).limit(count))
            return [(seq, at, ev, json.loads(body)) for seq, at, ev, body in rows]

    def record_count(self, table_id):
        with self.engine.connect() as db:
            return db.execute(select(func.count()).select_from(schema.records).where(
                schema.records.c.table_id == table_id)).scalar()

    # ---- writing ----

    def ensure_table(self, db, casino, table_id):
        found = db.execute(select(schema.tables.c.table_id).where(
            schema.tables.c.table_id == table_id)).first()
        if found is None:
            db.execute(insert(schema.tables).values(table_id=table_id, casino=casino))

    def append(self, casino, table_id, record, key_id=None, checks=None, known=False):
        # The record as the table's new chain head, in one transaction (or
        # the open batch's), with the record key in force after it (None: the
        # table is unsigned) and the record checks' running state after it
        # (running.Running; None: none kept). known: the caller has read the
        # table's row.
        row = {"table_id": table_id, "seq": record["seq"], "hash": record["hash"],
               "prev": record["prev"], "ev": record["ev"],
               "body": json.dumps(record, sort_keys=True), "received_at": time.time()}
        head = {"b_table": table_id, "b_seq": record["seq"], "b_hash": record["hash"],
                "b_key": key_id, "b_checks": checks.dumps() if checks else None}
        batch = self._batch()
        if batch is None:
            with self.engine.begin() as db:
                if not known:
                    self.ensure_table(db, casino, table_id)
                db.execute(_ADD_RECORD, row)
                if checks is not None:
                    self._write_cycles(db, table_id, checks)
                db.execute(_MOVE_HEAD, head)
            return
        if not known:
            with self._writing() as db:
                self.ensure_table(db, casino, table_id)
        if checks is not None and (checks.fresh or checks.rows()):
            self._write_cycles(batch.db, table_id, checks)
        batch.appended(table_id, row, head)

    def save_checks(self, table_id, checks):
        # The running state walked from the table's records, so that the
        # walk is made once; at the head the state was walked to.
        with self._writing() as db:
            done = db.execute(update(schema.tables).where(
                schema.tables.c.table_id == table_id,
                schema.tables.c.last_seq == checks.seq).values(checks=checks.dumps()))
            if done.rowcount == 1:
                self._write_cycles(db, table_id, checks)
            return done.rowcount == 1

    def _write_cycles(self, db, table_id, checks):
        # A state built afresh replaces every row the table had; else the
        # cycles it changed replace their own.
        cycles = schema.cycles
        rows = checks.rows()
        if checks.fresh:
            db.execute(delete(cycles).where(cycles.c.table_id == table_id))
        for fact, key, _ in rows if not checks.fresh else ():
            db.execute(delete(cycles).where(cycles.c.table_id == table_id,
                                            cycles.c.cycle == key, cycles.c.fact == fact))
        if rows:
            db.execute(insert(cycles), [{"table_id": table_id, "fact": fact, "cycle": key,
                                         "value": value} for fact, key, value in rows])

    def set_table(self, casino, table_id, **values):
        # A board status whose state differs from the one before moves the
        # table's state_at (the page's "betting since ...").
        with self._writing() as db:
            self.ensure_table(db, casino, table_id)
            if "board_status" in values:
                was = db.execute(select(schema.tables.c.board_status).where(
                    schema.tables.c.table_id == table_id)).scalar()
                if _state_of(was) != _state_of(values["board_status"]):
                    values["state_at"] = time.time()
            db.execute(update(schema.tables).where(
                schema.tables.c.table_id == table_id).values(**values))

    def count_duplicate(self, table_id):
        with self._writing() as db:
            db.execute(update(schema.tables).where(schema.tables.c.table_id == table_id).values(
                duplicates=schema.tables.c.duplicates + 1))

    def count_internal(self, casino, table_id):
        with self._writing() as db:
            self.ensure_table(db, casino, table_id)
            db.execute(update(schema.tables).where(schema.tables.c.table_id == table_id).values(
                internal=schema.tables.c.internal + 1))

    def notice(self, table_id, message):
        with self._writing() as db:
            db.execute(insert(schema.notices).values(
                table_id=table_id, ev=storable(message.get("ev"))[:32],
                body=json.dumps(message, sort_keys=True), received_at=time.time()))

    def refuse(self, topic, reason, payload):
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
        with self._writing() as db:
            db.execute(insert(schema.refusals).values(
                topic=storable(topic), reason=storable(reason),
                payload=storable(text[:PAYLOAD_KEPT]),
                received_at=time.time()))

    def raise_alert(self, table_id, kind, text):
        # A new alert, unless one of that kind stands unacknowledged for the table.
        with self._writing() as db:
            standing = db.execute(select(schema.alerts.c.id).where(
                schema.alerts.c.table_id == table_id, schema.alerts.c.kind == kind,
                schema.alerts.c.acked_by.is_(None))).first()
            if standing is None:
                db.execute(insert(schema.alerts).values(
                    table_id=table_id, kind=kind, text=storable(text), raised_at=time.time()))
            return standing is None

    def clear_alert(self, table_id, kind, reason):
        # The floor's own word that a standing alert is no longer true: it
        # leaves the standing list for the history, its reason added to its
        # text, acknowledged by CLEARED (no user's name: a name is never empty).
        with self._writing() as db:
            standing = db.execute(select(schema.alerts).where(
                schema.alerts.c.table_id == table_id, schema.alerts.c.kind == kind,
                schema.alerts.c.acked_by.is_(None))).mappings().first()
            if standing is None:
                return False
            db.execute(update(schema.alerts).where(schema.alerts.c.id == standing["id"]).values(
                acked_by=CLEARED, acked_at=time.time(),
                text=storable("%s; cleared: %s" % (standing["text"], reason))))
            return True

    def acknowledge(self, alert_id, name):
        with self.engine.begin() as db:
            done = db.execute(update(schema.alerts).where(
                schema.alerts.c.id == alert_id, schema.alerts.c.acked_by.is_(None)).values(
                acked_by=name, acked_at=time.time()))
            return done.rowcount == 1


def _state_of(board_status):
    # The "state" of a board status the floor holds as JSON text; None for
    # none or one the page could not read.
    try:
        board = json.loads(board_status) if board_status else {}
    except ValueError:
        return None
    return board.get("state") if isinstance(board, dict) else None


Store = FloorDatabase  # its name before 2026-12; outside scripts may still use it
