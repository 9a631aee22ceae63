# The floor's MQTT topics: uth/<casino>/<table>/<kind>. A table publishes
# its log records and live events on `event`, meters snapshots on `meters`,
# its link's state (retained, and the broker's last will) on `status`, and
# reads the floor's read-only requests on `command`.
import re

from ..errors import InputError

ROOT = "uth"
EVENT, METERS, STATUS, COMMAND = "event", "meters", "status", "command"
PUBLISHED = (EVENT, METERS, STATUS)
KINDS = PUBLISHED + (COMMAND,)
# A name that is one topic level, a broker user name's part and a file name.
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class BadName(InputError):
    # A casino's or table's name that is no topic level.
    pass


def check_name(name, what="table"):
    # The name itself, or BadName saying what a name may hold.
    if not isinstance(name, str) or not _NAME.match(name):
        raise BadName("%s %r: 1 to 32 letters, digits, '_' or '-'" % (what, name))
    return name


def topic(casino, table, kind):
    return "%s/%s/%s/%s" % (ROOT, casino, table, kind)


def parse(name):
    # (casino, table, kind) of a floor topic, or None for any other topic.
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[3] not in KINDS:
        return None
    if not (_NAME.match(parts[1]) and _NAME.match(parts[2])):
        return None
    return parts[1], parts[2], parts[3]


def user_of(table):
    # A table's broker account, which the ACL ties to its topics.
    return "table-" + check_name(table)
