# The host link's `clock` command (table/hostlink.py, table/board_clock.py):
# the board's date and time read; set in service mode only, checked whole
# first (a bad time changes nothing); the clock's state as expiry.py judges it.
# The RTC is a model that keeps what it was given, as machine.RTC does.
import tmpdir
from table.board_clock import BoardClock, weekday
from table_rig import Rig


class ModelRtc:
    kept = (2021, 1, 1, 4, 0, 0, 0, 0)  # an RP2040 at power-on: a Friday, never set

    def datetime(self, when=None):
        if when is None:
            return ModelRtc.kept
        ModelRtc.kept = tuple(when)
        return None


def _localtime():
    t = ModelRtc.kept  # localtime's order: year, month, day, h, m, s, weekday, yearday
    return (t[0], t[1], t[2], t[4], t[5], t[6], t[3], 0)


def _rig(root):
    ModelRtc.kept = (2021, 1, 1, 4, 0, 0, 0, 0)
    rig = Rig(root)
    rig.link.clock = BoardClock(ModelRtc, _localtime)
    return rig


@tmpdir.within
def test_clock_reads_an_unset_clock_as_unset(root):
    reply = _rig(root).command(cmd="clock", id=1)[-1]
    assert reply == {"ok": True, "reply": "clock", "id": 1, "datetime": [2021, 1, 1, 0, 0, 0],
                     "date": "2021-01-01", "clock": "unset"}


@tmpdir.within
def test_clock_set_in_service_mode_sets_the_rtc_with_its_weekday(root):
    rig = _rig(root)
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(cmd="clock", set=[2026, 12, 2, 1, 30, 15])[-1]
    assert reply["ok"] and reply["clock"] == "set" and reply["date"] == "2026-12-02"
    assert reply["was"] == [2021, 1, 1, 0, 0, 0]
    assert reply["datetime"] == [2026, 12, 2, 1, 30, 15]
    assert ModelRtc.kept == (2026, 12, 2, 2, 1, 30, 15, 0)  # 2026-12-02 is a Wednesday


@tmpdir.within
def test_clock_set_out_of_service_mode_is_refused_and_changes_nothing(root):
    rig = _rig(root)
    reply = rig.command(cmd="clock", set=[2026, 12, 2, 1, 30, 15])[-1]
    assert reply["ok"] is False and "service mode" in reply["error"]
    assert ModelRtc.kept[:3] == (2021, 1, 1)


@tmpdir.within
def test_a_bad_time_is_refused_whole(root):
    bad = ([2026, 2, 29, 0, 0, 0], [2026, 13, 1, 0, 0, 0], [2026, 1, 1, 24, 0, 0],
           [1999, 1, 1, 0, 0, 0], [2026, 1, 1, 0, 0], "2026-01-01", [2026, 1, 1, 0, 0, 0.5])
    rig = _rig(root)
    rig.key.level = 1
    rig.run(100)
    for when in bad:
        reply = rig.command(cmd="clock", set=when)[-1]
        assert reply["ok"] is False and "clock set" in reply["error"], when
    assert ModelRtc.kept[:3] == (2021, 1, 1)


def test_weekday_counts_from_monday():
    # Known days: 2000-01-01 a Saturday, 2024-02-29 a Thursday, 2026-12-02 a Wednesday.
    assert [weekday(2000, 1, 1), weekday(2024, 2, 29), weekday(2026, 12, 2)] == [5, 3, 2]


@tmpdir.within
def test_a_board_without_a_clock_says_so(root):
    reply = Rig(root).command(cmd="clock")[-1]
    assert reply["ok"] is False and "no calendar clock" in reply["error"]
