# Every setting changes money, so each changes only with the meter at a reset
# (docs/mystery.md, "Settings change only at a reset"; 9 NYCRR 5321.18(b)(4),
# NZ GMS 1.28): a change asked for mid-cycle, in service mode all the same,
# is refused with the reason, and the refusal is a record of the signed log.
# Expected contributions come from the rates as 653b.1(c)(4) prints them.
import tmpdir
from mystery import chain
from regulation import contribution, minimum_wager_cents
from table_rig import Rig

# One value a setting, not its default, each valid under A1.
CHANGES = (("wager_cents", 500), ("reset", "minimum"), ("paytables", {"trips": "E"}),
           ("max_payout_cents", 100_000), ("max_stake_cents", 5_000),
           ("bad_beat_mode", "player_loses"), ("bad_beat_on_fold", "lose"))
MID_CYCLE = "refused and logged: settings change only with the meter at a reset"


def _play_a_round(rig, seat=1):
    rig.chip(seat)
    rig.press_lock()
    rig.chip(seat, False)
    rig.run(300)


def _set(rig, name, value):
    return rig.command(cmd="set", name=name, value=value)[-1]


def _settings(rig):
    return rig.command(cmd="status")[-1]["settings"]


def _log(rig):
    return list(rig.table.bonus.log_since(0))


def _hit_and_reset(rig, seat=2):
    # The next contribution hits; the key turn validates, pays and resets.
    bonus = rig.table.bonus
    bonus.meter._hit_value = bonus.meter.meter
    rig.chip(seat)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    rig.turn_key()
    rig.chip(seat, False)
    rig.run(300)
    assert rig.table.state == "betting" and bonus.meter.at_reset()


@tmpdir.within
def test_the_wager_set_mid_cycle_is_refused_logged_and_the_next_round_keeps_the_old(root):
    # The attack measured on main: A1 configured, a round played, the key
    # held, `set wager_cents 500` took effect at once.
    rig = Rig(root)
    rig.configure("A1")
    _play_a_round(rig)
    rig.enter_service()
    head = rig.table.bonus.store.head_seq
    reply = _set(rig, "wager_cents", 500)
    assert reply["ok"] is False and MID_CYCLE in reply["error"], reply
    assert "cycle 1 has played 1 rounds since its reset" in reply["error"]
    assert _settings(rig)["wager_cents"] is None
    records = _log(rig)
    assert records[-1]["seq"] == head + 1 and chain.verify(records)[0]
    logged = {k: records[-1][k] for k in ("ev", "name", "value", "phase", "cycle", "round")}
    assert logged == {"ev": "setting_refused", "name": "wager_cents", "value": 500,
                      "phase": "running", "cycle": 1, "round": 1}
    assert rig.events("setting_refused")[-1] == records[-1]
    assert rig.events("setting") == []
    rig.leave_service()
    _play_a_round(rig, seat=3)
    last = rig.events("contribution")[-1]
    assert (last["wager"], last["amount"]) == (minimum_wager_cents("A1"),
                                               contribution("A1", minimum_wager_cents("A1")))


@tmpdir.within
def test_every_setting_is_refused_mid_cycle_and_during_a_pending_hit(root):
    rig = Rig(root)
    rig.configure("A1")
    _play_a_round(rig)
    before = _settings(rig)
    rig.enter_service()
    for name, value in CHANGES:
        reply = _set(rig, name, value)
        assert reply["ok"] is False and MID_CYCLE in reply["error"], (name, reply)
    rig.leave_service()
    bonus = rig.table.bonus
    bonus.meter._hit_value = bonus.meter.meter
    rig.chip(2)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    # A hit pending is not a reset: `reset` decides what its validation retains.
    reply = _set(rig, "reset", "minimum")
    assert reply["ok"] is False
    assert _settings(rig) == before
    refused = [(r["name"], r["value"]) for r in _log(rig) if r["ev"] == "setting_refused"]
    assert refused == list(CHANGES)
    assert chain.verify(_log(rig))[0]


@tmpdir.within
def test_a_pending_hit_is_not_a_reset_and_the_refusal_says_so(root):
    # The meter is not at a reset until the hit is paid and the meter reset.
    rig = Rig(root)
    rig.configure("A1")
    meter = rig.table.bonus.meter
    refusal = meter.setting_refusal("reset", "minimum")
    assert refusal is None  # configured, no round: at the reset
    meter._hit_value = meter.meter
    rig.chip(2)
    rig.press_lock()
    refusal = meter.setting_refusal("reset", "minimum")
    assert (refusal["ev"], refusal["phase"]) == ("setting_refused", "pending")
    assert "cycle 1's hit is pending" in meter.mid_cycle("setting reset")


@tmpdir.within
def test_each_setting_changes_at_a_reset_new_configured_and_after_a_hit(root):
    rig = Rig(root)
    rig.enter_service()  # a new board: the initial configuration's reset
    assert _set(rig, "reset", "minimum")["ok"] is True
    rig.leave_service()
    rig.configure("A1")  # configured, no round yet: still at its reset
    rig.enter_service()
    assert _set(rig, "wager_cents", 300)["ok"] is True
    rig.leave_service()
    _play_a_round(rig)
    _hit_and_reset(rig)  # the hit's reset, before the next LOCK
    rig.enter_service()
    for name, value in CHANGES[2:]:
        assert _set(rig, name, value)["ok"] is True, name
    assert _set(rig, "wager_cents", 500)["ok"] is True
    rig.leave_service()
    _play_a_round(rig, seat=4)
    last = rig.events("contribution")[-1]
    assert (last["wager"], last["amount"]) == (500, contribution("A1", 500))
    assert [r["ev"] for r in _log(rig)].count("setting_refused") == 0


@tmpdir.within
def test_a_bad_value_mid_cycle_is_refused_as_bad_input_and_not_logged(root):
    # Only a change the table could make is worth a record: bad input is
    # refused for what it is, and the log does not grow.
    rig = Rig(root)
    rig.configure("A1")
    _play_a_round(rig)
    rig.enter_service()
    head = rig.table.bonus.store.head_seq
    reply = _set(rig, "wager_cents", 99)
    assert reply["ok"] is False and reply["error"].startswith("wager_cents 99 is under")
    assert _set(rig, "speed", 1)["error"].startswith("unknown setting 'speed'")
    assert rig.table.bonus.store.head_seq == head


@tmpdir.within
def test_a_refusal_cut_before_its_meter_record_is_dropped_at_boot(root):
    # The refusal is an operation like any other: a power cut between its
    # log record and its meter record leaves it absent, said at the reboot.
    rig = Rig(root)
    rig.configure("A1")
    _play_a_round(rig)
    rig.enter_service()
    head = rig.table.bonus.store.head_seq

    def cut(*args):
        raise OSError(5, "power cut")

    rig.table.bonus.store._write_state = cut
    reply = _set(rig, "wager_cents", 500)
    assert reply["ok"] is False and reply["error"].startswith("store write failed")
    again = Rig(root)
    assert [e["reason"] for e in again.events("store_warning")] == [
        "an operation whose meter record never landed (a power cut, or a bad record) did not "
        "happen: the setting_refused from log record %d is dropped" % (head + 1)]
    assert _settings(again)["wager_cents"] is None
    assert again.table.bonus.store.head_seq == head and again.table.state == "betting"
