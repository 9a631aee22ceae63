# A floor meeting a table whose board's bounded log has dropped its first
# records (issue 37, point 5), end to end: the board (the stand-in, its
# head signed by the firmware's recordkey.py) behind `uthctl bridge`'s own
# Bridge, a real Mosquitto, and `uthctl floor` as a process. The floor asks
# the board's signed head where its log starts and collects from there; the
# audit, the board's head asked live, calls the table verified.
import json

import pytest
from audit_floor import TABLE, bridged_board, mosquitto, run_audit
from test_floor_audit_start import keyed_play

from floor_demo.virtual_tables import start_floor, stop_process, wait_until
from uthctl.floor.database import FloorDatabase

CATCH_UP_S = 60.0


@pytest.fixture
def live(floor_dir, tmp_path, need_mosquitto):
    floor_dir.add_table(TABLE)
    with mosquitto(floor_dir, tmp_path) as broker:
        yield broker


def test_a_new_floor_collects_a_table_from_its_boards_oldest_kept_record(
        capsys, floor_dir, db_url, live, tmp_path):
    key, records, meters = keyed_play(floor_dir, 400)
    kept = records[299:]  # records 1-299 dropped by the board's bounded log
    floor = start_floor(floor_dir, live, db_url, tmp_path / "floor.log")
    store = FloorDatabase(db_url)
    try:
        with bridged_board(floor_dir, live, tmp_path, kept, meters, key):
            wait_until(lambda: (store.table(TABLE) or {}).get("last_seq") == kept[-1]["seq"],
                       CATCH_UP_S, "the board's kept records on the floor")
            assert store.records(TABLE) == kept
            code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                        "--wait", "10")
        gaps = [a["text"] for a in store.alerts(TABLE) if a["kind"] == "gap"]
        assert gaps == ["the table's log on the floor starts at record 300: its board's "
                        "signed head says it keeps its records from there, records 1-299 "
                        "dropped"]
        assert json.loads(store.table(TABLE)["meters"])["log_seq"] == kept[-1]["seq"]
    finally:
        store.close()
        stop_process(floor)
    assert code == 0 and report["verdict"] == "verified", report["tables"][TABLE]["failures"]
