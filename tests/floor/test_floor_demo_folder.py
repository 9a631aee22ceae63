# make floor-demo's floor folder: the README's `uthctl floor --dir DIR audit`
# and `users` must reach the database the demo's floor writes, with no --db.
import argparse

from floor_demo.__main__ import floor_folder
from uthctl.commands.floor import database_url


def test_the_demo_folder_names_the_database_its_floor_writes(tmp_path):
    accounts, _ = floor_folder(tmp_path / "floor-demo")
    written_by_the_demo = "sqlite:///%s" % (tmp_path / "floor-demo" / "floor.db").resolve()
    asked = argparse.Namespace(db=None, dir=str(accounts.folder))
    assert database_url(asked) == written_by_the_demo
