# The temporary sections of 58 Pa. Code Chapter 653b and the dates of their
# source notes, and whether a section has expired as of a date. The board and
# the host tools ask the same questions here, so they never disagree on a day.
#
# A section is in force from its effective day up to, not including, its
# expiry day: "effective September 4, 2021, expire September 4, 2024" is the
# two years of a temporary regulation counted from a day that is in force, so
# the expiry day itself is the first day without it. A section past its date
# is warned about, never refused: the regulator may have extended or adopted it.
#
# Dates are ISO text, "YYYY-MM-DD", which compare in date order as strings.

# section -> (effective, expires), from the reference text's source notes
_DATES = {
    "653b.1": ("2021-09-04", "2024-09-04"),
    "653b.2": ("2024-03-23", "2026-03-23"),
    "653b.3": ("2024-03-23", "2026-03-23"),
    "653b.4": ("2024-03-23", "2026-03-23"),
    "653b.5": ("2024-03-23", "2026-03-23"),
}
SECTIONS = tuple(sorted(_DATES))
# No section took effect before this day: a clock that reads earlier was never
# set (an RP2040 without a set RTC starts at 2021-01-01).
FIRST_EFFECTIVE = "2021-09-04"


def section_of(cite):
    # "653b.2(b)" -> "653b.2": dates belong to a section, not a subsection.
    at = cite.find("(")
    return cite if at < 0 else cite[:at]


# What a board asks again and again (once a round, say), answered without
# slicing text anew: on a board every new string is heap, and heap is GC time.
_cited = {}  # cite -> (effective, expires), as each cite is first asked
_cited_section = {}  # cite -> its section
_good_date = None  # the last date check_date passed


def dates(cite):
    # (effective, expires) of the section a cite is in; (None, None) outside
    # Chapter 653b, whose dates the reference text does not give (653a).
    if not isinstance(cite, str):
        raise ValueError("a section is text such as \"653b.1\", not %r" % (cite,))
    found = _cited.get(cite)
    if found is not None:
        return found
    section = section_of(cite)
    found = _DATES.get(section)
    if found is None:
        if section.startswith("653b"):
            raise ValueError("unknown section %r (known: %s)" % (cite, ", ".join(SECTIONS)))
        found = (None, None)
    if len(_cited) < 32:  # the firmware names a dozen cites; a caller's garbage is not kept
        _cited[cite] = found
        _cited_section[cite] = section
    return found


def check_date(date):
    # The date itself, if it is "YYYY-MM-DD"; else ValueError with the reason.
    global _good_date
    if isinstance(date, str) and date == _good_date:
        return date
    ok = isinstance(date, str) and len(date) == 10 and date[4] == "-" and date[7] == "-"
    ok = ok and len(date.encode()) == 10  # ASCII only: CPython's isdigit takes other digits
    # isdigit() per part, no generator: a board may ask this once a round.
    if not (ok and date[:4].isdigit() and date[5:7].isdigit() and date[8:].isdigit()
            and "01" <= date[5:7] <= "12" and "01" <= date[8:] <= "31"):
        raise ValueError("a date is YYYY-MM-DD, not %r" % (date,))
    _good_date = date
    return date


def expired(cite, date):
    # True from the expiry day on; False before it, or when no expiry is known.
    check_date(date)
    expires = dates(cite)[1]
    return expires is not None and date >= expires


def lapsed(cites, date):
    # The sections among cites expired as of date, each once, in order.
    check_date(date)
    out = []
    for cite in cites:
        expires = dates(cite)[1]
        if expires is not None and date >= expires:
            section = _cited_section.get(cite) or section_of(cite)
            if section not in out:
                out.append(section)
    return out


def warning(cites, date):
    # One line for people when any of cites has expired as of date, else None.
    gone = lapsed(cites, date)
    if not gone:
        return None
    each = ", ".join("%s expired %s" % (section, _DATES[section][1]) for section in gone)
    return ("58 Pa. Code %s (as of %s): temporary regulations past their dates; play on "
            "only if the regulator has extended or adopted them" % (each, date))


def date_of(tm):
    # "YYYY-MM-DD" from a time tuple (time.localtime(), time.gmtime()).
    return "%04d-%02d-%02d" % (tm[0], tm[1], tm[2])


def clock_unset(date):
    # A clock that reads a day before any section took effect was never set.
    return check_date(date) < FIRST_EFFECTIVE
