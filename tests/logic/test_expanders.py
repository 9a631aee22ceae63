# Both betting spots of seven seats through two MCP23017s on a fake I2C bus
# (fake_i2c.py, the datasheet's registers): what the controller sees, what it
# lights, how often it talks on the bus, and the fault a bus error makes.
import tmpdir
from expander_rig import ExpanderRig, pins_of
from fake_i2c import GPPU, IODIR, IPOL, OLAT
from table_rig import scripted_hit

# A1: a $1 chip (the configuration's minimum wager) contributes 2%: 20,000 micro-dollars.
A1_CONTRIBUTION = 20_000


def _pair(model, base):
    return model.regs[base] | model.regs[base + 1] << 8


@tmpdir.within
def test_start_up_makes_port_a_pulled_up_inverted_inputs_and_port_b_dark_outputs(root):
    rig = ExpanderRig(root)
    for model in rig.models.values():
        assert _pair(model, IODIR) == 0x00FF
        assert _pair(model, IPOL) == 0x00FF and _pair(model, GPPU) == 0x00FF
        assert _pair(model, OLAT) == 0
    assert rig.table.state == "unconfigured" and rig.table.status()["fault"] is None


@tmpdir.within
def test_a_seat_qualifies_only_with_both_wagers_on_seven_seats(root):
    rig = ExpanderRig(root, uth=(1, 2, 4, 5, 7))  # seats 3 and 6: no UTH chip
    rig.configure("A1")
    for seat in range(1, 8):
        rig.chip(seat)
    assert rig.bet_lit() == [1, 2, 3, 4, 5, 6, 7]  # every progressive chip is seen
    rig.press_lock()
    contributions = [(e["seat"], e["wager"], e["amount"]) for e in rig.events("contribution")]
    assert contributions == [(seat, 100, A1_CONTRIBUTION) for seat in (1, 2, 4, 5, 7)]
    assert rig.table.locked_in == [1, 2, 4, 5, 7] and rig.bet_lit() == [1, 2, 4, 5, 7]


@tmpdir.within
def test_a_uth_chip_placed_late_counts_and_one_lifted_does_not(root):
    rig = ExpanderRig(root, seats=5, uth=(1,))
    rig.configure("A1")
    rig.uth_chip(2)
    rig.uth_chip(1, False)
    rig.chip(1)
    rig.chip(2)
    rig.press_lock()
    assert [e["seat"] for e in rig.events("contribution")] == [2]


@tmpdir.within
def test_each_tick_reads_each_expander_once_and_writes_only_what_changed(root):
    rig = ExpanderRig(root)
    rig.configure("A1")
    rig.run(100)
    rig.bus.log = []
    rig.run(500)  # 100 ticks, nothing changes
    assert len(rig.bus.log) == 200
    assert set(rig.bus.log) == {("read", 0x20, 0x12, 2), ("read", 0x21, 0x12, 2)}
    rig.bus.log = []
    rig.chip(6)  # seat 6: chip 0x21, its bet light on GPB1
    writes = [entry for entry in rig.bus.log if entry[0] == "write"]
    assert writes == [("write", 0x21, 0x14, 2)]
    assert _pair(rig.models[0x21], OLAT) == 1 << pins_of(6)[3]


@tmpdir.within
def test_a_hit_lights_the_jackpot_light_on_the_second_expander(root):
    rig = ExpanderRig(root, random_bytes=scripted_hit(1))  # hits at 1 cent over $100
    rig.configure("A1")
    rig.chip(6)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    assert rig.jackpot_lit() == [6] and rig.bet_lit() == [6]


@tmpdir.within
def test_a_missing_expander_at_start_up_is_a_fault_with_its_address(root):
    rig = ExpanderRig(root, present=(0x20,))
    assert rig.table.state == "fault"
    reason = "I2C expander 0x21: no answer (OSError 5)"
    assert rig.table.status()["fault"] == reason
    # A new board's fault: the event alone (its first record is still to come).
    assert rig.events("fault") == [{"ev": "fault", "source": "seats", "reason": reason}]
    rig.key.level = 1
    rig.run(200)
    assert rig.table.state == "fault"  # no way into service mode: a technician's job


@tmpdir.within
def test_a_bus_error_mid_run_faults_the_table_and_leaves_the_bus_alone(root):
    rig = ExpanderRig(root)
    rig.configure("A1")
    rig.chip(2)
    assert rig.bet_lit() == [2]
    rig.bus.broken = True
    rig.run(5)
    reason = "I2C expander 0x20: bus error reading the spots (OSError 5)"
    assert rig.table.state == "fault" and rig.table.status()["fault"] == reason
    # A record in the log, sent as its event.
    fault, = rig.events("fault")
    last = list(rig.table.bonus.log_since(0))[-1]
    assert fault == last and (last["ev"], last["source"], last["reason"]) == (
        "fault", "seats", reason)
    logged = rig.bus.transactions
    rig.bus.broken = False
    rig.press_lock()
    rig.chip(3)
    assert rig.bus.transactions == logged  # no further transactions once faulted
    assert rig.table.state == "fault" and rig.events("locked") == []
    assert rig.display.text == "FAULt"  # as seven segments spell it (meter_text.FAULT)


@tmpdir.within
def test_a_validation_in_a_fault_says_the_table_is_in_a_fault(root):
    # The hit is still pending in the meter, but play has stopped: the
    # refusal names the fault, not a missing hit.
    rig = ExpanderRig(root, random_bytes=scripted_hit(1))
    rig.configure("A1")
    rig.chip(6)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    rig.bus.broken = True
    rig.run(5)
    assert rig.table.state == "fault" and rig.table.bonus.meter.phase == "pending"
    reply = rig.command(cmd="validation", employee="4417", slip="JS-1", id=3)[-1]
    assert reply == {"ok": False, "id": 3, "error": (
        "the table is in a fault (I2C expander 0x20: bus error reading the spots (OSError "
        "5)): no validation is taken until it is cleared and the board restarted")}, reply
    assert rig.table.status()["validation"] is None


@tmpdir.within
def test_a_fault_lets_the_last_write_put_the_lights_out_where_the_bus_answers(root):
    rig = ExpanderRig(root)
    rig.configure("A1")
    rig.chip(1)
    rig.chip(5)
    assert rig.bet_lit() == [1, 5]
    del rig.bus.devices[0x21]  # seats 5 to 7's expander comes off the bus
    rig.run(5)
    assert rig.table.status()["fault"] == (
        "I2C expander 0x21: bus error reading the spots (OSError 5)")
    # 0x20's latch written dark in the same tick; 0x21 is out of reach, as it was.
    assert rig.bet_lit() == [5]


class _NotAnMcp:
    # Something at 0x21 that acknowledges and keeps nothing written.
    def read(self, register, count):
        return bytearray(count)

    def write(self, register, data):
        pass


@tmpdir.within
def test_another_chip_at_the_address_is_a_fault_not_an_empty_seat(root):
    rig = ExpanderRig(root, present=(0x20,), others={0x21: _NotAnMcp()})
    assert rig.table.status()["fault"].startswith(
        "I2C expander 0x21: not an MCP23017 as wired (register 0x00 reads 0x00, not the 0xff")
