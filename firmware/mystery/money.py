# Money as text, the one way the board and the host tools write it. Amounts
# are integer micro-dollars (configs.py), the LED meter's reading whole cents.
# The rule: whole cents always, then a fraction of a cent with only its
# significant digits, so 1.5% of $1 (15,000 micro-dollars) is $0.015, never
# rounded. Only dollars_to_cent() rounds, and says so in its name.
from micropython import const

from .configs import MICROS_PER_CENT, MICROS_PER_DOLLAR

_CENTS_PER_DOLLAR = const(100)


def _grouped(whole):
    # 1234567 -> "1,234,567"
    text = "%d" % whole
    head = len(text) % 3 or 3
    parts = [text[:head]]
    for start in range(head, len(text), 3):
        parts.append(text[start : start + 3])
    return ",".join(parts)


def _fraction(rest):
    # Micro-dollars under a dollar: the cents, then the digits of a fraction of a cent.
    digits = "%06d" % rest
    return digits[:2] + digits[2:].rstrip("0")


def dollars(micros):
    # Exact, for people: $1,234.56, $0.015, -$2.50.
    whole, rest = divmod(abs(micros), MICROS_PER_DOLLAR)
    sign = "-" if micros < 0 else ""
    return sign + "$" + _grouped(whole) + "." + _fraction(rest)


def dollars_brief(micros):
    # An amount the regulation states in whole dollars (a chip, a meter's
    # limits) without ".00": $5, $1,000; any other amount as dollars().
    if micros % MICROS_PER_DOLLAR:
        return dollars(micros)
    return ("-$" if micros < 0 else "$") + _grouped(abs(micros) // MICROS_PER_DOLLAR)


def dollars_to_cent(micros):
    # Rounded to the nearest cent, half a cent away from zero: for a mean or a
    # difference of means, which no one pays.
    cents = (abs(micros) + MICROS_PER_CENT // 2) // MICROS_PER_CENT
    return dollars(cents * MICROS_PER_CENT if micros >= 0 else -cents * MICROS_PER_CENT)


def decimal(micros):
    # Exact, for a spreadsheet: 1234.56, 0.015, -2.5 is -2.50; no "$", no separators.
    whole, rest = divmod(abs(micros), MICROS_PER_DOLLAR)
    return ("-" if micros < 0 else "") + "%d.%s" % (whole, _fraction(rest))


def cents_text(cents):
    # The LED meter's reading: 1234.56 from whole cents. A seven-segment
    # digit has no "$" or ","; the meter is never negative.
    return "%d.%02d" % (cents // _CENTS_PER_DOLLAR, cents % _CENTS_PER_DOLLAR)
