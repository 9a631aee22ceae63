# A board's qualify declaration (table/qualify.py): 653b.1(a) and (c)(1) want
# both wagers; a board without UTH-spot sensors plays only when it says so,
# warns of it at every boot and in status, and otherwise does not play.
import tmpdir
from table_rig import Rig


@tmpdir.within
def test_no_uth_sensors_and_no_declaration_is_a_fault_saying_what_to_declare(root):
    rig = Rig(root, seats=3, uth_sensors=False)
    assert rig.table.state == "fault"
    reason = rig.table.status()["fault"]
    assert reason.startswith("seats 1,2,3 have no UTH-spot sensor")
    assert 'qualify="progressive_spot_only"' in reason and "653b.1(a)" in reason
    assert rig.events("fault") == [{"ev": "fault", "source": "seats", "reason": reason}]


@tmpdir.within
def test_progressive_spot_only_warns_at_every_boot_and_in_status_and_lets_a_chip_qualify(root):
    for boot in (1, 2):
        rig = Rig(root, seats=2, uth_sensors=False, qualify="progressive_spot_only")
        warnings = rig.events("warning")
        assert len(warnings) == 1, boot
        assert "regulator's approval" in warnings[0]["reason"]
        assert "653b.1(a) and (c)(1)" in warnings[0]["reason"]
        status = rig.table.status()
        assert status["qualify"] == "progressive_spot_only"
        assert status["warnings"] == [warnings[0]["reason"]]
    rig.configure("A1")
    rig.chip(2)
    rig.press_lock()
    assert [e["seat"] for e in rig.events("contribution")] == [2]


@tmpdir.within
def test_a_board_with_uth_sensors_declares_nothing_and_warns_nothing(root):
    rig = Rig(root, seats=2)
    status = rig.table.status()
    assert status["qualify"] == "both_spots" and "warnings" not in status
    assert rig.events("warning") == [] and rig.table.state == "unconfigured"


@tmpdir.within
def test_a_declaration_that_contradicts_the_wiring_or_is_unknown_is_a_fault(root):
    rig = Rig(root, seats=2, qualify="progressive_spot_only")  # UTH sensors wired
    assert rig.table.state == "fault"
    assert "disagree" in rig.table.status()["fault"]
    rig = Rig(root, seats=2, qualify="progressive_only")
    assert rig.table.status()["fault"].startswith("unknown qualify='progressive_only'")
