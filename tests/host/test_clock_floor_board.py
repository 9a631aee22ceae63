# The floor sets a board's unset clock through the table's bridge (issue 38,
# item 8; docs/host-link.md, "The clock"), end to end on the virtual board
# but for the broker: the board keyed with the table's key file, its clock
# put back before 2021-09-04 and power-cycled, as a Pico starts; its signed
# `start` record stamped "clock": "unset"; the floor's request for that
# record (floor/collected.py, as the intake makes it once the record is
# stored) passed on by the bridge. The board then reads the floor's clock,
# and its log holds the `clock` record, by the floor, signed with its key.
# Replayed at the next power-up, the same request sets nothing.
import datetime
import json
import time

import pytest
from cli_board import configured

from mystery import recordkey
from uthctl.analysis import record_auth
from uthctl.bridge.table_bridge import Bridge
from uthctl.floor import collected
from uthctl.floor.table_keys import TableKeys, key_file
from uthctl.links import logexport

pytestmark = [pytest.mark.usefixtures("micropython"), pytest.mark.target("sim")]

UNSET = [2021, 1, 1, 0, 0, 0]  # a Pico's clock at power-up


def _power_cycle(table):
    boots = table.rig.state()["boots"]
    table.rig.reset()
    table.rig.wait_for(lambda s: s["board"] and s["boots"] > boots, timeout=30.0,
                       what="the board after its power cycle")
    with table.target.link(table.port) as link:
        link.wait_ready(20.0)


def _log(table):
    with table.target.link(table.port) as link:
        return logexport.fetch_records(link, 1)


def _bridged(table, tmp_path, request):
    # The bridge's handling of the floor's request on its command topic.
    bridge = Bridge("unused", "mqtt://127.0.0.1:1883", ("table-3", "p"), "riverside", "3",
                    tmp_path / "bridge-3.json")
    with table.target.link(table.port) as link:
        bridge.link = link
        bridge.answer(json.dumps(request))
        return link.command("clock")


def test_the_floor_sets_an_unset_boards_clock_through_its_bridge(cli_table, capsys, tmp_path):
    table = cli_table
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    record_auth.add_key(key_file(keys, "3"), "3")
    kid, key_hex = record_auth.newest_key(key_file(keys, "3"), "3")
    configured(table, capsys)
    table.provision(capsys, key_file(keys, "3"))
    table.key(True)
    with table.target.link(table.port) as link:
        assert link.command("clock", set=UNSET)["clock"] == "unset"
    table.key(False)
    _power_cycle(table)

    start = [r for r in _log(table) if r["ev"] == "start"][-1]
    assert start["clock"] == "unset" and start["auth"].startswith(kid + ":")
    sent_from = time.time()
    request = collected.clock_request(TableKeys(keys), "3", start, kid)
    read = _bridged(table, tmp_path, request)
    assert read["clock"] == "set", read
    board_seconds = datetime.datetime(*read["datetime"], tzinfo=datetime.timezone.utc)
    # The floor's clock in UTC, to the second it was read, and a margin for a busy machine.
    assert int(sent_from) <= board_seconds.timestamp() <= time.time() + 1

    [clock] = [r for r in _log(table) if r["seq"] > start["seq"] and r["ev"] == "clock"]
    assert (clock["by"], clock["new"], clock["was"][:3]) == ("floor", request["set"], [2021, 1, 1])
    key = recordkey.parse_key(key_hex)
    assert clock["auth"] == recordkey.record_auth(key, kid, clock["hash"])

    # Replayed at the next power-up, its clock put back unset: refused.
    table.key(True)
    with table.target.link(table.port) as link:
        link.command("clock", set=UNSET)
    table.key(False)
    _power_cycle(table)
    with table.target.link(table.port) as link:
        replayed = link.command("clock", set=request["set"], auth=request["auth"])
        assert replayed["ok"] is False and "does not verify" in replayed["error"], replayed
        assert link.command("clock")["clock"] == "unset"
