# What the board can claim about the temporary sections its rules rest on:
# their dates always; whether they have expired only when its clock is set.
# An RP2040 with no RTC set starts at 2021-01-01, before any 653b section
# took effect: a clock that reads a day that early was never set, and then
# the board says so and claims nothing; the host tools judge by their date.
from uth import sections

CLOCK_SET = "set"
CLOCK_UNSET = "unset"  # reads before any section took effect
NO_CLOCK = "none"  # no clock given (a test table)


def clock_state(date):
    if date is None:
        return NO_CLOCK
    return CLOCK_UNSET if sections.clock_unset(date) else CLOCK_SET


def report(cites, date):
    # The sections of cites with their dates and, by the board's clock, which
    # have expired (None: the board cannot tell), and the warning to give.
    clock = clock_state(date)
    rows = []
    for cite in cites:
        section = sections.section_of(cite)
        if section not in [row[0] for row in rows]:
            effective, expires = sections.dates(section)
            rows.append([section, effective, expires])
    expired = sections.lapsed(cites, date) if clock == CLOCK_SET else None
    return {"date": date, "clock": clock, "sections": rows, "expired": expired,
            "warning": _warning(cites, rows, date, clock)}


def _warning(cites, rows, date, clock):
    if clock == CLOCK_SET:
        text = sections.warning(cites, date)
        return None if text is None else text + " (by the board's clock)"
    if clock == CLOCK_UNSET and rows:
        return ("the board's clock reads %s, before any 653b section took effect: it was "
                "never set, so the board cannot tell whether %s is still in force (%s); the "
                "host tools judge by their own date"
                % (date, " or ".join(row[0] for row in rows),
                   ", ".join("%s expires %s" % (row[0], row[2]) for row in rows)))
    return None


def warning_event(cites, date):
    # The event for the host link, or None when there is nothing to warn of.
    rules = report(cites, date)
    if rules["warning"] is None:
        return None
    return {"ev": "expiry_warning", "reason": rules["warning"], "date": date,
            "clock": rules["clock"], "expired": rules["expired"]}


def board_date(localtime):
    # The board's date from its time.localtime; None when it has none.
    try:
        return sections.date_of(localtime())
    except (OSError, ValueError, TypeError, IndexError):
        return None
