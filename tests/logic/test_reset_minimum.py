# The setting reset (653b.1(c)(5)(iv) and (c)(7)): after a hit, "carry" starts
# the next cycle with what lay above the award, "minimum" starts it at
# exactly the minimum and moves that remainder to the retained meter, so
# that seeded + contributed = paid + meter + retained. Figures by hand from
# 653b.1(c)(4): A1 is a $1 minimum wager at 2% (2 cents a chip), $100-$200;
# a capped award is checked on A1 with $100 chips ($2 a chip).
import tmpdir
from regulation import contribution, minimum
from table_rig import Rig, scripted_hit
from test_settings import in_service

CENT = 10_000  # micro-dollars
DOLLAR = 100 * CENT
SEATS = (1, 2, 6)


def _hit_and_validate(root, reset, wager_cents=None, candidate=3):
    # A1 with the first hit value $100 + candidate cents; the chips at SEATS
    # locked, the hit validated with the key, the next cycle reset.
    rig = Rig(root, random_bytes=scripted_hit(candidate))
    rig.configure("A1")
    if reset != "carry":
        assert in_service(rig, cmd="set", name="reset", value=reset)["ok"] is True
    if wager_cents is not None:
        assert in_service(rig, cmd="set", name="wager_cents", value=wager_cents)["ok"] is True
    for seat in SEATS:
        rig.chip(seat)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    rig.turn_key()
    return rig


def _identity_holds(m):
    return m["seeded"] + m["contributed"] == m["paid"] + m["meter"] + m["retained"]


@tmpdir.within
def test_carry_starts_the_next_cycle_with_what_lay_above_the_award(root):
    # Seat 1 takes the meter to $100.02, seat 2 to $100.04 > $100.03: seat 2
    # wins $100.04 and seat 6's 2 cents start the next cycle with its $100.
    rig = _hit_and_validate(root, "carry")
    m = rig.table.bonus.meters()
    assert (m["paid"], m["retained"]) == (100 * DOLLAR + 4 * CENT, 0)
    assert m["meter"] == 100 * DOLLAR + 2 * CENT
    assert rig.events("retained") == [] and _identity_holds(m)


@tmpdir.within
def test_minimum_resets_to_exactly_the_minimum_and_retains_the_rest(root):
    rig = _hit_and_validate(root, "minimum")
    m = rig.table.bonus.meters()
    assert m["paid"] == 100 * DOLLAR + 4 * CENT
    assert m["meter"] == 100 * DOLLAR and rig.display.text == "100.00"
    assert m["retained"] == 2 * CENT  # seat 6's contribution after the hit
    assert (m["seeded"], m["contributed"]) == (200 * DOLLAR, 3 * 2 * CENT)
    assert _identity_holds(m)
    retained = rig.events("retained")
    assert [(e["amount"], e["cycle"]) for e in retained] == [(2 * CENT, 1)]
    names = [r["ev"] for r in rig.table.bonus.log_since(0)]
    assert names[-4:] == ["validated", "paid", "retained", "reset"]
    again = Rig(root)  # kept across a restart
    assert again.table.bonus.meters()["retained"] == 2 * CENT


@tmpdir.within
def test_minimum_retains_what_lay_above_a_capped_award(root):
    # $150 chips on A1: $3 each (2%). Hit value $199.99 (the highest): chip
    # after chip the meter goes $103, $106, ... $199 (the 33rd chip, round
    # 11's last); round 12's seat 1 takes it to $202 > $199.99 and wins $200,
    # the maximum. The $2 above the cap and the $6 of seats 2 and 6 are
    # retained: the next cycle starts at exactly $100.
    per_chip = contribution("A1", 15_000)
    assert per_chip == 3 * DOLLAR
    rig = Rig(root, random_bytes=scripted_hit(9999))
    rig.configure("A1")
    in_service(rig, cmd="set", name="reset", value="minimum")
    in_service(rig, cmd="set", name="wager_cents", value=15_000)
    rounds = 0
    while rig.table.state != "hit_pending" and rounds < 20:
        for seat in SEATS:
            rig.chip(seat)
        rig.press_lock()
        rounds += 1
        if rig.table.state != "hit_pending":
            for seat in SEATS:
                rig.chip(seat, False)
            rig.run(300)
    hit = rig.events("hit")[0]
    assert (rounds, hit["seat"], hit["award"]) == (12, 1, 200 * DOLLAR)
    rig.turn_key()
    m = rig.table.bonus.meters()
    assert m["contributed"] == 12 * 3 * per_chip
    assert m["retained"] == 2 * DOLLAR + 2 * per_chip
    assert m["meter"] == minimum("A1") and _identity_holds(m)
