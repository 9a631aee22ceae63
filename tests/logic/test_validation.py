# The floorperson's validation (653b.1(c)(5)(ii)): the host may give the
# validating employee's number and the jackpot slip's before the key turn,
# only while a hit is pending, as short printable text; the key turn puts
# both in the validated record and event, or null for what was not given.
import tmpdir
from mystery import chain
from table_rig import Rig, scripted_hit


def _pending(root):
    # A1's first hit value $100.00: seat 1's first 2 cents hit.
    rig = Rig(root, random_bytes=scripted_hit(0))
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    return rig


def _validated_record(rig):
    return [r for r in rig.table.bonus.log_since(0) if r["ev"] == "validated"][-1]


@tmpdir.within
def test_the_employee_and_slip_given_go_into_the_validated_record(root):
    rig = _pending(root)
    reply = rig.command(cmd="validation", employee="4417", slip="JS-00912", id=3)[-1]
    assert reply == {"ok": True, "reply": "validation", "employee": "4417",
                     "slip": "JS-00912", "id": 3}
    assert rig.command(cmd="status")[-1]["validation"] == {"employee": "4417",
                                                           "slip": "JS-00912"}
    rig.command(cmd="validation", employee="5120", slip="JS-00913")  # replaces the first
    rig.turn_key()
    event = rig.events("validated")[-1]
    assert (event["employee"], event["slip"]) == ("5120", "JS-00913")
    record = _validated_record(rig)
    assert (record["employee"], record["slip"], record["seat"]) == ("5120", "JS-00913", 1)
    assert chain.verify(list(rig.table.bonus.log_since(0)))[0]
    assert rig.command(cmd="status")[-1]["validation"] is None  # it went with that hit


@tmpdir.within
def test_a_key_turn_without_a_validation_records_both_as_absent(root):
    rig = _pending(root)
    rig.turn_key()
    record = _validated_record(rig)
    assert "employee" in record and "slip" in record
    assert (record["employee"], record["slip"]) == (None, None)


@tmpdir.within
def test_an_employee_alone_records_no_slip(root):
    rig = _pending(root)
    assert rig.command(cmd="validation", employee="77")[-1]["ok"] is True
    rig.turn_key()
    record = _validated_record(rig)
    assert (record["employee"], record["slip"]) == ("77", None)


@tmpdir.within
def test_a_validation_with_no_hit_pending_is_refused(root):
    rig = Rig(root)
    rig.configure("A1")
    assert rig.command(cmd="validation", employee="4417", slip="JS-1") == [
        {"ok": False, "error": "no hit is pending: a validation's employee and slip are given "
         "between the hit and the key turn"}]
    assert rig.command(cmd="status")[-1]["validation"] is None


@tmpdir.within
def test_bad_text_is_refused_and_keeps_what_was_given(root):
    rig = _pending(root)
    rig.command(cmd="validation", employee="4417", slip="JS-1")
    text_rule = "must be 1 to 24 printable characters, no space at either end"
    for fields, error in (
            ({"slip": "JS-1"}, "validation needs \"employee\", the validating employee's number"),
            ({"employee": 4417}, "employee " + text_rule),
            ({"employee": ""}, "employee " + text_rule),
            ({"employee": " 4417"}, "employee " + text_rule),
            ({"employee": "4" * 25}, "employee " + text_rule),
            ({"employee": "44\u000717"}, "employee " + text_rule),
            ({"employee": "Jos\u00e9"}, "employee " + text_rule),
            ({"employee": "4417", "slip": ["JS-1"]}, "slip " + text_rule),
            ({"employee": "4417", "slip": "JS 1\n"}, "slip " + text_rule)):
        assert rig.command(cmd="validation", **fields) == [{"ok": False, "error": error}], fields
    assert rig.command(cmd="status")[-1]["validation"] == {"employee": "4417", "slip": "JS-1"}
    assert rig.command(cmd="validation", employee="4" * 24, slip="~ !")[-1]["ok"] is True
