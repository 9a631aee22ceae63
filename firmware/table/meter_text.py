# What the LED meter shows, as text for an 8-digit seven-segment display: a
# '.' lights the decimal point of the digit before it and takes no digit.


def money(cents):
    return "%d.%02d" % (cents // 100, cents % 100)


def must_hit_by(maximum_cents):
    # 653b.1(b): the display tells players the Must-Hit-By bonus is offered;
    # the signage beside it reads "MUST HIT BY", the display the amount. The
    # maxima are whole dollars, so "bY 1000" fits eight digits where cents would not.
    if maximum_cents % 100:
        return "bY " + money(maximum_cents)
    return "bY %d" % (maximum_cents // 100)


SERVICE = "SErvICE"
FAULT = "FAULt"
UNCONFIGURED = "no CFG"
