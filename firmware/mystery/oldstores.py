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
# meters: the names left them no room under 512 bytes (record.py). Its
# numbers are read by oldrecord.py, imported only when such a record is met.
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


def hits_rare(hits):
    # (recent hits, settings, retained) of a UTHHITS1 copy: every setting at
    # its default, nothing retained.
    return hits, {}, 0
