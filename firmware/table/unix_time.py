# A hit's time as seconds from 1970-01-01 UTC, on every port. The host reads
# it so (time.gmtime in uthctl's meters and audit). The rp2 and unix ports
# count time.time() from 1970; the ESP32 port from 2000 (MicroPython's
# default, MICROPY_EPOCH_IS_2000), which would put an ESP32's hits thirty
# years early on every page that shows them.
import time

from micropython import const

_SECONDS_1970_TO_2000 = const(946_684_800)


def unix_clock(clock=time.time, gmtime=time.gmtime):
    # clock() in seconds from 1970, whichever epoch gmtime(0) reveals.
    if gmtime(0)[0] != 2000:
        return clock

    def unix_now():
        return clock() + _SECONDS_1970_TO_2000

    return unix_now
