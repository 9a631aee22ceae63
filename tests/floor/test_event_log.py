# The bridge and the floor say what they do through `logging`, one event a
# line, each line with its date and time (UTC, to the millisecond) and who
# said it, so a log read later says when (uthctl/event_log.py).
import calendar
import io
import logging
import re
import time

from chains import CASINO

from uthctl import event_log
from uthctl.bridge.table_bridge import Bridge
from uthctl.floor.service import Floor

LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})Z (\w+) ([\w.]+): (.*)$")


def said_by(note):
    # The lines note() writes through the services' handler, and the time
    # (Unix seconds) before and after.
    stream = io.StringIO()
    with event_log.to_stderr(stream):
        before = time.time()
        note()
        after = time.time()
    return stream.getvalue().splitlines(), before, after


def when(line):
    stamp, millis = LINE.match(line).group(1, 2)
    return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")) + int(millis) / 1000


def test_a_bridges_event_is_one_line_with_its_date_and_time(tmp_path):
    bridge = Bridge("unused", "mqtt://127.0.0.1:1", ("table-3", "p"), CASINO, "3",
                    tmp_path / "bridge-3.json")
    lines, before, after = said_by(lambda: bridge.note("board: gone; trying again",
                                                       logging.WARNING))
    assert len(lines) == 1
    assert LINE.match(lines[0]).group(3, 4, 5) == ("WARNING", "uthctl.bridge.3",
                                                   "board: gone; trying again")
    # The stamp is cut to the millisecond, never rounded up past the moment.
    assert int(before * 1000) / 1000 <= when(lines[0]) <= after


def test_a_floors_event_with_a_line_end_in_it_stays_one_line(store):
    floor = Floor("mqtt://127.0.0.1:1", ("floor", "unused"), CASINO, store)
    lines, _, _ = said_by(lambda: floor.note("refused uth/x: not JSON: 'a\nb'"))
    assert len(lines) == 1
    assert LINE.match(lines[0]).group(3, 4, 5) == ("INFO", "uthctl.floor",
                                                   "refused uth/x: not JSON: 'a\\nb'")


def test_the_handler_goes_when_the_service_ends():
    stream = io.StringIO()
    with event_log.to_stderr(stream):
        pass
    event_log.logger("floor").warning("after the service ended")
    assert stream.getvalue() == ""
