# As a floor that stored every record confirms it (the mark moved to the
# log's head, as MysteryBonus.confirm_collected does once a confirmation
# verifies): for tests that play more rounds than the log keeps uncollected
# and are about the log's rotation, not about collection
# (test_log_retention.py is).


def collect(bonus):
    store = bonus.store
    if store.head_seq > store.mark.seq:
        store.collect(store.head_seq)


def lock_collected(bonus, seats):
    collect(bonus)
    return bonus.lock_round(seats)


def small_log(store, per_segment, kept):
    # A log of a few records a segment, to rotate within a test: the room a
    # LOCK and the other operations leave cut to what one round takes (the
    # board's figures, retention.py, need a larger log than these tests).
    store.segment_records, store.segments_kept = per_segment, kept
    store.lock_needs = store.op_needs = 1
