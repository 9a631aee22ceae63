# The temporary 653b sections past their dates, as the host tools warn of
# them: judged by the host's date with the firmware's own rule (the expiry
# day is the first day out of force, uth/sections.py), and beside it what the
# board said by its own clock. Never a refusal: the regulator may have
# extended or adopted a section.
import datetime
import os
import textwrap

from mystery import configs
from uth import sections

from ..errors import InputError

# The date the host judges by: today, unless this names another (YYYY-MM-DD),
# to see how a table stands on a given day.
DATE_ENV = "UTH_TODAY"


def host_date():
    given = os.environ.get(DATE_ENV)
    if given:
        try:
            return sections.check_date(given)
        except ValueError as error:
            raise InputError("%s: %s" % (DATE_ENV, error)) from None
    return datetime.date.today().isoformat()


def report(cites, date=None):
    # The sections of cites with their dates, which have expired as of date
    # (the host's by default), and the warning line, or None.
    date = date or host_date()
    rows = []
    for cite in cites:
        section = sections.section_of(cite)
        if section not in [row[0] for row in rows]:
            rows.append([section, *sections.dates(section)])
    warning = sections.warning(cites, date)
    return {"date": date, "sections": rows, "expired": sections.lapsed(cites, date),
            "warning": None if warning is None else warning + " (by this computer's date)"}


def mystery_report(config_name, date=None):
    # The Mystery configuration's section (653b.1) when one is in force.
    return report([configs.SECTION] if config_name else [], date)


def wrapped(text, width=84):
    # A long line for people, in lines that fit beside a 15-column label.
    return textwrap.wrap(text, width)


def warning_lines(found):
    # "WARNING ..." lines for people from a report; none when nothing expired.
    if found["warning"] is None:
        return []
    lines = wrapped(found["warning"])
    return ["%-15s%s" % ("" if n else "WARNING", line) for n, line in enumerate(lines)]


def board_lines(status):
    # What the board itself claims (status "rules"): its clock, and its
    # warning; nothing from a firmware that does not report it.
    rules = (status or {}).get("rules")
    if not rules:
        return []
    clock = rules.get("clock")
    if clock == "set":
        said = "by its clock (%s): %s" % (rules.get("date"), (
            "%s expired" % ", ".join(rules["expired"]) if rules.get("expired")
            else "no section expired"))
    elif clock == "unset":
        said = ("its clock reads %s, never set: it cannot tell whether its sections are "
                "in force" % rules.get("date"))
    else:
        said = "it has no clock to judge by"
    return ["board says     " + said]


def clock_lines(status):
    # The board's calendar clock (status "rules"): set, or never set since
    # its power-on; nothing from a firmware that does not report it.
    rules = (status or {}).get("rules")
    if not rules:
        return []
    clock = rules.get("clock")
    if clock == "set":
        return ["clock          set (%s)" % rules.get("date")]
    if clock == "unset":
        return ["clock          UNSET (reads %s): `uthctl clock --port PORT --set` in service "
                "mode sets it" % rules.get("date")]
    return ["clock          none"]
