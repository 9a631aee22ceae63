# The board's calendar clock for the host link's `clock` command: read as
# time.localtime() gives it, set through machine.RTC (a Pico has no battery:
# its clock starts at 2021-01-01 at every power-on until a host sets it).
# A time is [year, month, day, hours, minutes, seconds], checked whole before
# the clock is touched.
import time

from micropython import const

from mystery.refusal import Refused

_FIRST_YEAR = const(2000)
_LAST_YEAR = const(2099)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _month_days(year, month):
    return 29 if month == 2 and _leap(year) else _MONTH_DAYS[month - 1]


def weekday(year, month, day):
    # 0 for Monday, as machine.RTC counts: days from 1970-01-01, a Thursday.
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return (days + 3) % 7


def checked(when):
    # The time as a tuple, or Refused naming what is wrong with it.
    if not isinstance(when, list) or len(when) != 6 or any(type(n) is not int for n in when):
        raise Refused("clock set is [year, month, day, hours, minutes, seconds], "
                         "whole numbers")
    year, month, day, hours, minutes, seconds = when
    if not _FIRST_YEAR <= year <= _LAST_YEAR:
        raise Refused("clock set: year %d is not %d to %d" % (year, _FIRST_YEAR, _LAST_YEAR))
    if not 1 <= month <= 12 or not 1 <= day <= _month_days(year, month):
        raise Refused("clock set: %04d-%02d-%02d is no date" % (year, month, day))
    if not (0 <= hours <= 23 and 0 <= minutes <= 59 and 0 <= seconds <= 59):
        raise Refused("clock set: %02d:%02d:%02d is no time of day" % (hours, minutes, seconds))
    return tuple(when)


class BoardClock:
    # rtc: machine.RTC's class (passed in: the logic tests give a model).
    def __init__(self, rtc, localtime=time.localtime):
        self.rtc = rtc
        self.localtime = localtime

    def read(self):
        return tuple(self.localtime()[:6])

    def set(self, when):
        year, month, day, hours, minutes, seconds = checked(when)
        self.rtc().datetime((year, month, day, weekday(year, month, day), hours, minutes,
                             seconds, 0))
