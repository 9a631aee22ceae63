# uthctl paytables: every paytable the firmware carries, with section and dates.
import json

from uth import paytables, sections

from ..analysis.expiry import host_date
from ..errors import expecting


def add_parser(sub):
    return sub.add_parser("paytables", help="list every paytable with its section and dates")


def _expired(table, today):
    # The 653b tables are temporary regulations: show when one has lapsed.
    return sections.expired(table.section, today)


def _as_dict(table, today):
    return {"wager": table.wager, "paytable": table.letter, "section": table.section,
            "effective": table.effective, "expires": table.expires,
            "expired": _expired(table, today),
            "lines": [{"line": name, "odds": "%d to %d" % (to, per)}
                      for name, to, per in table.lines]}


def _print(table, today):
    dates = "effective %s, expires %s" % (table.effective or "unknown",
                                          table.expires or "unknown")
    lapsed = "  EXPIRED" if _expired(table, today) else ""
    print("%s %s  (58 Pa. Code %s; %s)%s" % (table.wager, table.letter, table.section, dates,
                                              lapsed))
    for name, to, per in table.lines:
        print("  %-20s %d to %d" % (name, to, per))


@expecting()
def run(args):
    """uthctl paytables: list every paytable with its section and dates."""
    today = host_date()
    tables = list(paytables.all_tables())
    if args.json:
        print(json.dumps([_as_dict(table, today) for table in tables]))
        return
    for table in tables:
        _print(table, today)
