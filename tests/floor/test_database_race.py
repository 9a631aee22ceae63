# Two processes opening a new floor database at once (the floor and a page,
# an audit or a test): another creates the schema between this one's check
# and its CREATE TABLE, which then fails on a table that exists. The floor
# started this way died at start under load ("table tables already exists");
# it must open the database the other made.
from sqlalchemy import inspect

from uthctl.floor import database, schema


def test_a_schema_made_by_another_process_meanwhile_is_opened(tmp_path, monkeypatch):
    url = "sqlite:///%s" % (tmp_path / "floor.db")
    made = []
    create_all = schema.metadata.create_all

    def raced(engine, **options):
        if not made:  # the other process's create, between the check and ours
            made.append(True)
            create_all(engine)
            return create_all(engine, checkfirst=False)  # ours, as if checked before it
        return create_all(engine, **options)

    monkeypatch.setattr(schema.metadata, "create_all", raced)
    store = database.FloorDatabase(url)
    try:
        assert "tables" in inspect(store.engine).get_table_names()
        assert store.table("3") is None
    finally:
        store.close()
