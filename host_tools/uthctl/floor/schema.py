# The floor's database, in SQLAlchemy Core so SQLite and PostgreSQL take the
# same statements. `records` holds only records that joined their table's
# hash chain; what was refused goes to `refusals`, with the reason, and is
# never read back as fact. A column added since a floor's database was made
# is added to it when the floor opens it (upgrade), rows kept; a table added
# since is made by create_all, and the running checks of a database from
# before them are walked once from its records (running.py).
from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    text,
)

metadata = MetaData()

tables = Table(
    "tables", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("casino", String(32), nullable=False),
    Column("first_seq", BigInteger),  # the first record the floor holds
    Column("last_seq", BigInteger),  # the chain's head on the floor
    Column("last_hash", String(64)),
    Column("duplicates", BigInteger, nullable=False, default=0),  # records resent, dropped
    Column("status", String(16)),  # online / offline, as the bridge last said
    Column("status_at", Float),
    Column("board_status", Text),  # the board's `status` reply, JSON
    Column("meters", Text),  # the last meters snapshot, JSON
    Column("meters_at", Float),
    # The record key in force on the table (record_auth.Checker's), moved as
    # each signed record joins; None: no signed record yet (an unsigned table).
    Column("key_id", String(16)),
    # Messages of the table the floor failed on (a bug, the database): each
    # one refused with its reason, and counted here for its tile.
    Column("internal", BigInteger, nullable=False, default=0, server_default="0"),
    # The record checks' running state at the head (running.py), JSON,
    # written with each record; None: not kept yet, walked from the records.
    Column("checks", Text),
    # When the board's status last named a state other than the one before
    # (the page's "betting since"); None: no status with a state yet.
    Column("state_at", Float),
)

records = Table(
    "records", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", String(64), nullable=False),
    Column("prev", String(64), nullable=False),
    Column("ev", String(32), nullable=False),
    Column("body", Text, nullable=False),  # the record as the board made it, JSON
    Column("received_at", Float, nullable=False),
    UniqueConstraint("table_id", "hash", name="one_record_a_hash"),
)

# What each cycle of a table published, as the running checks keep it
# (running.CycleFacts): its reset record, the commitment in force as the
# log check and as the ledger follow it; a row a cycle and fact, read by
# its key when a record names the cycle.
cycles = Table(
    "cycles", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("cycle", String(64), primary_key=True),  # running.cycle_key
    Column("fact", String(16), primary_key=True),
    Column("value", Text, nullable=False),  # JSON
)

# The tables an older floor's database already has: a reader that must not
# change the database (the audit) needs these and no more.
FIRST = ("tables", "records", "notices", "refusals", "alerts")

# Live events that are no log record (started, fault, refused, ...).
notices = Table(
    "notices", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False),
    Column("ev", String(32), nullable=False),
    Column("body", Text, nullable=False),
    Column("received_at", Float, nullable=False),
)

refusals = Table(
    "refusals", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("topic", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("payload", Text, nullable=False),  # cut to PAYLOAD_KEPT characters
    Column("received_at", Float, nullable=False),
)

alerts = Table(
    "alerts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False),
    Column("kind", String(16), nullable=False),  # fault, gap, forged, unsigned, keys, ...
    Column("text", Text, nullable=False),
    Column("raised_at", Float, nullable=False),
    Column("acked_by", String(64)),
    Column("acked_at", Float),
)


# Columns of `tables` later than its first form, as ALTER TABLE adds them.
ADDED = {"key_id": "VARCHAR(16)", "internal": "BIGINT NOT NULL DEFAULT 0", "checks": "TEXT",
         "state_at": "FLOAT"}


def upgrade(engine):
    present = {column["name"] for column in inspect(engine).get_columns("tables")}
    with engine.begin() as db:
        for name, kind in ADDED.items():
            if name not in present:
                db.execute(text("ALTER TABLE tables ADD COLUMN %s %s" % (name, kind)))
