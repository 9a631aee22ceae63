# A store whose meter record cannot be written, for the tests of what a
# failed commit leaves: a folder where the next commit writes its meter
# record, over the copy that does not count (store.py writes a copy there in
# place, copies.Pair.put), so every commit fails as a full or failing flash
# fails it, and the copy that counts stays as it was.
import os

from mystery import oldstores
from mystery.copies import Pair, exists

_NAMES = ("meter.a", "meter.b")


def _next_copy(root):
    # The copy the next commit writes: the one after the newest.
    magics = ("UTHMETER3", oldstores.METER2_MAGIC, oldstores.METER_MAGIC)
    newest = Pair(root, _NAMES, magics, "meter").newest([])
    return root + "/" + _NAMES[0 if newest is None else (newest[1] + 1) % 2]


def break_meter_writes(root):
    path = _next_copy(root)
    if exists(path):
        os.remove(path)
    os.mkdir(path)


def mend_meter_writes(root):
    # The folder gone (space freed, the board restarted): that copy is
    # missing, the other counts.
    for name in _NAMES:
        path = root + "/" + name
        if exists(path) and os.stat(path)[0] & 0x4000:
            os.rmdir(path)
