# The words the table's signage adds for the Must-Hit-By Mystery bonus
# (653b.1(b)), made from a configuration's figures (653b.1(c)(4)) so a sign
# never disagrees with the table. Each line names the rule it rests on. The
# regulation prescribes no wording: the sign, with the layout, goes to the
# Bureau of Gaming Operations for approval (653b.1(b), 601a.10(a)).
from mystery import configs
from mystery.configs import MICROS_PER_CENT
from mystery.money import cents_text, dollars, dollars_brief
from table import meter_text

from ..errors import InputError
from .mystery_report import _percent


def sign_lines(name, wager_cents=None):
    # [(text, cite)] for configuration name; wager_cents: the table's fixed
    # progressive wager amount where one is set (at least the minimum).
    config = configs.get(name)
    low, high = dollars(config.minimum), dollars(config.maximum)
    minimum = dollars_brief(config.min_wager_cents * MICROS_PER_CENT)
    rate = _percent(config.rate_bp)
    if wager_cents is None:
        wager = "a progressive payout wager of at least %s" % minimum
        adds = "%s%% of each qualifying progressive payout wager" % rate
    else:
        if wager_cents < config.min_wager_cents:
            raise InputError("a progressive wager of %s is below %s's minimum of %s"
                             % (dollars(wager_cents * MICROS_PER_CENT), name, minimum))
        amount = dollars(wager_cents * MICROS_PER_CENT)
        wager = "a progressive payout wager of %s" % amount
        adds = "%s%% of each qualifying %s progressive payout wager (%s)" % (
            rate, amount, dollars(config.contribution(wager_cents)))
    return [
        ("MUST-HIT-BY MYSTERY BONUS", "653b.1(b)"),
        ("This table offers the Must-Hit-By Mystery bonus.", "653b.1(b)"),
        ("The jackpot must hit by %s." % high, "653b.1(c)(3), (c)(4)"),
        ("To qualify, place an Ultimate Texas Hold 'Em wager and %s." % wager,
         "653b.1(a), (c)(1), (c)(4)"),
        ("%s is added to the jackpot." % adds, "653b.1(c)(2), (c)(4)"),
        ("The jackpot starts at %s. When it starts, an electronic random number generator "
         "picks a secret amount between %s and %s; the qualifying player whose contribution "
         "takes the jackpot past that amount wins it." % (low, low, high), "653b.1(c)(3)"),
        ("The winner is paid 100% of the jackpot on the meter, once a floorperson has "
         "validated the win.", "653b.1(c)(5), (c)(7)"),
        ("The display shows the jackpot, then \"%s\" and \"%s\"."
         % (meter_text.HIT_BY, cents_text(config.maximum // MICROS_PER_CENT)), "653b.1(b)"),
    ]


def sign_text(name, wager_cents=None):
    return "\n".join(text for text, _ in sign_lines(name, wager_cents))
