# The table's settings (mystery/settings.py) through the host link: changed
# only in service mode, refused with the reason for a bad name or value, each
# change logged in the hash chain with its old and new value, kept across a
# restart and a power cut in the middle of its commit, and read as their
# defaults from a store written before settings existed.
import binascii
import json

import tmpdir
from mystery import chain
from table_rig import Rig

DEFAULTS = {"reset": "carry", "wager_cents": None, "paytables": {}, "max_payout_cents": None,
            "bad_beat_mode": "two_way", "bad_beat_on_fold": "action",
            "max_stake_cents": 100_000}  # docs/host-link.md, "The table's settings"


def in_service(rig, **command):
    # The command sent with the floorperson's key held; the key let go after.
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(**command)[-1]
    rig.key.level = 0
    rig.run(100)
    return reply


def _settings(rig):
    return rig.command(cmd="status")[-1]["settings"]


def _log(rig):
    return list(rig.table.bonus.log_since(0))


@tmpdir.within
def test_a_setting_changed_in_service_mode_is_logged_and_survives_a_restart(root):
    rig = Rig(root)
    rig.configure("A1")
    assert _settings(rig) == DEFAULTS
    assert rig.command(cmd="meters")[-1]["meters"]["settings"] == DEFAULTS
    reply = in_service(rig, cmd="set", name="wager_cents", value=500, id=7)
    assert reply == {"ok": True, "reply": "set", "name": "wager_cents", "was": None,
                     "value": 500, "id": 7}
    event = rig.events("setting")[-1]
    assert (event["name"], event["was"], event["value"]) == ("wager_cents", None, 500)
    records = _log(rig)
    # The setting, then service mode left.
    assert records[-2] == event and records[-1]["ev"] == "service" and chain.verify(records)[0]
    in_service(rig, cmd="set", name="wager_cents", value=250)
    record = _log(rig)[-2]
    assert (record["ev"], record["was"], record["value"]) == ("setting", 500, 250)

    again = Rig(root)  # a restart on the same flash
    assert _settings(again) == dict(DEFAULTS, wager_cents=250)
    assert again.events("store_warning") == [] and again.table.state == "betting"


@tmpdir.within
def test_a_setting_outside_service_mode_is_refused_and_changes_nothing(root):
    rig = Rig(root)
    rig.configure("A1")
    head = rig.table.bonus.store.head_seq
    for state_change in (None, "lock"):
        if state_change == "lock":
            rig.chip(1)
            rig.press_lock()
            head = rig.table.bonus.store.head_seq
        assert rig.command(cmd="set", name="reset", value="minimum") == [
            {"ok": False, "error": "settings change only in service mode"}]
        assert rig.table.bonus.store.head_seq == head and _settings(rig) == DEFAULTS


@tmpdir.within
def test_a_bad_name_or_value_is_refused_with_the_reason_and_changes_nothing(root):
    rig = Rig(root)
    rig.configure("A1")
    head = rig.table.bonus.store.head_seq
    cases = [
        ({"name": "speed", "value": 1}, "unknown setting 'speed' (known: bad_beat_mode "
         "bad_beat_on_fold max_payout_cents max_stake_cents paytables reset wager_cents)"),
        ({"name": "wager_cents", "value": 99},
         "wager_cents 99 is under configuration A1's minimum progressive wager of 100 cents"),
        ({"name": "wager_cents", "value": "500"}, "wager_cents must be whole cents"),
        ({"name": "wager_cents", "value": 2.5}, "wager_cents must be whole cents"),
        ({"name": "wager_cents", "value": True}, "wager_cents must be whole cents"),
        ({"name": "wager_cents", "value": 0}, "wager_cents must be whole cents"),
        ({"name": "wager_cents", "value": 100_001}, "wager_cents must be whole cents"),
        ({"name": "max_payout_cents", "value": {"trips": 10 ** 100}},
         "max_payout_cents for trips must be whole cents from 1 to 1000000000, or null for no "
         "limit, not 100000000000000000000..."),
        ({"name": "max_payout_cents", "value": {"bad_beat": 1_000_000_001}},
         "max_payout_cents for bad_beat must be whole cents from 1 to 1000000000"),
        # One figure for every wager, refused as the setting given, not its first wager.
        ({"name": "max_payout_cents", "value": True},
         "max_payout_cents must be whole cents from 1 to 1000000000 (one figure for every "
         "wager), {wager: cents} (one a wager), or null for no limit, not True"),
        ({"name": "max_payout_cents", "value": "abc"},
         "max_payout_cents must be whole cents from 1 to 1000000000 (one figure for every "
         "wager), {wager: cents} (one a wager), or null for no limit, not 'abc'"),
        ({"name": "reset", "value": "sometimes"}, "reset must be one of carry, minimum"),
        ({"name": "reset", "value": None}, "reset must be one of carry, minimum"),
        ({"name": "reset"}, "set needs \"name\", a setting's name, and \"value\""),
        ({"value": 1}, "set needs \"name\", a setting's name, and \"value\""),
    ]
    for fields, reason in cases:
        reply = in_service(rig, cmd="set", **fields)
        assert reply["ok"] is False and reply["error"].startswith(reason), (fields, reply)
    # Nothing logged but service mode entered and left, once a case.
    assert [r["ev"] for r in _log(rig)[head:]] == ["service"] * (2 * len(cases))
    assert _settings(rig) == DEFAULTS and rig.events("setting") == []


class _PowerCut(OSError):
    pass


def _cut_before_the_meter_record(store):
    # The power goes after the log record (and the settings' copy) landed,
    # before the meter record that would commit them.
    def cut(*args):
        raise _PowerCut(5, "power cut")
    store._write_state = cut


@tmpdir.within
def test_a_power_cut_in_a_settings_commit_leaves_the_old_value_and_says_so(root):
    rig = Rig(root)
    rig.configure("A1")
    in_service(rig, cmd="set", name="wager_cents", value=300)
    rig.key.level = 1
    rig.run(100)  # service mode entered: a record, not cut
    head = rig.table.bonus.store.head_seq
    _cut_before_the_meter_record(rig.table.bonus.store)
    reply = in_service(rig, cmd="set", name="wager_cents", value=700)
    assert reply["ok"] is False and reply["error"].startswith("store write failed")
    assert rig.table.state == "fault"

    again = Rig(root)  # the reboot after the cut
    assert again.table.state == "betting"
    assert [e["reason"] for e in again.events("store_warning")] == [
        "an operation whose meter record never landed (a power cut, or a bad record) did not "
        "happen: the setting from log record %d is dropped" % (head + 1)]
    assert _settings(again)["wager_cents"] == 300
    records = _log(again)
    assert records[-1]["seq"] == head and chain.verify(records)[0]
    assert in_service(again, cmd="set", name="wager_cents", value=700)["ok"] is True
    assert _settings(Rig(root))["wager_cents"] == 700


def _rewrite_as_before_settings(root, store):
    # The recent hits' copy the meter names, rewritten as stores wrote it
    # before the settings were kept with it: a bare list under "UTHHITS1".
    name = "hits.%s" % "ab"[store.hits_seq % 2]
    with open(root + "/" + name) as f:
        header, body = f.read().split("\n", 1)
    hits = json.loads(body)["hits"]
    body = json.dumps(hits, separators=(",", ":"))
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    with open(root + "/" + name, "w") as f:
        f.write("UTHHITS1 %d %08x\n%s\n" % (store.hits_seq, crc, body))
    return hits


@tmpdir.within
def test_a_store_from_before_settings_reads_every_default(root):
    rig = Rig(root)
    rig.configure("A1")
    bonus = rig.table.bonus
    bonus.meter._hit_value = bonus.meter.meter  # the next contribution hits
    rig.chip(2)
    rig.press_lock()
    rig.turn_key()
    assert bonus.meter.hits == 1 and bonus.store.hits_seq == 1
    hits = _rewrite_as_before_settings(root, bonus.store)

    old = Rig(root)
    assert old.events("store_warning") == [] and old.table.state == "betting"
    assert _settings(old) == DEFAULTS
    meters = old.command(cmd="meters")[-1]["meters"]
    assert meters["last_hits"] == hits and meters["retained"] == 0
    assert in_service(Rig(root), cmd="set", name="reset", value="minimum")["ok"] is True
    assert _settings(Rig(root))["reset"] == "minimum"


def test_the_table_settings_defaults_are_the_rounds_own():
    # A round settled on the host (`uthctl settle`) and one on a table left
    # at its defaults are checked alike.
    from mystery import settings
    from uth import round as round_rules

    assert settings.default("max_stake_cents") == round_rules.MAX_STAKE_CENTS == 100_000
    for name, value in round_rules.DEFAULT_SETTINGS.items():
        assert settings.default(name) == value, name
