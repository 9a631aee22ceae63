# Group commit: the messages waiting at the broker taken in one transaction
# (docs/floor-design.md, "Group commit"), so that a commit, and on PostgreSQL its
# round trips, is shared by a batch rather than paid by each message.
# One bad message still refuses only itself: its refusal is a write in the
# batch like any other; and a failure (a bug, the database) raises out of
# the batch, which is then rolled back whole, the intake's memory put back
# as it was before it, and every message of it taken again one at a time,
# each in its own transaction as before batches: the failing one refused
# alone, its neighbours stored. The floor acknowledges a batch's messages
# to the broker only after this returns: all committed, or each in its own.
import copy
import time

BATCH_COUNT = 500  # the most messages in one transaction
BATCH_S = 0.005  # the longest a batch waits for more messages after its first


def take_batch(intake, messages):
    # [outcome] of each (topic, payload), in order, all committed on return.
    saved = _memory(intake)
    said, log = [], intake.log
    try:
        intake.batching, intake.log = True, said.append  # said once committed
        with intake.store.batch():
            outcomes = [intake.take(topic, payload) for topic, payload in messages]
    except Exception as error:  # noqa: BLE001 -- taken again one at a time, below
        intake.batching, intake.log = False, log
        _put_back(intake, saved)
        intake.replaced_later = []
        log("a batch of %d messages rolled back (%s: %s): taken again one at a time"
            % (len(messages), type(error).__name__, error))
        return [intake.take(topic, payload) for topic, payload in messages]
    finally:
        intake.batching, intake.log = False, log
    for words in said:
        log(words)
    replaced, intake.replaced_later = intake.replaced_later, []
    for table, record in replaced:  # committed: now in its key file too
        intake._mark_replaced(table, record)
    return outcomes


def gather(first, more, count=BATCH_COUNT, wait_s=BATCH_S, clock=time.monotonic):
    # The batch that starts with `first`: what more(timeout) gives (None:
    # nothing came) until `count` messages or `wait_s` after the first,
    # whichever comes first.
    batch, ends = [first], clock() + wait_s
    while len(batch) < count:
        left = ends - clock()
        if left <= 0:
            break
        item = more(left)
        if item is None:
            break
        batch.append(item)
    return batch


def _memory(intake):
    # What the intake keeps in memory that a message may change.
    return (copy.deepcopy(intake.held), copy.deepcopy(intake.starts.asked),
            copy.deepcopy(intake.starts.starts), set(intake.told_unsigned),
            set(intake.told_signed), dict(intake.asked), list(intake.requests),
            dict(intake.counts), dict(intake.confirmations.sent))


def _put_back(intake, saved):
    (intake.held, intake.starts.asked, intake.starts.starts, intake.told_unsigned,
     intake.told_signed, intake.asked, intake.requests, intake.counts,
     intake.confirmations.sent) = saved
    # The running states may have moved past what the database now holds:
    # read again from it (each table's row keeps its own, at its head).
    intake.checks = {}
    if intake.keys is not None:  # a replaced key marked in memory alone: read again
        intake.keys.forget()
