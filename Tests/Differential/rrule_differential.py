#!/usr/bin/env python3
"""Differential test: `almanac ics expand` against python-dateutil.

Generates random RFC 5545 recurrence cases (every RRULE part, floating, UTC,
zoned and all-day series, EXDATE, RDATE), computes each case's instances with
python-dateutil on naive wall-clock datetimes plus zoneinfo (the oracle), writes
all cases as VEVENTs into a few .ics files, runs

    almanac ics expand FILE --from 1990-01-01 --to 2040-01-01 --format jsonl

and requires the same instances (start and end) per UID.

    Tests/Differential/rrule_differential.py                 # 20000 rules, seed 1
    Tests/Differential/rrule_differential.py --self-test     # generator + oracle only
    Tests/Differential/rrule_differential.py --show 17       # one case: its VEVENT and expected instances

Standard library plus python-dateutil. See README.md beside this file.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from zoneinfo import ZoneInfo, TZPATH

from dateutil import rrule as du

UTC = dt.timezone.utc
REPO_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

ZONE_NAMES = [
    "Europe/Berlin", "America/New_York", "Australia/Sydney",
    "Asia/Kolkata", "Pacific/Chatham", "America/Sao_Paulo",
]
ZONES = {name: ZoneInfo(name) for name in ZONE_NAMES}

# The expansion window the almanac command is asked for, and what the oracle keeps.
WINDOW_FROM_ARG, WINDOW_TO_ARG = "1990-01-01", "2040-01-01"
WINDOW_END = dt.datetime(2040, 1, 1)  # exclusive; UTC for timed instances, local for floating and all-day
# No instance may start or end in this band, so that how an engine compares a floating or all-day
# instance with the UTC window end never matters (offsets are at most 14 h).
EDGE_LO, EDGE_HI = dt.datetime(2039, 12, 27), dt.datetime(2040, 1, 6)
# dateutil iteration stops once a period starts after this (local wall clock).
STOP = dt.datetime(2040, 1, 12)
STOP_ORDINAL = STOP.date().toordinal()

FREQS = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"]
SUBDAILY = {"HOURLY", "MINUTELY", "SECONDLY"}
DU_FREQ = {"YEARLY": du.YEARLY, "MONTHLY": du.MONTHLY, "WEEKLY": du.WEEKLY, "DAILY": du.DAILY,
           "HOURLY": du.HOURLY, "MINUTELY": du.MINUTELY, "SECONDLY": du.SECONDLY}
WEEKDAY_CODES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
DU_WEEKDAYS = [du.MO, du.TU, du.WE, du.TH, du.FR, du.SA, du.SU]

PERIOD_BUDGET = 40_000    # dateutil periods (iterations) one expansion may take before the case is dropped
MAX_UNBOUNDED = 400       # an unbounded rule with more instances in the window becomes a COUNT or UNTIL rule
SYNC_BUDGET = 6_000       # periods allowed to find a rule's first 12 instances (sparser rules are regenerated)
EXPANSION_PERIODS = 1_500 # COUNT, UNTIL and unbounded rules are sized to cost about this many periods
TIMEOUT_SECONDS = 20      # safety net around one case; the grammar is meant never to get near it

NOTE = ("note: DTSTART is always generated synchronized with its rule (it is the first instance dateutil "
        "produces), because RFC 5545 makes DTSTART the first instance and counts it toward COUNT even when the "
        "rule does not produce it, while dateutil drops it.")

AVOIDED_DIFFERENCES = [
    "UNTIL with a UTC or zoned DTSTART: dateutil rejects a UTC UNTIL next to a naive DTSTART and would compare "
    "UNTIL with wall-clock times, which is wrong in a DST gap or fold; the oracle expands without UNTIL, maps each "
    "wall-clock instance to its UTC instant and cuts at the last instance whose instant <= UNTIL (RFC: UNTIL is "
    "written in UTC when DTSTART is UTC or zoned, and the grammar always does so).",
    "BYWEEKNO without BYDAY: dateutil yields all seven days of each week; the oracle adds DTSTART's weekday "
    "(RFC: missing information comes from DTSTART; TIME-EDGE-CASES.md #8).",
    "Rules RFC 5545 forbids are never written (dateutil accepts or silently ignores them): BYWEEKNO outside "
    "YEARLY, ordinal BYDAY outside MONTHLY/YEARLY or with BYWEEKNO, BYMONTHDAY with WEEKLY, BYYEARDAY with "
    "DAILY/WEEKLY/MONTHLY, BYSETPOS without another BYxxx part, COUNT with UNTIL, BYSECOND=60, BYHOUR/"
    "BYMINUTE/BYSECOND or sub-daily FREQ on a DATE series.",
    "BYSETPOS numbers the whole interval's set, candidates before DTSTART included (dateutil and RFC); with a "
    "synchronized DTSTART an engine that started the first interval at DTSTART would still differ.",
    "DST gaps and folds: dateutil only sees wall-clock times; the oracle resolves them with zoneinfo fold=0 "
    "(gap: moved forward by the gap; fold: the earlier instant). Cases where two wall-clock values (instances, "
    "RDATEs, EXDATEs) resolve to the same instant, or a gap reorders instants, are regenerated: RFC 5545 does "
    "not say how COUNT or UNTIL treat them.",
    "Sub-daily FREQ in a zone steps in local wall-clock time (RFC 5545 §3.3.10, 'computed local start time'); "
    "an engine stepping in absolute time differs around transitions (feature tag subdaily-dst).",
    "EXDATE and RDATE match instances as instants (RFC) while dateutil's rruleset compares naive values; equal "
    "once the previous point holds.",
    "A DURATION with days or weeks on an instance that starts in a DST gap has no agreed end; regenerated.",
    "WEEKLY + BYSETPOS: dateutil starts the first interval at DTSTART instead of the week's WKST day, so "
    "BYSETPOS counts the first week from DTSTART; cases where that changes the first week are regenerated.",
    "Rules that never fire cannot have a synchronized DTSTART, so none are generated (RFC: the set is DTSTART "
    "alone; dateutil's set is empty and it iterates to year 9999).",
]


# --------------------------------------------------------------------------------------------
# dateutil, bounded: every expansion stops past STOP and gives up after PERIOD_BUDGET periods.

class _BudgetExceeded(Exception):
    pass


class _PastStop(Exception):
    pass


_remaining = [PERIOD_BUDGET]


class _BoundedIterinfo(du._iterinfo):
    """dateutil's per-expansion helper, counting the periods its generator visits.

    dateutil checks UNTIL only when it has an instance to yield, so a sparse or empty rule
    makes it iterate to year 9999. Each period starts with one of these calls; this class
    raises once the period starts after STOP or the budget is spent. It changes no result.
    """

    def ydayset(self, year, month, day):
        _remaining[0] -= 1
        if _remaining[0] < 0:
            raise _BudgetExceeded
        if year > STOP.year:
            raise _PastStop
        return super().ydayset(year, month, day)

    def mdayset(self, year, month, day):
        _remaining[0] -= 1
        if _remaining[0] < 0:
            raise _BudgetExceeded
        if (year, month) > (STOP.year, STOP.month):
            raise _PastStop
        return super().mdayset(year, month, day)

    def wdayset(self, year, month, day):
        _remaining[0] -= 1
        if _remaining[0] < 0:
            raise _BudgetExceeded
        if dt.date(year, month, day).toordinal() - 6 > STOP_ORDINAL:
            raise _PastStop
        return super().wdayset(year, month, day)

    def ddayset(self, year, month, day):
        _remaining[0] -= 1
        if _remaining[0] < 0:
            raise _BudgetExceeded
        if dt.date(year, month, day).toordinal() > STOP_ORDINAL:
            raise _PastStop
        return super().ddayset(year, month, day)


du._iterinfo = _BoundedIterinfo  # rrule._iter looks the class up in the module at each expansion


class Stopped:
    """An iterable over a dateutil rule that ends cleanly past STOP (for rruleset.rrule)."""

    def __init__(self, rule):
        self.rule = rule

    def __iter__(self):
        try:
            for value in self.rule:
                if value > STOP:
                    return
                yield value
        except _PastStop:
            return


def expand(rule, limit=None, budget=PERIOD_BUDGET):
    """Instances of a dateutil rule up to STOP (at most `limit`), with a fresh period budget."""
    _remaining[0] = budget
    out = []
    for value in Stopped(rule):
        out.append(value)
        if limit is not None and len(out) >= limit:
            break
    return out


def periods_used(budget=PERIOD_BUDGET):
    """Periods the last expand() visited."""
    return budget - _remaining[0]


# --------------------------------------------------------------------------------------------
# Time zones

def instant(wall, zone):
    """The UTC instant (naive) of a wall-clock time: fold=0, so a gap time moves forward by the
    gap and an ambiguous time takes the earlier instant (RFC 5545 §3.3.5, erratum 4271)."""
    return wall.replace(tzinfo=zone).astimezone(UTC).replace(tzinfo=None)


def wall_status(wall, zone):
    """'gap', 'fold' or None for a wall-clock time in `zone`."""
    aware = wall.replace(tzinfo=zone)
    if aware.utcoffset() == aware.replace(fold=1).utcoffset():
        return None
    back = aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    return "gap" if back != wall else "fold"


def check_dateutil_hook():
    """The period budget relies on dateutil internals (2.8/2.9): fail loudly if they changed."""
    empty = du.rrule(du.YEARLY, dtstart=dt.datetime(2001, 1, 1), bymonth=2, bymonthday=30, cache=False)
    assert expand(empty) == [] and 0 < periods_used() <= 50, "dateutil's rrule no longer calls _iterinfo per period"
    sparse = du.rrule(du.DAILY, dtstart=dt.datetime(2001, 1, 1), bymonth=2, bymonthday=30, cache=False)
    try:
        expand(sparse, budget=100)
        raise AssertionError("the period budget did not stop an empty DAILY rule")
    except _BudgetExceeded:
        pass


def check_zoneinfo_claims():
    """zoneinfo with fold=0 gives RFC 5545's answers; the whole oracle relies on it."""
    berlin = ZONES["Europe/Berlin"]
    gap = dt.datetime(2026, 3, 29, 2, 30)      # does not exist: clocks go 02:00 CET -> 03:00 CEST
    assert instant(gap, berlin) == dt.datetime(2026, 3, 29, 1, 30), "gap time must use the offset before the gap"
    assert gap.replace(tzinfo=berlin).astimezone(UTC).astimezone(berlin).replace(tzinfo=None) == \
        dt.datetime(2026, 3, 29, 3, 30), "gap time must land one gap length later (03:30 CEST)"
    fold = dt.datetime(2026, 10, 25, 2, 30)    # occurs twice: 02:30 CEST (00:30Z) and 02:30 CET (01:30Z)
    assert instant(fold, berlin) == dt.datetime(2026, 10, 25, 0, 30), "ambiguous time must take the earlier instant"
    assert fold.replace(tzinfo=berlin, fold=1).astimezone(UTC).replace(tzinfo=None) == dt.datetime(2026, 10, 25, 1, 30)
    assert wall_status(gap, berlin) == "gap" and wall_status(fold, berlin) == "fold"


def find_transitions(zone, first_year=2000, last_year=2040):
    """Wall-clock ranges [start, end) that are gaps or folds, found by scanning UTC days."""
    ranges = []
    day = dt.datetime(first_year, 1, 1, tzinfo=UTC)
    end = dt.datetime(last_year, 1, 1, tzinfo=UTC)
    offset = day.astimezone(zone).utcoffset()
    while day < end:
        nxt = day + dt.timedelta(days=1)
        next_offset = nxt.astimezone(zone).utcoffset()
        if next_offset != offset:
            lo, hi = day, nxt  # the change happens in (lo, hi]
            while hi - lo > dt.timedelta(minutes=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(second=0, microsecond=0)
                if mid.astimezone(zone).utcoffset() == offset:
                    lo = mid
                else:
                    hi = mid
            moment = hi.replace(tzinfo=None)
            before, after = moment + offset, moment + next_offset
            if next_offset > offset:
                ranges.append(("gap", before, after))
            else:
                ranges.append(("fold", after, before))
            offset = next_offset
        day = nxt
    return ranges


TRANSITIONS = {name: find_transitions(zone) for name, zone in ZONES.items()}


# --------------------------------------------------------------------------------------------
# Calendar helpers (used only to bias the generator toward values DTSTART satisfies)

def days_in_month(year, month):
    return (dt.date(year + month // 12, month % 12 + 1, 1) - dt.date(year, month, 1)).days


def days_in_year(year):
    return 366 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 365


def week_number(day, wkst):
    """(positive, negative) RFC 5545 week number of `day` with weeks starting on `wkst`."""
    def week1(year):
        jan1 = dt.date(year, 1, 1)
        offset = (jan1.weekday() - wkst) % 7
        start = jan1 - dt.timedelta(days=offset)
        return start + dt.timedelta(days=7) if offset >= 4 else start
    year = day.year
    start = week1(year)
    if day < start:
        year -= 1
        start = week1(year)
    elif day >= week1(year + 1):
        year += 1
        start = week1(year)
    number = (day - start).days // 7 + 1
    total = (week1(year + 1) - start).days // 7
    return number, number - total - 1


# --------------------------------------------------------------------------------------------
# Rules

class Reject(Exception):
    """The attempt is dropped and the case regenerated; the reason goes into the statistics."""


class Rule:
    __slots__ = ("freq", "interval", "count", "until", "bysecond", "byminute", "byhour", "byday",
                 "bymonthday", "byyearday", "byweekno", "bymonth", "bysetpos", "wkst", "order")

    def __init__(self, freq):
        self.freq = freq
        self.interval = 1
        self.count = None
        self.until = None          # naive UTC instant, naive floating wall time, or date
        self.bysecond = []
        self.byminute = []
        self.byhour = []
        self.byday = []            # (ordinal or None, weekday 0=MO)
        self.bymonthday = []
        self.byyearday = []
        self.byweekno = []
        self.bymonth = []
        self.bysetpos = []
        self.wkst = None
        self.order = []

    def has_by(self):
        return any((self.bysecond, self.byminute, self.byhour, self.byday, self.bymonthday,
                    self.byyearday, self.byweekno, self.bymonth))

    def fills_weekday(self):
        """YEARLY + BYWEEKNO with no day part: the weekday comes from DTSTART (dateutil: every day)."""
        return bool(self.byweekno) and not (self.byday or self.bymonthday or self.byyearday)

    def text(self, kind):
        parts = []
        for name in self.order:
            if name == "INTERVAL":
                parts.append(f"INTERVAL={self.interval}")
            elif name == "COUNT":
                parts.append(f"COUNT={self.count}")
            elif name == "UNTIL":
                if kind == "allday":
                    parts.append("UNTIL=" + self.until.strftime("%Y%m%d"))
                elif kind == "floating":
                    parts.append("UNTIL=" + self.until.strftime("%Y%m%dT%H%M%S"))
                else:
                    parts.append("UNTIL=" + self.until.strftime("%Y%m%dT%H%M%SZ"))
            elif name == "BYDAY":
                parts.append("BYDAY=" + ",".join(("" if n is None else str(n)) + WEEKDAY_CODES[w]
                                                 for n, w in self.byday))
            elif name == "WKST":
                parts.append("WKST=" + WEEKDAY_CODES[self.wkst])
            else:
                values = getattr(self, name.lower())
                parts.append(name + "=" + ",".join(str(v) for v in values))
        return ";".join(["FREQ=" + self.freq] + parts)

    def dateutil(self, dtstart, count=None, until=None, bysetpos=True):
        """The dateutil rule for this RRULE, on naive wall-clock datetimes. UNTIL is passed by the caller
        as the naive wall-clock cut (see Case.until_cut), never as the UTC value."""
        kw = {"dtstart": dtstart, "interval": self.interval, "cache": False,
              "wkst": self.wkst if self.wkst is not None else 0}
        if count is not None:
            kw["count"] = count
        if until is not None:
            kw["until"] = until
        if self.bysecond:
            kw["bysecond"] = self.bysecond
        if self.byminute:
            kw["byminute"] = self.byminute
        if self.byhour:
            kw["byhour"] = self.byhour
        if self.byday:
            kw["byweekday"] = [DU_WEEKDAYS[w] if n is None else DU_WEEKDAYS[w](n) for n, w in self.byday]
        elif self.fills_weekday():
            kw["byweekday"] = [DU_WEEKDAYS[dtstart.weekday()]]
        if self.bymonthday:
            kw["bymonthday"] = self.bymonthday
        if self.byyearday:
            kw["byyearday"] = self.byyearday
        if self.byweekno:
            kw["byweekno"] = self.byweekno
        if self.bymonth:
            kw["bymonth"] = self.bymonth
        if self.bysetpos and bysetpos:
            kw["bysetpos"] = self.bysetpos
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return du.rrule(DU_FREQ[self.freq], **kw)


def pick_values(rng, own, pool, low=1, high=3, p_own=0.8):
    """Distinct values in random order: DTSTART's own value most of the time, plus others."""
    n = rng.randint(low, high)
    values = []
    if own is not None and rng.random() < p_own:
        values.append(own)
    while len(values) < n:
        v = rng.choice(pool) if isinstance(pool, list) else pool(rng)
        if v not in values:
            values.append(v)
    rng.shuffle(values)
    return values


def signed(rng, positive, negative):
    return positive if rng.random() < 0.55 else negative


def gen_rule(rng, freq, c, timed, stats):
    """A random rule for FREQ around candidate DTSTART `c` (its values are favoured)."""
    r = Rule(freq)
    if rng.random() < 0.45:
        r.interval = {
            "YEARLY": [2, 2, 3, 4, 5], "MONTHLY": [2, 3, 4, 6, 7, 12, 18], "WEEKLY": [2, 2, 3, 4, 5],
            "DAILY": [2, 3, 5, 7, 10, 14, 30, 45], "HOURLY": [2, 3, 5, 7, 12, 25, 36],
            "MINUTELY": [2, 5, 15, 20, 45, 90, 100, 1440, 1500], "SECONDLY": [2, 5, 15, 30, 45, 90, 600, 3600],
        }[freq]
        r.interval = rng.choice(r.interval)
    dim = days_in_month(c.year, c.month)
    ylen = days_in_year(c.year)
    yday = c.timetuple().tm_yday
    own_monthday = signed(rng, c.day, c.day - dim - 1)
    own_yearday = signed(rng, yday, yday - ylen - 1)
    wd = c.weekday()
    nth_month = signed(rng, (c.day - 1) // 7 + 1, -((dim - c.day) // 7 + 1))
    nth_year = signed(rng, (yday - 1) // 7 + 1, -((ylen - yday) // 7 + 1))
    monthday_pool = list(range(1, 32)) + list(range(-31, 0)) + [1, -1, 15, 28, 29, 30, 31, -2]
    yearday_pool = list(range(1, 367)) + list(range(-366, 0)) + [1, -1, 59, 60, 365, 366, -365, -366]

    # filters (DAILY and shorter) combine by intersection: keep DTSTART's own values more often, and
    # always for sub-daily rules, where dateutil scans every skipped day second by second or minute by minute
    p_own = {"YEARLY": 0.8, "MONTHLY": 0.8, "WEEKLY": 0.93, "DAILY": 0.93}.get(freq, 1.0)

    def months():
        r.bymonth = pick_values(rng, c.month, list(range(1, 13)), 1, 3, p_own)

    def monthdays():
        r.bymonthday = pick_values(rng, own_monthday, monthday_pool, 1, 3, p_own)

    def yeardays():
        r.byyearday = pick_values(rng, own_yearday, yearday_pool, 1, 3, p_own)

    def plain_days(low=1, high=3):
        r.byday = [(None, w) for w in pick_values(rng, wd, list(range(7)), low, high, p_own)]

    def ordinal_days(scope):
        if scope == "month":
            pool = [1, 2, 3, 4, -1, -2, -3, -4, 5, -5]
            own = nth_month
        else:
            pool = list(range(1, 54)) + list(range(-53, 0)) + [1, 2, -1, -2, 52, 53, -53]
            own = nth_year
        items = []
        if rng.random() < 0.8:
            items.append((own, wd))
        while len(items) < rng.randint(1, 3):
            item = (rng.choice(pool), rng.randrange(7)) if rng.random() < 0.7 else (None, rng.randrange(7))
            if item not in items and (item[0] is None or (item[0], item[1]) not in items):
                items.append(item)
        if all(n is None for n, _ in items):
            items[0] = (own, wd)
        rng.shuffle(items)
        r.byday = items

    def weeknos():
        wkst = r.wkst if r.wkst is not None else 0
        pos, neg = week_number(c.date(), wkst)
        pool = list(range(1, 54)) + list(range(-53, 0)) + [53, 53, -1, -1, -1, 1, 52, -52]
        r.byweekno = pick_values(rng, signed(rng, pos, neg), pool, 1, 3)
        if rng.random() < 0.5 and 53 not in r.byweekno and -1 not in r.byweekno:
            r.byweekno.append(rng.choice([53, -1]))

    if rng.random() < 0.3:
        r.wkst = rng.randrange(7)

    if freq == "YEARLY":
        shape = rng.choices(
            ["plain", "month", "monthday", "month+monthday", "yearday", "yearday+month", "weekno+day",
             "weekno+day+month", "weekno", "nday-year", "nday-month", "day+month", "day+monthday", "yearday+day"],
            [3, 6, 7, 6, 15, 3, 27, 8, 14, 15, 14, 6, 5, 3])[0]
        stats["shape:YEARLY:" + shape] += 1
        if shape == "month":
            months()
        elif shape == "monthday":
            monthdays()
        elif shape == "month+monthday":
            months()
            monthdays()
        elif shape == "yearday":
            yeardays()
        elif shape == "yearday+month":
            yeardays()
            months()
        elif shape in ("weekno+day", "weekno+day+month"):
            weeknos()
            plain_days(1, 3)
            if shape.endswith("month"):
                months()
        elif shape == "weekno":
            weeknos()
            if rng.random() < 0.3:
                months()
        elif shape == "nday-year":
            ordinal_days("year")
        elif shape == "nday-month":
            ordinal_days("month")
            months()
        elif shape == "day+month":
            plain_days(1, 3)
            months()
        elif shape == "day+monthday":
            plain_days(1, 2)
            monthdays()
            if rng.random() < 0.5:
                months()
        elif shape == "yearday+day":
            yeardays()
            plain_days(1, 3)
    elif freq == "MONTHLY":
        shape = rng.choices(["plain", "monthday", "day", "nday", "day+monthday", "nday+monthday"],
                            [8, 26, 15, 26, 20, 5])[0]
        stats["shape:MONTHLY:" + shape] += 1
        if shape == "monthday":
            monthdays()
        elif shape == "day":
            plain_days(1, 3)
        elif shape == "nday":
            ordinal_days("month")
        elif shape == "day+monthday":
            plain_days(1, 3)
            r.bymonthday = pick_values(rng, own_monthday, monthday_pool, 2, 7)
        elif shape == "nday+monthday":
            ordinal_days("month")
            monthdays()
        if rng.random() < 0.35:
            months()
    elif freq == "WEEKLY":
        if rng.random() < 0.8:
            plain_days(1, 4)
        if rng.random() < 0.2:
            months()
    elif freq == "DAILY":
        if rng.random() < 0.25:
            months()
        if rng.random() < 0.3:
            monthdays()
        if rng.random() < 0.35:
            plain_days(1, 4)
    else:  # sub-daily: day-level parts limit
        if rng.random() < 0.15:
            months()
        if rng.random() < 0.15:
            monthdays()
        if rng.random() < 0.3:
            yeardays()
        if rng.random() < 0.25:
            plain_days(1, 3)

    if timed:
        hours, minutes, seconds = list(range(24)), list(range(60)), list(range(60))
        if freq in ("YEARLY", "MONTHLY", "WEEKLY", "DAILY"):   # expand
            if rng.random() < 0.35:
                r.byhour = pick_values(rng, c.hour, hours, 1, 3)
            if rng.random() < 0.3:
                r.byminute = pick_values(rng, c.minute, minutes, 1, 3)
            if rng.random() < 0.18:
                r.bysecond = pick_values(rng, c.second, seconds, 1, 2)
        elif freq == "HOURLY":
            if rng.random() < 0.3:   # limit at the FREQ level: DTSTART's hour keeps it reachable
                r.byhour = pick_values(rng, None, hours, 0, 3) + [c.hour]
            if rng.random() < 0.35:
                r.byminute = pick_values(rng, c.minute, minutes, 1, 3)
            if rng.random() < 0.2:
                r.bysecond = pick_values(rng, c.second, seconds, 1, 2)
        elif freq == "MINUTELY":
            if rng.random() < 0.2:
                r.byhour = pick_values(rng, None, hours, 0, 4) + [c.hour]
            if rng.random() < 0.3:
                r.byminute = pick_values(rng, None, minutes, 1, 6) + [c.minute]
            if rng.random() < 0.35:
                r.bysecond = pick_values(rng, c.second, seconds, 1, 3)
        else:  # SECONDLY: dateutil steps second by second to the next allowed hour or minute, so
            # BYHOUR is left to the other frequencies and BYMINUTE only goes on rules without day filters
            day_filters = r.bymonth or r.bymonthday or r.byyearday or r.byday
            if r.interval <= 90 and not day_filters and rng.random() < 0.3:
                r.byminute = pick_values(rng, None, minutes, 2, 8) + [c.minute]
            if rng.random() < 0.45:
                r.bysecond = pick_values(rng, None, seconds, 2, 10) + [c.second]
        for name in ("byhour", "byminute", "bysecond"):
            values = getattr(r, name)
            setattr(r, name, list(dict.fromkeys(values)))
        while len(r.byhour or [1]) * len(r.byminute or [1]) * len(r.bysecond or [1]) > 12 and freq not in SUBDAILY:
            biggest = max(("byhour", "byminute", "bysecond"), key=lambda n: len(getattr(r, n)))
            getattr(r, biggest).pop()
    return r


# --------------------------------------------------------------------------------------------
# Cases

class Case:
    __slots__ = ("index", "uid", "kind", "tz", "rule", "dtstart", "end_spec", "rdates", "exdates",
                 "expected", "features", "rrule_text", "until_cut")

    def zone(self):
        return ZONES[self.tz] if self.kind == "zoned" else None

    def to_instant(self, wall):
        if self.kind == "zoned":
            return instant(wall, ZONES[self.tz])
        return wall

    def fmt_value(self, wall):
        if self.kind == "allday":
            return wall.strftime("%Y%m%d")
        if self.kind == "utc":
            return wall.strftime("%Y%m%dT%H%M%SZ")
        return wall.strftime("%Y%m%dT%H%M%S")

    def params(self):
        if self.kind == "allday":
            return ";VALUE=DATE"
        if self.kind == "zoned":
            return ";TZID=" + self.tz
        return ""

    def vevent_lines(self):
        lines = ["BEGIN:VEVENT", "UID:" + self.uid, "DTSTAMP:20250101T000000Z",
                 "DTSTART" + self.params() + ":" + self.fmt_value(self.dtstart)]
        spec = self.end_spec
        if spec[0] == "dtend":
            lines.append("DTEND" + self.params() + ":" + self.fmt_value(spec[1]))
        elif spec[0] == "duration":
            lines.append("DURATION:" + spec[3])
        lines.append("RRULE:" + self.rrule_text)
        for prop, values in (("RDATE", self.rdates), ("EXDATE", self.exdates)):
            if values:
                chunks = [values] if len(values) < 3 or self.index % 2 else [values[:1], values[1:]]
                for chunk in chunks:
                    lines.append(prop + self.params() + ":" + ",".join(self.fmt_value(v) for v in chunk))
        lines.append("SUMMARY:rrule differential case " + str(self.index))
        lines.append("END:VEVENT")
        return lines

    def summary(self):
        return "\n".join("    " + line for line in self.vevent_lines()[3:-2])


def fmt_start(case, wall):
    if case.kind == "allday":
        return wall.date().isoformat()
    if case.kind == "floating":
        return wall.strftime("%Y-%m-%dT%H:%M:%S")
    return case.to_instant(wall).strftime("%Y-%m-%dT%H:%M:%SZ")


def end_of(case, wall):
    """(text, naive datetime to compare: UTC for timed, local for floating and all-day)."""
    value = _end_value(case, wall)
    if case.kind == "allday":
        return value.date().isoformat(), value
    if case.kind == "floating":
        return value.strftime("%Y-%m-%dT%H:%M:%S"), value
    return value.strftime("%Y-%m-%dT%H:%M:%SZ"), value


def _end_value(case, wall):
    """The end of the instance starting at `wall`, formatted like its start.

    DTEND: the same exact duration for every instance (RFC 5545 §3.8.5.3), i.e. DTEND's instant
    minus DTSTART's instant. DURATION: days and weeks are nominal (added on the wall clock), hours,
    minutes and seconds exact (§3.3.6). Neither: a DATE series lasts one day, a DATE-TIME one none.
    """
    spec = case.end_spec
    if case.kind == "allday":
        days = {"none": 1, "dtend": None, "duration": None}[spec[0]]
        if spec[0] == "dtend":
            days = (spec[1] - case.dtstart).days
        elif spec[0] == "duration":
            days = spec[1]
        return wall + dt.timedelta(days=days)
    if spec[0] == "none":
        return case.to_instant(wall)
    if case.kind == "floating":
        if spec[0] == "dtend":
            return wall + (spec[1] - case.dtstart)
        return wall + dt.timedelta(days=spec[1], seconds=spec[2])
    if spec[0] == "dtend":
        return case.to_instant(wall) + (case.to_instant(spec[1]) - case.to_instant(case.dtstart))
    return case.to_instant(wall + dt.timedelta(days=spec[1])) + dt.timedelta(seconds=spec[2])


def duration_text(days, seconds, rng):
    if days and not seconds and days % 7 == 0 and rng.random() < 0.6:
        return f"P{days // 7}W"
    text = "P" + (f"{days}D" if days else "")
    if seconds or not days:
        h, rest = divmod(seconds, 3600)
        m, s = divmod(rest, 60)
        text += "T" + (f"{h}H" if h else "") + (f"{m}M" if m else "") + (f"{s}S" if s or not (h or m) else "")
    return text


def random_date(rng, lo=dt.date(2000, 1, 1), hi=dt.date(2030, 12, 31)):
    return dt.date.fromordinal(rng.randint(lo.toordinal(), hi.toordinal()))


def pick_candidate(rng, kind, tz, stats):
    day = random_date(rng)
    if kind == "allday":
        return dt.datetime(day.year, day.month, day.day)
    ranges = TRANSITIONS[tz] if kind == "zoned" else []
    if ranges and rng.random() < 0.35:
        # a time of day inside the zone's gap or fold, often on (or just before) a transition day
        what, lo, hi = rng.choice([t for t in ranges if t[1].year <= 2030])
        span = int((hi - lo).total_seconds() // 60)
        moment = lo + dt.timedelta(minutes=rng.randrange(span))
        if rng.random() < 0.75:
            moment -= dt.timedelta(days=rng.choice([0, 0, 1, 2, 6, 7, 7, 14, 21, 28, 30]))
        else:
            moment = dt.datetime.combine(day, moment.time())
        stats["candidate in transition hour"] += 1
        return moment.replace(second=0 if rng.random() < 0.85 else rng.randrange(60))
    hour = rng.randrange(24)
    minute = rng.choice([0, 0, 0, 15, 30, 45, rng.randrange(60)])
    second = 0 if rng.random() < 0.85 else rng.randrange(60)
    return dt.datetime(day.year, day.month, day.day, hour, minute, second)


def interval_of(r, c):
    """The start and length of the FREQ interval that contains `c` (weeks begin on WKST)."""
    start = {"YEARLY": lambda: c.replace(month=1, day=1, hour=0, minute=0, second=0),
              "MONTHLY": lambda: c.replace(day=1, hour=0, minute=0, second=0),
              "WEEKLY": lambda: (c - dt.timedelta(days=(c.weekday() - (r.wkst or 0)) % 7)).replace(
                  hour=0, minute=0, second=0),
              "DAILY": lambda: c.replace(hour=0, minute=0, second=0),
              "HOURLY": lambda: c.replace(minute=0, second=0),
              "MINUTELY": lambda: c.replace(second=0),
              "SECONDLY": lambda: c}[r.freq]()
    length = {"YEARLY": dt.timedelta(days=days_in_year(c.year)), "MONTHLY": dt.timedelta(days=days_in_month(c.year, c.month)),
              "WEEKLY": dt.timedelta(days=7), "DAILY": dt.timedelta(days=1), "HOURLY": dt.timedelta(hours=1),
              "MINUTELY": dt.timedelta(minutes=1), "SECONDLY": dt.timedelta(seconds=1)}[r.freq]
    return start, length


def explicit(r, c, bysetpos):
    """`r` with the values it takes from DTSTART `c` written out, so another dtstart can be used."""
    probe = Rule(r.freq)
    for name in Rule.__slots__:
        if name not in ("count", "until", "bysetpos", "order"):
            setattr(probe, name, list(getattr(r, name)) if isinstance(getattr(r, name), list) else getattr(r, name))
    probe.interval = 1
    if bysetpos:
        probe.bysetpos = list(r.bysetpos)
    timed_defaults = {"YEARLY": 3, "MONTHLY": 3, "WEEKLY": 3, "DAILY": 3, "HOURLY": 2, "MINUTELY": 1, "SECONDLY": 0}
    n = timed_defaults[r.freq]
    if n >= 3 and not probe.byhour:
        probe.byhour = [c.hour]
    if n >= 2 and not probe.byminute:
        probe.byminute = [c.minute]
    if n >= 1 and not probe.bysecond:
        probe.bysecond = [c.second]
    if not (probe.byweekno or probe.byyearday or probe.bymonthday or probe.byday):
        if r.freq == "YEARLY":
            probe.bymonth = probe.bymonth or [c.month]
            probe.bymonthday = [c.day]
        elif r.freq == "MONTHLY":
            probe.bymonthday = [c.day]
        elif r.freq == "WEEKLY":
            probe.byday = [(None, c.weekday())]
    if r.fills_weekday():
        probe.byday = [(None, c.weekday())]
    return probe


def transition_rule(rng, tz, freq, stats):
    """A rule shaped like the zone's own DST rule (e.g. YEARLY;BYMONTH=3;BYDAY=-1SU at 02:30 in Berlin)."""
    what, lo, hi = rng.choice([t for t in TRANSITIONS[tz] if t[1].year <= 2030])
    span = int((hi - lo).total_seconds() // 60)
    c = (lo + dt.timedelta(minutes=rng.randrange(span))).replace(second=0)
    dim = days_in_month(c.year, c.month)
    r = Rule(freq)
    nth = (c.day - 1) // 7 + 1 if rng.random() < 0.5 else -((dim - c.day) // 7 + 1)
    r.byday = [(nth, c.weekday())]
    r.bymonth = [c.month] if freq == "YEARLY" or rng.random() < 0.7 else []
    if freq == "YEARLY" and rng.random() < 0.3:
        r.interval = rng.choice([2, 3])
    stats["DST-rule-shaped rule (" + what + ")"] += 1
    return r, c


def pick_bysetpos(rng, r, c):
    """BYSETPOS values that fit the size of the candidate's interval set (so the rule fires)."""
    period, length = interval_of(r, c)
    try:
        rule = explicit(r, c, bysetpos=False).dateutil(period, until=period + length - dt.timedelta(seconds=1))
        size = len(expand(rule, limit=400, budget=2000))
    except _BudgetExceeded:
        size = 0
    size = max(size, 1)
    pool = list(range(1, size + 1)) + list(range(-size, 0))
    small = [v for v in pool if abs(v) <= 3]
    values = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        v = rng.choice(small if rng.random() < 0.6 else pool)
        if v not in values:
            values.append(v)
    return values


def generate(index, seed, stats):
    rng = random.Random(f"almanac-rrule-differential:{seed}:{index}")
    for attempt in range(60):
        try:
            return generate_once(rng, index, stats)
        except Reject as reason:
            stats["rejected: " + str(reason)] += 1
        except _BudgetExceeded:
            stats["rejected: dateutil period budget exceeded"] += 1
        except ValueError as error:  # dateutil refusing a rule the grammar wrote: counted, must stay 0
            stats["dateutil raised (generation): " + str(error)] += 1
    raise RuntimeError(f"case {index}: no acceptable case in 60 attempts (seed {seed})")


def generate_once(rng, index, stats):
    case = Case()
    case.index = index
    case.uid = f"rrule-diff-{index:06d}@almanac.test"
    case.kind = rng.choices(["zoned", "utc", "floating", "allday"], [58, 12, 12, 18])[0]
    case.tz = rng.choice(ZONE_NAMES) if case.kind == "zoned" else None
    timed = case.kind != "allday"
    if timed:
        freq = rng.choices(FREQS, [30, 20, 12, 14, 11, 8, 8])[0]
    else:
        freq = rng.choices(FREQS[:4], [34, 27, 17, 22])[0]
    c = pick_candidate(rng, case.kind, case.tz, stats)
    r = gen_rule(rng, freq, c, timed, stats)
    if case.kind == "zoned" and TRANSITIONS[case.tz] and freq in ("YEARLY", "MONTHLY") and rng.random() < 0.12:
        r, c = transition_rule(rng, case.tz, freq, stats)
    if rng.random() < 0.24 and r.has_by():
        r.bysetpos = pick_bysetpos(rng, r, c)

    # dateutil keeps only the days that match BOTH a plain and an ordinal BYDAY item
    # (BYDAY=TU,-1SU gives nothing unless a day is a Tuesday and the last Sunday);
    # RFC 5545 makes the list a union. RuleIteratorTests pins the RFC answer.
    if r.freq in ("MONTHLY", "YEARLY") and any(n is None for n, _ in r.byday) and any(n is not None for n, _ in r.byday):
        raise Reject("dateutil intersects plain and ordinal BYDAY items (RFC 5545: union)")

    # 1. DTSTART := the first instance the rule produces from the candidate on.
    try:
        head = expand(r.dateutil(c), limit=12, budget=SYNC_BUDGET)
    except _BudgetExceeded:
        raise Reject("rule too sparse (first instances)")
    if not head:
        raise Reject("rule empty before 2040")
    cost = periods_used(SYNC_BUDGET) / len(head)   # dateutil periods per instance
    start = head[0]
    if start.year > 2036:
        raise Reject("first instance after 2036")
    if expand(r.dateutil(start), limit=1) != [start]:
        raise Reject(f"DTSTART not the first instance of its own rule ({freq}{'+BYSETPOS' if r.bysetpos else ''})")
    if r.freq == "WEEKLY" and r.bysetpos:
        week, length = interval_of(r, start)
        rfc = [w for w in expand(explicit(r, start, bysetpos=True).dateutil(week, until=week + length - dt.timedelta(seconds=1)))
               if w >= start]
        ours = [w for w in expand(r.dateutil(start), limit=8) if w < week + length]
        if rfc != ours:
            raise Reject("dateutil's first WEEKLY interval starts at DTSTART (BYSETPOS)")
    case.dtstart = start
    zone = case.zone()
    affordable = max(1, int(EXPANSION_PERIODS / max(cost, 1.0)))   # instances one expansion may cost

    # 2. termination: COUNT, UNTIL or none (bounded by the window)
    subdaily = freq in SUBDAILY
    mode = rng.choices(["count", "until", "none"], [43, 31, 0 if subdaily else 26])[0]
    case.until_cut = None
    if mode == "none":
        days = (STOP - start).days
        periods = days / {"YEARLY": 365.25, "MONTHLY": 30.44, "WEEKLY": 7, "DAILY": 1}[freq] / r.interval
        if len(head) >= 12:
            span = (head[11] - start).total_seconds()
            estimate = 11 * (STOP - start).total_seconds() / max(span, 1)
        else:
            estimate = len(head)
        if periods > EXPANSION_PERIODS or estimate > MAX_UNBOUNDED:
            mode = rng.choice(["count", "until"])
    if mode == "count":
        if subdaily:
            r.count = rng.choice([1, 2, 3, rng.randint(4, 12), rng.randint(10, 48)])
        else:
            r.count = rng.choice([1, 2, rng.randint(3, 10), rng.randint(3, 10), rng.randint(10, 40),
                                  rng.randint(10, 40), rng.randint(40, 120), rng.randint(100, 300)])
        if r.count > affordable:
            r.count = rng.randint(1, affordable)
    elif mode == "until":
        listed = expand(r.dateutil(start), limit=min(affordable, rng.choice([2, 5, 12, 30, 60, 49 if subdaily else 120])))
        check_monotonic(case, listed, "until list")
        k = rng.randrange(len(listed))
        moment = case.to_instant(listed[k])
        nxt = case.to_instant(listed[k + 1]) if k + 1 < len(listed) else None
        how = rng.choices(["exact", "between", "minus"], [45, 35, 20])[0]
        if case.kind == "allday":
            until = listed[k]
            if how == "between" and nxt is not None and (nxt - moment).days > 1:
                until = moment + dt.timedelta(days=rng.randrange(1, (nxt - moment).days))
            elif how == "minus" and k > 0 and (moment - case.to_instant(listed[k - 1])).days > 1:
                until = moment - dt.timedelta(days=1)
            r.until = until.date()
            cut_instant = until
        else:
            until = moment
            if how == "between" and nxt is not None and (nxt - moment).total_seconds() > 1:
                until = moment + dt.timedelta(seconds=rng.randrange(1, int((nxt - moment).total_seconds())))
            elif how == "minus" and k > 0:
                until = moment - dt.timedelta(seconds=1)
            r.until = until
            cut_instant = until
        stats["until " + how] += 1
        # UNTIL bounds instants (RFC 5545 §3.3.10: UTC when DTSTART is UTC or zoned). dateutil compares its
        # UNTIL with the naive wall-clock instances, so it never gets the UTC value, nor that value converted
        # to the zone's wall clock: in a fold the converted UNTIL (say the second 02:30) would cut off 02:45
        # of the first pass, whose instant is earlier, and a gap time (02:30 -> 03:30) would pass a 03:15
        # UNTIL. Instead the oracle resolves every instance to its instant (fold=0), keeps those <= UNTIL and
        # gives dateutil the wall-clock value of the last one kept. check_monotonic() above made sure the
        # kept instances are a prefix of the wall-clock sequence.
        kept = [w for w in listed if case.to_instant(w) <= cut_instant]
        if not kept:
            raise Reject("UNTIL before DTSTART")
        case.until_cut = kept[-1]
    r.order = [name for name, present in (
        ("INTERVAL", r.interval != 1 or rng.random() < 0.05), ("COUNT", r.count is not None),
        ("UNTIL", r.until is not None), ("BYSECOND", r.bysecond), ("BYMINUTE", r.byminute),
        ("BYHOUR", r.byhour), ("BYDAY", r.byday), ("BYMONTHDAY", r.bymonthday),
        ("BYYEARDAY", r.byyearday), ("BYWEEKNO", r.byweekno), ("BYMONTH", r.bymonth),
        ("BYSETPOS", r.bysetpos), ("WKST", r.wkst is not None)) if present]
    rng.shuffle(r.order)
    case.rule = r
    case.rrule_text = r.text(case.kind)

    def final_rule():
        return r.dateutil(start, count=r.count, until=case.until_cut)

    instances = expand(final_rule())
    if mode == "none" and len([w for w in instances if w < EDGE_LO]) > MAX_UNBOUNDED:
        raise Reject("unbounded rule too dense")

    # 3. duration
    case.end_spec = pick_end(rng, case)

    # 4. EXDATE (mostly on instances) and RDATE
    exdates, rdates = [], []
    if rng.random() < 0.35 and instances:
        for _ in range(rng.choice([1, 1, 2, 3])):
            exdates.append(instances[rng.randrange(min(len(instances), 60))])
        if rng.random() < 0.15:
            exdates.append(start)
        if rng.random() < 0.3:
            exdates.append(off_instance(rng, case, instances))
            stats["exdate not on an instance"] += 1
    if rng.random() < 0.3:
        for _ in range(rng.choice([1, 1, 2, 3])):
            if instances and rng.random() < 0.2:
                rdates.append(instances[rng.randrange(min(len(instances), 60))])
                stats["rdate duplicating an instance"] += 1
            else:
                rdates.append(off_instance(rng, case, instances or [start], spread=True))
        if exdates == [] and rng.random() < 0.15:
            exdates.append(rdates[0])
    case.exdates = sorted(set(exdates))
    case.rdates = sorted(set(rdates))

    # 5. the oracle: dateutil's rruleset on wall-clock values, then instants
    rs = du.rruleset(cache=False)
    rs.rrule(instances)   # the rule's dateutil instances, expanded once above
    for value in case.rdates:
        rs.rdate(value)
    for value in case.exdates:
        rs.exdate(value)
    walls = list(rs)
    if walls != sorted((set(instances) | set(case.rdates)) - set(case.exdates)):
        raise RuntimeError(f"case {index}: rruleset disagrees with the set algebra it should implement")
    check_monotonic(case, sorted(set(instances) | set(case.rdates) | set(case.exdates)), "instances")

    features = set()
    expected = []
    if set(r.byweekno) & {52, 53, -52, -53}:
        # At a year's edges dateutil and RFC 5545 readers part ways: dateutil miscounts the
        # previous year's weeks (2010 gets 53) and reads a negative week of the next year's
        # week 1 (the last days of December) as no match. Almanac gives every day its own
        # week-year's week, counted from either end; RuleIteratorTests pins those answers
        # against Foundation's week numbering. Here such rules are regenerated.
        raise Reject("BYWEEKNO at the year's edge (52, 53, -52, -53): dateutil's reading differs")
    if r.byweekno:
        # dateutil miscounts the weeks of the previous year for the days before week 1
        # (2010 gets 53, so BYWEEKNO=53 yields 2011-01-01, which is in week 52 of 2010).
        # Its answer is only trusted where every instance is in a week the rule names;
        # RuleIteratorTests pins week 53 against ISO weeks from Foundation's calendar.
        wkst = r.wkst if r.wkst is not None else 0
        for wall in instances:
            day = wall if isinstance(wall, dt.date) and not isinstance(wall, dt.datetime) else wall.date()
            if not set(week_number(day, wkst)) & set(r.byweekno):
                raise Reject("dateutil's week numbers before week 1 (RFC 5545: the previous year's own weeks)")
    for wall in walls:
        start_cmp = case.to_instant(wall)
        start_text = fmt_start(case, wall)
        end_text, end_cmp = end_of(case, wall)
        if EDGE_LO <= start_cmp <= EDGE_HI or EDGE_LO <= end_cmp <= EDGE_HI or (start_cmp < EDGE_LO and end_cmp > EDGE_HI):
            raise Reject("instance at the window's end")
        if start_cmp >= WINDOW_END:
            continue
        if end_cmp < start_cmp:
            raise Reject("end before start")
        expected.append((start_text, end_text))
        if zone is not None:
            status = wall_status(wall, zone)
            if status:
                features.add(status + "-instance")
                if status == "gap" and case.end_spec[0] == "duration" and case.end_spec[1]:
                    raise Reject("nominal DURATION from a nonexistent start")
            end_wall = wall + dt.timedelta(days=case.end_spec[1]) if case.end_spec[0] == "duration" and case.end_spec[1] else None
            if end_wall is not None and wall_status(end_wall, zone):
                features.add("nominal-end-in-" + wall_status(end_wall, zone))
    if zone is not None:
        status = wall_status(start, zone)
        if status:
            features.add("dtstart-" + status)
        if subdaily and len(walls) > 1:
            offsets = {wall.replace(tzinfo=zone).utcoffset() for wall in (walls[0], walls[-1])}
            if len(offsets) > 1 or any(t[1] <= walls[-1] and t[2] >= walls[0] for t in TRANSITIONS[case.tz]):
                features.add("subdaily-dst")
    features.add(mode)
    case.expected = expected
    case.features = sorted(features)
    record_stats(case, stats)
    return case


def check_monotonic(case, walls, what):
    """Wall-clock order must be instant order, with no two values on one instant (see AVOIDED_DIFFERENCES)."""
    if case.kind != "zoned":
        return
    zone = ZONES[case.tz]
    previous = None
    for wall in walls:
        moment = instant(wall, zone)
        if previous is not None and moment <= previous:
            raise Reject("gap collision or reordering (" + what + ")")
        previous = moment


def off_instance(rng, case, instances, spread=False):
    """A value of the series' type that is usually not an instance (for EXDATE and RDATE)."""
    lo, hi = instances[0], instances[-1]
    if spread:
        lo = max(dt.datetime(2000, 1, 1), lo - dt.timedelta(days=60))
        hi = min(dt.datetime(2039, 6, 30), hi + dt.timedelta(days=400))
    if hi <= lo:
        hi = lo + dt.timedelta(days=30)
    if case.rule.freq in SUBDAILY and rng.random() < 0.7:
        hi = min(hi, lo + dt.timedelta(days=2))
    span = int((hi - lo).total_seconds())
    value = lo + dt.timedelta(seconds=rng.randrange(max(span, 1)))
    if case.kind == "allday":
        return value.replace(hour=0, minute=0, second=0)
    if rng.random() < 0.6:   # DTSTART's time of day
        value = value.replace(hour=case.dtstart.hour, minute=case.dtstart.minute, second=case.dtstart.second)
    elif rng.random() < 0.8:
        value = value.replace(second=0)
    return value


def pick_end(rng, case):
    how = rng.choices(["dtend", "duration", "none"], [55, 38, 7])[0]
    if case.kind == "allday":
        days = rng.choice([1, 1, 1, 2, 3, 7])
        if how == "dtend":
            return ("dtend", case.dtstart + dt.timedelta(days=days))
        if how == "duration":
            return ("duration", days, 0, duration_text(days, 0, rng))
        return ("none",)
    if how == "none":
        return ("none",)
    for _ in range(20):
        days = rng.choice([0, 0, 0, 0, 0, 1, 1, 2, 7])
        seconds = rng.choice([0, 60, 900, 1800, 3600, 3600, 5400, 7200, 3 * 3600, 12 * 3600, rng.randrange(1, 86400)])
        if days == 0 and seconds == 0:
            seconds = 1800
        if how == "duration":
            return ("duration", days, seconds, duration_text(days, seconds, rng))
        dtend = case.dtstart + dt.timedelta(days=days, seconds=seconds)
        if case.to_instant(dtend) > case.to_instant(case.dtstart):
            return ("dtend", dtend)
    raise Reject("no DTEND after DTSTART")


# --------------------------------------------------------------------------------------------
# Statistics

MAJOR_PARTS = {"INTERVAL>1", "COUNT", "UNTIL", "unbounded", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY",
               "BYDAY plain", "BYDAY ordinal", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST",
               "EXDATE", "RDATE", "DTEND", "DURATION"}
PART_KEYS = [
    "INTERVAL>1", "COUNT", "UNTIL", "unbounded", "BYSECOND", "BYMINUTE", "BYHOUR",
    "BYDAY", "BYDAY plain", "BYDAY ordinal", "BYDAY ordinal MONTHLY", "BYDAY ordinal YEARLY+BYMONTH",
    "BYDAY ordinal YEARLY without BYMONTH", "BYDAY with BYWEEKNO", "BYDAY in MONTHLY/YEARLY without BYMONTH",
    "BYMONTHDAY", "BYMONTHDAY negative", "BYYEARDAY", "BYYEARDAY negative",
    "BYWEEKNO", "BYWEEKNO negative", "BYWEEKNO 53", "BYWEEKNO -1", "BYWEEKNO without BYDAY",
    "BYMONTH", "BYSETPOS", "BYSETPOS positive", "BYSETPOS negative", "WKST",
    "EXDATE", "RDATE", "DTEND", "DURATION", "DURATION nominal (days/weeks)", "no DTEND/DURATION",
]


def record_stats(case, stats):
    r = case.rule
    s = stats
    s["freq:" + r.freq] += 1
    s["kind:" + case.kind] += 1
    if case.tz:
        s["zone:" + case.tz] += 1
    parts = set()
    if r.interval > 1:
        parts.add("INTERVAL>1")
    parts.add("COUNT" if r.count is not None else "UNTIL" if r.until is not None else "unbounded")
    for name, values in (("BYSECOND", r.bysecond), ("BYMINUTE", r.byminute), ("BYHOUR", r.byhour),
                         ("BYMONTHDAY", r.bymonthday), ("BYYEARDAY", r.byyearday), ("BYWEEKNO", r.byweekno),
                         ("BYMONTH", r.bymonth), ("BYSETPOS", r.bysetpos)):
        if values:
            parts.add(name)
            if any(v < 0 for v in values):
                parts.add(name + " negative")
            if any(v > 0 for v in values):
                parts.add(name + " positive")
    if 53 in r.byweekno:
        parts.add("BYWEEKNO 53")
    if -1 in r.byweekno:
        parts.add("BYWEEKNO -1")
    if r.byday:
        parts.add("BYDAY")
        if any(n is None for n, _ in r.byday):
            parts.add("BYDAY plain")
        if any(n is not None for n, _ in r.byday):
            parts.add("BYDAY ordinal")
            if r.freq == "MONTHLY":
                parts.add("BYDAY ordinal MONTHLY")
            elif r.bymonth:
                parts.add("BYDAY ordinal YEARLY+BYMONTH")
            else:
                parts.add("BYDAY ordinal YEARLY without BYMONTH")
        if r.byweekno:
            parts.add("BYDAY with BYWEEKNO")
        if r.freq in ("MONTHLY", "YEARLY") and not r.bymonth:
            parts.add("BYDAY in MONTHLY/YEARLY without BYMONTH")
    if r.fills_weekday():
        parts.add("BYWEEKNO without BYDAY")
    if r.wkst is not None:
        parts.add("WKST")
    if case.exdates:
        parts.add("EXDATE")
    if case.rdates:
        parts.add("RDATE")
    spec = case.end_spec
    parts.add({"dtend": "DTEND", "duration": "DURATION", "none": "no DTEND/DURATION"}[spec[0]])
    if spec[0] == "duration" and spec[1]:
        parts.add("DURATION nominal (days/weeks)")
    for p in parts:
        s["part:" + p] += 1
    for f in case.features:
        s["feature:" + f] += 1
    s["instances"] += len(case.expected)
    s["_counts"].append(len(case.expected))


# --------------------------------------------------------------------------------------------
# Running almanac and comparing

def write_ics(path, cases):
    out = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//rrule differential test//EN"]
    for case in cases:
        out.extend(case.vevent_lines())
    out.append("END:VCALENDAR")
    with open(path, "w", newline="") as fh:
        for line in out:
            fh.write(fold(line) + "\r\n")


def fold(line):
    """RFC 5545 §3.1: at most 75 octets a line (these lines are ASCII)."""
    if len(line) <= 75:
        return line
    chunks = [line[:75]]
    rest = line[75:]
    while rest:
        chunks.append(" " + rest[:74])
        rest = rest[74:]
    return "\r\n".join(chunks)


def run_almanac(binary, path):
    command = [binary, "ics", "expand", path, "--from", WINDOW_FROM_ARG, "--to", WINDOW_TO_ARG, "--format", "jsonl"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(f"{' '.join(command)} exited {result.returncode}\n{result.stderr[:4000]}\n")
        return None
    rows = []
    for number, line in enumerate(result.stdout.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                sys.stderr.write(f"{path}: output line {number} is not JSON ({error}): {line[:200]}\n")
                return None
    return rows


def compare(cases, rows):
    by_uid = collections.defaultdict(list)
    for row in rows:
        by_uid[row.get("uid")].append(row)
    known = {case.uid for case in cases}
    failures = []
    differences = 0
    for case in cases:
        got_rows = by_uid.get(case.uid, [])
        got = collections.Counter((row.get("start"), row.get("end")) for row in got_rows)
        want = collections.Counter(case.expected)
        expected_only = sorted((want - got).elements())
        got_only = sorted((got - want).elements(), key=str)
        fields = []
        for row in got_rows:
            if row.get("recurrenceId") != row.get("start"):
                fields.append(f"recurrenceId {row.get('recurrenceId')!r} != start {row.get('start')!r}")
            if row.get("allDay") is not (case.kind == "allday"):
                fields.append(f"allDay {row.get('allDay')!r} at {row.get('start')!r}")
            if case.kind == "zoned" and row.get("tzid") != case.tz:
                fields.append(f"tzid {row.get('tzid')!r} at {row.get('start')!r}")
        if expected_only or got_only or fields:
            differences += len(expected_only) + len(got_only) + len(fields)
            failures.append((case, expected_only, got_only, fields))
    strays = sorted(uid for uid in by_uid if uid not in known)
    return failures, differences, strays


def print_failure(case, expected_only, got_only, fields):
    print(f"\n{case.uid}  [{case.kind}{' ' + case.tz if case.tz else ''}; {', '.join(case.features)}]")
    print(case.summary())
    print(f"  expected {len(case.expected)} instances")
    for title, items in (("expected only", expected_only), ("got only", got_only)):
        if items:
            shown = ", ".join(f"{s} → {e}" for s, e in items[:12])
            more = f" … and {len(items) - 12} more" if len(items) > 12 else ""
            print(f"  {title} ({len(items)}): {shown}{more}")
    for issue in list(dict.fromkeys(fields))[:6]:
        print("  field:", issue)


# --------------------------------------------------------------------------------------------

class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout


def new_stats():
    stats = collections.defaultdict(int)
    stats["_counts"] = []
    stats["_times"] = []
    stats["_slowest"] = (0.0, None)
    return stats


def _build_chunk(job):
    first, last, seed = job
    stats = new_stats()
    cases = build_range(first, last, seed, stats)
    return cases, dict(stats)


def build_cases(count, seed, stats, jobs=1):
    """Cases 0..count-1; with jobs > 1 in worker processes (same cases, same order)."""
    if jobs <= 1:
        return build_range(0, count, seed, stats)
    import multiprocessing
    step = 250
    chunks = [(first, min(first + step, count), seed) for first in range(0, count, step)]
    cases = []
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for part, part_stats in pool.imap(_build_chunk, chunks):
            cases.extend(part)
            for key, value in part_stats.items():
                if key == "_slowest":
                    stats[key] = max(stats[key], value, key=lambda t: t[0])
                else:
                    stats[key] += value
    return cases


def build_range(first, last, seed, stats):
    cases = []
    slowest = stats["_slowest"]
    signal.signal(signal.SIGALRM, _on_alarm)
    for index in range(first, last):
        began = time.perf_counter()
        signal.alarm(TIMEOUT_SECONDS)
        try:
            cases.append(generate(index, seed, stats))
        except _Timeout:
            raise RuntimeError(f"case {index} (seed {seed}) took over {TIMEOUT_SECONDS} s: a generator bug")
        finally:
            signal.alarm(0)
        took = time.perf_counter() - began
        stats["_times"].append(took)
        if took > slowest[0]:
            slowest = (took, index)
    stats["_slowest"] = slowest
    return cases


def print_stats(cases, stats, elapsed):
    n = len(cases)
    counts = stats["_counts"]
    print(f"\n{n} rules generated and expanded by the oracle in {elapsed:.1f} s "
          f"({1000 * elapsed / max(n, 1):.2f} ms a rule; slowest {1000 * stats['_slowest'][0]:.0f} ms, case {stats['_slowest'][1]})")
    print("\nrules per FREQ:")
    for f in FREQS:
        print(f"  {f:<9} {stats['freq:' + f]:>7}")
    print("series kinds:", ", ".join(f"{k} {stats['kind:' + k]}" for k in ("zoned", "utc", "floating", "allday")))
    print("zones:", ", ".join(f"{z} {stats['zone:' + z]}" for z in ZONE_NAMES))
    major, minor = max(1, n // 12), max(1, n // 100)
    low = []
    print(f"\nrules containing each part (flagged when a part is in fewer than {major} rules, "
          f"a variant (indented) in fewer than {minor}):")
    for key in PART_KEYS:
        value = stats["part:" + key]
        threshold = major if key in MAJOR_PARTS else minor
        flag = "  LOW" if value < threshold else ""
        if flag:
            low.append(key)
        label = key if key in MAJOR_PARTS else "  " + key
        print(f"  {label:<42} {value:>7}{flag}")
    print("\nfeatures (termination; DST situations in zoned series):")
    for key in sorted(k for k in stats if k.startswith("feature:")):
        print(f"  {key[8:]:<42} {stats[key]:>7}")
    print("\ngenerator details:")
    for key in sorted(k for k in stats if k.startswith(("until ", "exdate ", "rdate ", "candidate ", "DST-rule"))):
        print(f"  {key:<42} {stats[key]:>7}")
    rejected = sorted((k for k in stats if k.startswith("rejected: ")), key=lambda k: -stats[k])
    print("\nattempts dropped and regenerated:", sum(stats[k] for k in rejected))
    for key in rejected:
        print(f"  {key[10:]:<60} {stats[key]:>7}")
    raised = sum(v for k, v in stats.items() if k.startswith("dateutil raised"))
    print(f"\ndateutil raised: {raised}")
    if counts:
        ordered = sorted(counts)
        buckets = [(0, 0), (1, 1), (2, 5), (6, 20), (21, 60), (61, 150), (151, 400), (401, 10 ** 9)]
        print(f"\ninstances: {sum(counts)} in all; per rule mean {statistics.mean(counts):.1f}, "
              f"median {statistics.median(counts):.0f}, p99 {ordered[int(0.99 * (len(ordered) - 1))]}, max {ordered[-1]}")
        print("  per-rule histogram: " + ", ".join(
            f"{lo}{'' if lo == hi else '-' + (str(hi) if hi < 10 ** 9 else '')}: {sum(1 for c in counts if lo <= c <= hi)}"
            for lo, hi in buckets))
    return low, raised


def show_case(case):
    print("\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//rrule differential test//EN"]
                      + [fold(l) for l in case.vevent_lines()] + ["END:VCALENDAR"]))
    print(f"features: {', '.join(case.features)}")
    print(f"expected ({len(case.expected)}):")
    for start, end in case.expected:
        print(f"  {start} → {end}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", type=int, default=20000, help="number of random rules (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1); case i depends only on seed and i")
    parser.add_argument("--almanac", default=os.path.join(REPO_ROOT, ".build", "debug", "almanac"),
                        help="the almanac binary (default: .build/debug/almanac in the repository)")
    parser.add_argument("--report", type=int, default=20, help="differing rules to print in full (default 20)")
    parser.add_argument("--self-test", action="store_true", help="run the generator and the oracle only and print statistics")
    parser.add_argument("--show", type=int, metavar="INDEX", help="print one case's VEVENT and its expected instances")
    parser.add_argument("--keep", metavar="DIR", help="write the .ics files and expected.jsonl into DIR and keep them")
    parser.add_argument("--per-file", type=int, default=2500, help="VEVENTs per .ics file (default 2500)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes for the generator and oracle (default 1; the results do not depend on it)")
    args = parser.parse_args(argv)

    check_zoneinfo_claims()
    check_dateutil_hook()
    print(NOTE)
    print("other dateutil/RFC 5545 differences the grammar or the oracle avoids:")
    for item in AVOIDED_DIFFERENCES:
        print("  - " + item)
    print(f"time zones from {TZPATH[0] if TZPATH else 'the tzdata package'}; python-dateutil "
          f"{getattr(sys.modules['dateutil'], '__version__', '?')}")

    stats = new_stats()

    if args.show is not None:
        show_case(generate(args.show, args.seed, stats))
        return 0

    if not args.self_test:
        binary = args.almanac
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            print(f"almanac binary not found or not executable: {binary} (build it, or pass --almanac PATH)",
                  file=sys.stderr)
            return 2

    began = time.perf_counter()
    cases = build_cases(args.rules, args.seed, stats, args.jobs)
    elapsed = time.perf_counter() - began

    if args.self_test:
        low, raised = print_stats(cases, stats, elapsed)
        problems = []
        if low:
            problems.append("parts in too few rules: " + ", ".join(low))
        if raised:
            problems.append(f"dateutil raised {raised} times")
        print()
        if problems:
            print("self-test FAILED: " + "; ".join(problems))
            return 1
        print(f"self-test ok: {len(cases)} rules, {stats['instances']} instances, oracle {elapsed:.1f} s")
        return 0

    print(f"oracle: {len(cases)} rules, {stats['instances']} instances in {elapsed:.1f} s")
    workdir = args.keep or tempfile.mkdtemp(prefix="almanac-rrule-diff-")
    os.makedirs(workdir, exist_ok=True)
    rows = []
    try:
        if args.keep:
            with open(os.path.join(workdir, "expected.jsonl"), "w") as fh:
                for case in cases:
                    for start, end in case.expected:
                        fh.write(json.dumps({"uid": case.uid, "start": start, "end": end}) + "\n")
        run_began = time.perf_counter()
        for first in range(0, len(cases), args.per_file):
            chunk = cases[first:first + args.per_file]
            path = os.path.join(workdir, f"cases-{first // args.per_file:03d}.ics")
            write_ics(path, chunk)
            got = run_almanac(args.almanac, path)
            if got is None:
                print(f"\nalmanac failed on {path}; nothing compared")
                print(f"0 passed, {len(cases)} failed")
                return 1
            rows.extend(got)
        print(f"almanac: {len(rows)} instances in {time.perf_counter() - run_began:.1f} s")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    failures, differences, strays = compare(cases, rows)
    for case, expected_only, got_only, fields in failures[:args.report]:
        print_failure(case, expected_only, got_only, fields)
    if len(failures) > args.report:
        print(f"\n… and {len(failures) - args.report} more differing rules")
    if strays:
        differences += len(strays)
        print(f"\nalmanac printed {len(strays)} UIDs that are not in the input, e.g. {strays[:3]}")
    print(f"\n{len(cases)} rules, {stats['instances']} instances compared, {differences} differences")
    print(f"{len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or strays else 0


if __name__ == "__main__":
    sys.exit(main())
