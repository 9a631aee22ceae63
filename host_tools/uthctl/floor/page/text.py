# How the page writes times, spans and shares: a time in full with its date
# and zone (2026-12-03 03:42:39 EST, in the floor's zone: zone.py), how long
# ago in whole minutes (so the page changes once a minute, not at each
# tick), and a state's name as the pit says it.
from table.controller import BETTING, FAULT, HIT_PENDING, LOCKED, NOT_CONFIGURED, SERVICE

from .. import zone as zones

# The board's states by the firmware's own names; offline, online and
# unknown are the floor's words for a table it does not hear from.
STATE_NAMES = {FAULT: "FAULT", HIT_PENDING: "HIT PENDING", SERVICE: "SERVICE",
               BETTING: "betting", LOCKED: "locked", NOT_CONFIGURED: "unconfigured",
               "offline": "OFFLINE", "online": "online", "unknown": "unknown"}


def when(at, zone=None):
    return zones.when(at, zone)


def alert_title(alert, zone=None):
    # An alert on its tile: its kind and since when; an outage that is over
    # says so, from when to when (its whole text is in the list of alerts).
    if alert.get("back_at") is not None:
        return "%s %s to %s, back" % (alert["kind"], when(alert["raised_at"], zone),
                                      when(alert["back_at"], zone))
    return "%s alert since %s" % (alert["kind"], when(alert["raised_at"], zone))


def ago(at, now):
    if not isinstance(at, (int, float)):
        return "?"
    minutes = int(max(0, now - at) // 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return "%d min" % minutes
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return "%d h %d min" % (hours, minutes)
    days, hours = divmod(hours, 24)
    return "%d d %d h" % (days, hours)


def percent(share):
    return "%.2f%%" % (100 * share)


def state_name(state):
    return STATE_NAMES.get(state, str(state))


def install(env, zone=None):
    # zone: the floor's ZoneInfo (None: the host's local time).
    env.filters.update(when=lambda at: when(at, zone), percent=percent,
                       state_name=state_name,
                       alert_title=lambda alert: alert_title(alert, zone))
    env.globals.update(ago=ago, zone_name=getattr(zone, "key", None))
