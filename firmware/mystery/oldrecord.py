# The meter record's numbers as the firmware before the wager meters wrote
# them (UTHMETER1 and UTHMETER2: each under its name), as record.py's list.
# Imported only to read such a record, so a board that never meets one keeps
# its heap: a board updated in the field boots on it once, and its next
# commit writes the current form (docs/mystery.md, "Store").


def numbers_of(record):
    # In record._NUMBERS' order. The wager meters were not kept: they count
    # from 0, from this firmware's first round, whose log record is the
    # first to state them. reset_meter is absent from records written before
    # a redraw existed: unknown, taken as 0, so a redraw of that cycle draws
    # above the meter.
    return [record["meter"], record["contributed"], record["seeded"], record["paid"],
            record["hits"], record["cycle"], record["round"], record["reset_round"], 0, 0,
            record.get("reset_meter", 0), record["hit_value"]]
