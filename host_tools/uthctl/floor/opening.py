# Opening the floor's database: the engine set up as the floor uses it, the
# check that an existing one is the floor's, and its schema made even when
# another process makes it at the same moment.
import time
from pathlib import Path

from sqlalchemy import create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from . import schema
from .errors import FloorConfigError


def engine_for(url):
    """The SQLAlchemy engine for a database URL, set up as the floor uses it."""
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection, _record):
    # WAL lets readers (the page, an audit) read while the floor writes.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def sqlite_url(path):
    """The sqlite:/// URL of a database file at path."""
    return "sqlite:///%s" % path


def check_existing(url):
    """The floor's database as it stands, or FloorConfigError naming what is missing."""
    # The floor's database as it stands, for a reader that must not make one
    # (the audit): ValueError naming what is missing. SQLite would make a
    # missing file on connecting, so its file is looked for first.
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise FloorConfigError("%s names no database file" % url)
        if not Path(parsed.database).is_file():
            raise FloorConfigError("no floor database at %s (no such file)" % parsed.database)
    engine = engine_for(url)
    try:
        missing = set(schema.FIRST) - set(inspect(engine).get_table_names())
    except SQLAlchemyError as error:
        reason = (str(getattr(error, "orig", None) or error).strip().splitlines() or ["?"])[0]
        raise FloorConfigError("cannot read the database %s: %s" % (url, reason)) from None
    finally:
        engine.dispose()
    if missing:
        raise FloorConfigError("%s is not the floor's database (it has no %s table)"
                               % (url, ", ".join(sorted(missing))))


def create_schema(engine, tries=3):
    # Two processes may open a new database at once (the floor and its page,
    # an audit, a test): each finds which tables are missing, then creates
    # them, and the later CREATE TABLE fails on what the other made in
    # between ("table tables already exists"; seen under load). Again, then:
    # the check now finds them. Any other failure fails each try alike.
    for attempt in range(1, tries + 1):
        try:
            schema.metadata.create_all(engine)
            return
        except SQLAlchemyError:
            if attempt == tries:
                raise
            time.sleep(0.1 * attempt)
