# The store's earlier formats, still read so a table updated in service
# boots on the store it kept; each is rewritten in the current form by the
# commits that follow (docs/mystery.md, "Store", has their history).
#
# This module can go once no table in service keeps a store from before the
# current formats: when every table has, on this firmware, committed twice
# (both meter copies rewritten) and validated a hit or changed a setting
# (the hits copy rewritten).

# The meter record with the recent hits inside it, before they had copies
# of their own.
METER_MAGIC = "UTHMETER1"
# The meter record with each whole number under its name, before the wager
# meters: the names left them no room under 512 bytes (record.py).
METER2_MAGIC = "UTHMETER2"
# The recent hits as a bare list, before the settings and the retained
# total were kept with them.
HITS_MAGIC = "UTHHITS1"
# The temporary file's earlier name: a store left with it is cleared of it.
TMP_NAME = "meter.tmp"


def meter_rare(payload):
    # (hits copy, recent hits, settings, retained) of a UTHMETER1 record:
    # no hits copy, the hits from the record, every setting at its default.
    return 0, payload["meter"]["last_hits"], {}, 0


def meter_numbers(record, m):
    # A UTHMETER1 or UTHMETER2 record's numbers into meter m. Its wager
    # meters were not kept: they count from 0, from this firmware's first
    # round, whose log record is the first to state them.
    for name in ("meter", "contributed", "seeded", "paid", "hits", "cycle", "round",
                 "reset_round"):
        setattr(m, name, record[name])
    # Absent from records written before a redraw existed: unknown, taken
    # as 0, so a redraw of that cycle draws above the meter.
    m.reset_meter = record.get("reset_meter", 0)
    m._hit_value = record["hit_value"]


def hits_rare(hits):
    # (recent hits, settings, retained) of a UTHHITS1 copy: every setting at
    # its default, nothing retained.
    return hits, {}, 0
