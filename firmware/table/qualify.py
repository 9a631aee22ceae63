# Which wagers qualify a seat for the progressive, as the board declares it.
# 653b.1(a) and (c)(1): a player needs both an Ultimate Texas Hold 'Em wager
# and a progressive payout wager, so a board senses both spots
# (BOTH_SPOTS). A board built without UTH-spot sensors must say so with
# qualify=PROGRESSIVE_SPOT_ONLY: a progressive chip alone then qualifies, which
# needs the regulator's approval, and the table warns of it at every boot and
# in `status`. Without that declaration such a board does not play: the
# reason is a fault, never a silent default.
BOTH_SPOTS = "both_spots"
PROGRESSIVE_SPOT_ONLY = "progressive_spot_only"
WARNING = ("qualify=progressive_spot_only: this board senses no UTH spot, so a progressive "
           "chip alone qualifies a seat; 653b.1(a) and (c)(1) require both wagers, and "
           "play this way needs the regulator's approval")


def check(seats, qualify):
    # (fault reason or None, warning or None) for the board's seats and declaration.
    unsensed = [seat.number for seat in seats if seat.uth is None]
    declared = qualify or BOTH_SPOTS
    if declared == BOTH_SPOTS:
        if unsensed:
            return ("seats %s have no UTH-spot sensor: a board without them must declare "
                    "qualify=\"%s\" (653b.1(a), (c)(1); needs the regulator's approval)"
                    % (_numbers(unsensed), PROGRESSIVE_SPOT_ONLY), None)
        return None, None
    if declared == PROGRESSIVE_SPOT_ONLY:
        if len(unsensed) != len(seats):
            sensed = [seat.number for seat in seats if seat.uth is not None]
            return ("qualify=\"%s\" declared, yet seats %s have UTH-spot sensors: the "
                    "board's wiring and its declaration disagree"
                    % (PROGRESSIVE_SPOT_ONLY, _numbers(sensed)), None)
        return None, WARNING
    return ("unknown qualify=%r (one of %s, %s)" % (qualify, BOTH_SPOTS, PROGRESSIVE_SPOT_ONLY),
            None)


def _numbers(numbers):
    return ",".join("%d" % n for n in numbers)
