# The FloorDatabase's batches (group commit, intake_batch.py): every read and write
# the intake makes on its thread, while a batch is open, goes through one
# connection in one transaction, committed at the batch's end or rolled
# back whole. The records themselves and the tables' heads are written at
# the batch's end (or before any other statement that could read or change
# them): the records in one INSERT executed for them all (executemany:
# psycopg pipelines them), each table's head once, at its last record.
# Until then the batch answers for each table's row as its records have
# moved it. This is where the batch saves its time: on
# PostgreSQL a statement is a round trip to the server.
import contextlib
import threading


class Batch:
    def __init__(self, db, add_record, move_head):
        self.db = db
        self.add_record, self.move_head = add_record, move_head
        self.records = []  # rows for `records`, in the order taken
        self.heads = {}  # table -> its head's parameters after its last record
        self.rows = {}  # table -> its row (dict, or None: none) as the batch has it

    def flush(self):
        # What waits is written: a statement that could read it comes next.
        if self.records:
            self.db.execute(self.add_record, self.records)
        if self.heads:
            self.db.execute(self.move_head, list(self.heads.values()))
        self.records, self.heads = [], {}

    def appended(self, table_id, row, head):
        # A record and the table's head after it: the row kept in step.
        self.records.append(row)
        self.heads[table_id] = head
        kept = self.rows.get(table_id)
        if kept is None or kept.get("first_seq") is None:
            # The table's first record (its row perhaps made just now): its
            # head written at once, so that first_seq is this record's, not
            # the batch's last; the row read again when next asked.
            self.flush()
            self.rows.pop(table_id, None)
            return
        kept.update(last_seq=head["b_seq"], last_hash=head["b_hash"], key_id=head["b_key"],
                    checks=head["b_checks"])


class Batching:
    # Part of FloorDatabase: self.engine, self.reads.
    def _batch(self):
        local = self.__dict__.setdefault("_batches", threading.local())
        return getattr(local, "open", None)

    @contextlib.contextmanager
    def batch(self, add_record, move_head):
        if self._batch() is not None:
            raise RuntimeError("a batch is already open")
        local = self.__dict__.setdefault("_batches", threading.local())
        with self.engine.begin() as db:
            local.open = Batch(db, add_record, move_head)
            try:
                yield local.open
                local.open.flush()
            finally:
                local.open = None

    @contextlib.contextmanager
    def _writing(self):
        # A write in the open batch's transaction (what waits written first,
        # the rows read again after), else in one of its own.
        batch = self._batch()
        if batch is None:
            with self.engine.begin() as db:
                yield db
            return
        batch.flush()
        batch.rows = {}
        yield batch.db

    @contextlib.contextmanager
    def _reading(self):
        # A read that sees the open batch's writes, else one statement on a
        # connection of its own.
        batch = self._batch()
        if batch is None:
            with self.reads.connect() as db:
                yield db
            return
        batch.flush()
        yield batch.db

    def _table_in_batch(self, batch, table_id, read):
        if table_id not in batch.rows:
            batch.rows[table_id] = read()
        row = batch.rows[table_id]
        return dict(row) if row is not None else None
