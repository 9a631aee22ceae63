# What the LED meter shows, as text for an 8-digit seven-segment display: a
# '.' lights the decimal point of the digit before it and takes no digit.
# An amount reads as mystery.money.cents_text() writes it: 1234.56.
from mystery.money import cents_text

# 653b.1(b): the display indicates the Must-Hit-By Mystery bonus. Seven
# segments cannot draw "MUST" or "$", so the display says "hit bY" and then
# the maximum as the meter reads (cents_text: 200.00, 1000.00), between two
# turns of the meter: "hit bY" "200.00" reads "must hit by $200.00". The
# signage beside it (README) says the rest in words.
HIT_BY = "hit bY"
# The meter, "hit bY", the maximum: how long each is shown, in ms. The meter
# has the longest turn, as players watch it most; "hit bY" the shortest that
# reads at a glance; the maximum long enough to be read after it.
TURNS_MS = (4000, 1500, 2000)
# The log nearly full of records not collected (mystery/retention.py): the
# staff see it in a turn of its own after the maximum, while it lasts.
LOG_FULL = "LoG FuLL"
TURNS_WARNED_MS = TURNS_MS + (1500,)


def in_turn(turn, meter_cents, maximum_cents):
    # The text of turn 0 to 3 of TURNS_WARNED_MS (0 to 2 of TURNS_MS) while
    # the table plays.
    if turn == 0:
        return cents_text(meter_cents)
    if turn == 1:
        return HIT_BY
    if turn == 2:
        return cents_text(maximum_cents)
    return LOG_FULL


SERVICE = "SErvICE"
FAULT = "FAULt"
UNCONFIGURED = "no CFG"
