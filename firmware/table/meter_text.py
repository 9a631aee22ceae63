# What the LED meter shows, as text for an 8-digit seven-segment display: a
# '.' lights the decimal point of the digit before it and takes no digit.
# An amount reads as mystery.money.cents_text() writes it: 1234.56.
from mystery.money import cents_text


def must_hit_by(maximum_cents):
    # 653b.1(b): the display tells players the Must-Hit-By bonus is offered;
    # the signage beside it reads "MUST HIT BY", the display the amount. The
    # maxima are whole dollars, so "bY 1000" fits eight digits where cents would not.
    if maximum_cents % 100:
        return "bY " + cents_text(maximum_cents)
    return "bY %d" % (maximum_cents // 100)


SERVICE = "SErvICE"
FAULT = "FAULt"
UNCONFIGURED = "no CFG"
