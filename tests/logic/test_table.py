# The table controller driven through fake pins and a moving clock: what a
# dealer, a floorperson and a host do, and what lights, display and meters show.
import json

import tmpdir
from table_rig import Rig, scripted_hit

MILLION = 1_000_000


@tmpdir.within
def test_a_new_board_waits_for_a_configuration_in_service_mode(root):
    rig = Rig(root)
    assert rig.table.state == "unconfigured" and rig.display.text == "no CFG"
    rig.press_lock()
    assert rig.table.state == "unconfigured" and rig.events("locked") == []
    assert rig.command(cmd="config", mystery="A1")[-1]["ok"] is False  # not in service
    # A board with no clock gives 653b.1's dates and claims nothing of them.
    rules = {"date": None, "clock": "none", "sections": [["653b.1", "2021-09-04", "2024-09-04"]],
             "expired": None, "warning": None}
    assert rig.configure("A1") == {"ok": True, "reply": "config", "mystery": "A1",
                                   "rules": rules}
    assert rig.table.state == "betting" and rig.display.text == "100.00"
    # Service mode entered on a new board: its event alone (the first record
    # is the configuration); left: a record.
    assert [e["ev"] for e in rig.events()] == ["service", "config", "reset", "service"]
    assert [e["ev"] for e in rig.table.bonus.log_since(0)] == ["config", "reset", "service"]


@tmpdir.within
def test_lock_commits_one_contribution_per_seat_with_chips(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.uth[2].level = 0  # seat 3 has a progressive chip but no UTH wager
    rig.run(50)
    for seat in (1, 3, 5):
        rig.chip(seat)
    assert rig.lit(rig.bet_lights) == [1, 3, 5]
    rig.press_lock()
    rig.press_lock()  # a second press in the same round locks nothing
    assert rig.table.state == "locked"
    locked = rig.events("locked")
    assert len(locked) == 1 and locked[0]["round"] == 1
    # A1 takes $1 from each qualifying seat's chip: 2% = 2 cents = 20,000 micro-dollars.
    assert [(e["seat"], e["wager"], e["amount"]) for e in rig.events("contribution")] == [
        (1, 100, 20_000), (5, 100, 20_000)]
    assert rig.lit(rig.bet_lights) == [1, 5] and rig.display.text == "100.04"
    assert rig.table.bonus.meters()["meter"] == 100 * MILLION + 40_000


@tmpdir.within
def test_the_round_ends_when_the_chips_are_gone_or_lock_is_held(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(2)
    rig.press_lock()
    rig.chip(2, False)
    assert rig.table.state == "locked"  # 50 ms clear could be a flicker
    rig.run(250)
    assert rig.table.state == "betting"
    rig.chip(4)  # a stuck sensor: the chip never leaves
    rig.press_lock()
    assert rig.table.state == "locked"
    rig.press_lock(hold_ms=2500)  # the dealer reopens betting by hand
    assert rig.table.state == "betting"
    rig.press_lock()
    # The stuck seat counted once in each of its two rounds.
    assert [(e["round"], e["seat"]) for e in rig.events("contribution")] == [
        (1, 2), (2, 4), (3, 4)]


@tmpdir.within
def test_a_chattering_or_dropping_sensor_counts_once(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    for step in range(40):  # the locked chip's sensor flickers for 40 ms
        rig.chips[0].level = step % 2
        rig.run(1, step=1)
    rig.chips[0].level = 0
    rig.run(5, step=1)  # and drops out 5 ms
    rig.chips[0].level = 1
    rig.run(100)
    rig.press_lock()  # the dealer presses again: still the same round
    assert rig.table.state == "locked"
    assert [e["seat"] for e in rig.events("contribution")] == [1]


@tmpdir.within
def test_the_chip_is_the_configurations_minimum_wager(root):
    rig = Rig(root)
    rig.configure("A2")  # 653b.1(c)(4): $2 minimum progressive wager, 1.5%
    rig.chip(3)
    rig.press_lock()
    # $2 x 1.5% = 3 cents = 30,000 micro-dollars.
    assert [(e["seat"], e["wager"], e["amount"]) for e in rig.events("contribution")] == [
        (3, 200, 30_000)]


@tmpdir.within
def test_a_hit_lights_the_seat_shows_the_award_and_waits_for_the_key(root):
    rig = Rig(root, random_bytes=scripted_hit(3))  # hit value $100.03
    rig.configure("A1")
    for seat in (1, 2, 6):
        rig.chip(seat)
    rig.press_lock()
    # Seat 1 takes the meter to $100.02, seat 2 to $100.04 > $100.03: seat 2
    # wins $100.04; seat 6's 2 cents go to the next cycle.
    hit = rig.events("hit")[0]
    assert (hit["seat"], hit["award"], hit["hit_value"]) == (2, 100_040_000, 100_030_000)
    assert rig.table.state == "hit_pending" and rig.lit(rig.jackpot_lights) == [2]
    assert rig.display.text == "100.04"
    for seat in (1, 2, 6):
        rig.chip(seat, False)
    rig.run(300)
    rig.chip(3)
    rig.press_lock()  # no new round until the floorperson validates
    assert rig.table.state == "hit_pending" and len(rig.events("locked")) == 1
    assert rig.command(cmd="payment", method="jackpot_slip")[-1]["ok"] is True
    rig.turn_key()
    assert [e["ev"] for e in rig.events()][-3:] == ["validated", "paid", "reset"]
    assert rig.events("paid")[0]["payment"] == "jackpot_slip"
    assert rig.lit(rig.jackpot_lights) == [] and rig.display.text == "100.02"
    meters = rig.table.bonus.meters()
    assert meters["paid"] == 100_040_000 and meters["hits"] == 1
    assert meters["seeded"] + meters["contributed"] == meters["paid"] + meters["meter"]


def _shown(rig, ms):
    # The display's changes over ms: [(text, ms it stayed)], the last cut off.
    changes, shown, since = [], rig.display.text, 0
    for step in range(1, ms // 5 + 1):
        rig.run(5)
        if rig.display.text != shown:
            changes.append((shown, step * 5 - since))
            shown, since = rig.display.text, step * 5
    return changes


@tmpdir.within
def test_the_display_says_hit_by_the_maximum_between_turns_of_the_meter(root):
    # 653b.1(b): the meter 4 s, "hit bY" 1.5 s, then the maximum as the meter
    # reads, 2 s: A1's $200.00, D5's $1,000.00, each meter at its minimum
    # (653b.1(c)(4)).
    for name, meter, maximum in (("A1", "100.00", "200.00"), ("D5", "250.00", "1000.00")):
        rig = Rig(root)
        rig.configure(name)
        changes = _shown(rig, 30_000)[1:]  # from the first whole turn on
        changes = changes[[text for text, _ in changes].index(meter):]
        assert changes[:6] == [(meter, 4000), ("hit bY", 1500), (maximum, 2000)] * 2, changes


@tmpdir.within
def test_a_hit_shows_its_award_steadily_until_validated(root):
    rig = Rig(root, random_bytes=scripted_hit(0))  # the first contribution hits
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    shown = len(rig.display.history)
    rig.run(20_000)
    assert rig.display.text == "100.02" and len(rig.display.history) == shown


@tmpdir.within
def test_bad_host_lines_get_errors_and_change_nothing(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    before = (rig.table.status(), rig.table.bonus.meters())
    lines = [b"garbage\n", b"{\"cmd\": 5}\n", b"[1, 2]\n", b"{\"cmd\": \"launch\"}\n",
             b"\xff\xfe\n", b"x" * 1000 + b"\n", b"{\"cmd\": \"config\", \"mystery\": \"B1\"}\n",
             b"{\"cmd\": \"log\", \"since\": -1}\n", b"{\"cmd\": \"payment\", \"method\": 1}\n",
             b"{\"cmd\": \"ping\", \"id\": 1e400}\n"]
    for line in lines:
        count = len(rig.lines)
        rig.feed(line)
        replies = [json.loads(text) for text in rig.lines[count:]]
        assert len(replies) == 1 and replies[0]["ok"] is False, (line, replies)
        assert replies[0]["error"]
    assert (rig.table.status(), rig.table.bonus.meters()) == before


@tmpdir.within
def test_a_config_refused_in_service_mode_is_one_error_reply(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()  # a round played: the cycle is under way
    rig.chip(1, False)
    rig.run(300)
    rig.key.level = 1
    rig.run(100)
    before = len(rig.events())
    assert rig.command(cmd="config", mystery="B2", id=3) == [
        {"ok": False, "error": "configuration changes only with the meter at a reset", "id": 3}]
    assert len(rig.events()) == before and rig.table.bonus.meter.config == "A1"


@tmpdir.within
def test_commands_answer_with_their_id(root):
    rig = Rig(root)
    rig.configure("A1")
    assert rig.command(cmd="ping", id=7) == [{"ok": True, "reply": "pong", "id": 7}]
    status = rig.command(cmd="status")[-1]
    assert status["state"] == "betting" and status["config"] == "A1"
    records = rig.command(cmd="log", since=2)
    assert [r["record"]["ev"] for r in records[:-1]] == ["reset", "service"]  # (service left)
    assert records[-1] == {"ok": True, "reply": "log", "count": 2}


@tmpdir.within
def test_a_validation_cut_before_its_reset_resets_at_the_next_boot(root):
    rig = Rig(root, random_bytes=scripted_hit(0))
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    rig.table.bonus.validate("table_inventory")  # committed; power goes before the reset
    again = Rig(root)
    assert again.table.state == "betting"
    assert [e["ev"] for e in again.events()] == ["reset"]
    assert again.table.bonus.meter.cycle == 2


@tmpdir.within
def test_an_unreadable_store_is_a_fault_that_refuses_play(root):
    rig = Rig(root)
    rig.configure("A1")
    for name in ("meter.a", "meter.b"):
        with open(root + "/" + name, "w") as f:
            f.write("not a meter")
    broken = Rig(root)
    assert broken.table.state == "fault" and broken.display.text == "FAULt"
    assert broken.events("fault")
    broken.chip(1)
    broken.press_lock()
    broken.turn_key()
    assert broken.table.state == "fault" and broken.events("locked") == []
    assert broken.command(cmd="status")[-1]["fault"].startswith("store:")
    assert broken.command(cmd="meters")[-1]["ok"] is False


@tmpdir.within
def test_a_new_cycle_may_be_reconfigured_before_its_first_round(root):
    rig = Rig(root)
    rig.configure("A1")
    reply = rig.configure("B2")
    assert (reply["ok"], reply["mystery"], reply["rules"]["sections"][0][0]) == (
        True, "B2", "653b.1")
    config = rig.events("config")[-1]
    assert (config["was"], config["withdrawn"]) == ("A1", 100 * MILLION)
    meters = rig.table.bonus.meters()
    assert (meters["config"], meters["meter"], meters["seeded"]) == ("B2", 100 * MILLION,
                                                                    100 * MILLION)


@tmpdir.within
def test_no_reply_or_event_shows_the_live_hit_value(root):
    rig = Rig(root, random_bytes=scripted_hit(90))  # hit value $100.90: round 8 hits
    rig.configure("A1")
    secret = rig.table.bonus.meter._hit_value
    salt = rig.table.bonus.meter._salt
    for seat in range(1, 7):
        rig.chip(seat)
    for _ in range(7):
        rig.press_lock()
        rig.command(cmd="status")
        rig.command(cmd="meters")
        for seat in range(1, 7):
            rig.chip(seat, False)
        rig.run(300)
        for seat in range(1, 7):
            rig.chip(seat)
    assert rig.events("hit") == [] and rig.table.state == "betting"
    for line in rig.lines:
        assert salt not in line
        message = json.loads(line)
        # The meter itself is public; hex digests hold any digits by chance.
        for key in ("meter", "meters", "display", "display_cents", "prev", "hash",
                    "commitment"):
            message.pop(key, None)
        assert str(secret) not in json.dumps(message), line
        assert ("%d" % (secret // 10_000)) not in json.dumps(message), line
