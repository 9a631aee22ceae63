# The floor's time zone: every time the page shows is in it, with its
# abbreviation (a Pennsylvania pit works in Eastern time), and the page's
# day starts at its midnight. Times are stored in UTC (Unix times) as ever;
# only their showing is the zone's. The zone is an IANA name (Debian's
# tzdata, read through zoneinfo), `uthctl floor init --timezone`'s or the
# host's own.
import datetime
import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import FloorConfigError

SHOWN = "%Y-%m-%d %H:%M:%S %Z"
ZONEINFO = "/usr/share/zoneinfo/"


def named(name):
    # The ZoneInfo of an IANA name, or a FloorConfigError that says what to give.
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise FloorConfigError("unknown time zone %r: an IANA name such as America/New_York "
                               "(Debian's tzdata lists them in %s): %s" % (name, ZONEINFO, error)
                               ) from None


def host_zone_name():
    # The host's own zone by name: $TZ, Debian's /etc/timezone, or where
    # /etc/localtime points; UTC when none of them names one.
    for name in (os.environ.get("TZ", "").lstrip(":"), _read("/etc/timezone"),
                 _linked("/etc/localtime")):
        if name:
            try:
                named(name)
                return name
            except ValueError:
                continue
    return "UTC"


def _read(path):
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _linked(path):
    try:
        target = os.path.realpath(path)
    except OSError:
        return None
    return target.split(ZONEINFO, 1)[1] if ZONEINFO in target else None


def when(at, zone):
    # A Unix time in full, in the zone (None: the host's local time), with
    # the zone's abbreviation: 2026-12-03 07:01:40 EST.
    if not isinstance(at, (int, float)):
        return "?"
    moment = datetime.datetime.fromtimestamp(at, datetime.timezone.utc)
    return moment.astimezone(zone).strftime(SHOWN)


def day_start(now, zone):
    # The Unix time of the midnight in the zone that began the day of `now`.
    day = datetime.datetime.fromtimestamp(now, zone).date() if zone else \
        datetime.datetime.fromtimestamp(now).date()
    return datetime.datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()
