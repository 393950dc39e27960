#!/usr/bin/env python3
"""VTIMEZONE interop: do other readers take the VTIMEZONEs we write for the zone they describe?

Readers: ical.js as Thunderbird ships it (modules/calendar/Ical.sys.mjs in
/usr/lib/thunderbird/omni.ja, extracted at test time into a temporary directory and run
by node through vtimezone_icaljs.mjs), libical (vtimezone_libical.c, compiled at test
time with gcc), python-dateutil's tz.tzical, and python `icalendar` with its default
zoneinfo provider and with its pytz provider (each builds a zone from a VTIMEZONE its own
way). Each gets a VCALENDAR with one VTIMEZONE and an event whose DTSTART names it, is
made to resolve the TZID through that VTIMEZONE, and is asked for the UTC offset of
wall-clock times (what DTSTART;TZID= means) and of UTC instants (what a reader shows).
The truth is the system tzdata through Python's `zoneinfo`, which the server reads too.

Zones: Berlin and New York (plain rules), Lord Howe (a 30-minute shift), São Paulo (DST
abolished in 2019), Casablanca (Ramadan changes, no yearly rule), Dublin (negative DST in
tzdata: winter is the DST period), Apia (DST abolished in 2021) and Tehran (DST on fixed
dates until 2022), over 2020–2035. Samples: 2 January 2020, mid-January and mid-July of
every year, and around every change: a day before and after, a minute before the wall
clock reaches it, the first wall-clock time after it, and in UTC a day before and after.
Counted apart as "edge" (shown, not failed, unless --strict): wall-clock times inside a
gap or an overlap, which RFC 5545 §3.3.5 reads with the offset before the change
(zoneinfo's fold=0), and the two instants that bracket each change (a second before, the
change itself), where readers convert UTC to wall-clock time each their own way. A
sample before a form's first onset counts: the VTIMEZONE was asked for from 2020.

Forms (--forms, default A; the others are the evidence the server's form was chosen by):
  A  what the server writes: the VTIMEZONEs of `almanac export`, for a yearly event in
     each zone from 2021 (the server covers a year before the first start). Since issue
     34: it starts at the change in force then; the zone's ongoing yearly rule is one
     open-ended RRULE observance per change; earlier changes (and rules no RRULE says) are
     RDATE observances with DTSTART repeated as the first RDATE; DAYLIGHT puts clocks
     forward.
  L  what the server wrote before issue 34, rebuilt here from tzdata: per kind of change
     (tzdata's DST flag, offsets, abbreviation) from 2020 one observance, its first onset
     as DTSTART and the later ones as RDATEs. ical.js reads no offset before the second
     onset (it ignores DTSTART beside RDATEs), which put Thunderbird's events an hour off.
  B  L with each observance's DTSTART also listed as its first RDATE.
  C  RRULE observances as tzurl.org, Apple and Google publish them, inferred here from
     the tzdata changes: per run of yearly changes a DTSTART and
     RRULE:FREQ=YEARLY;BYMONTH=..;BYDAY=.. (or BYMONTHDAY), with UNTIL when the run ends;
     the other changes as RDATE observances (DTSTART also the first RDATE).
  D  B with each observance's RDATEs in one comma-separated property (folded).
  E  RDATE observances like B, but starting at the last change before 2020 and with
     DAYLIGHT for changes that put clocks forward, STANDARD for the others.
C and E start at the last change before 2020 (so every sample is after their first
onset) and make a change DAYLIGHT when it puts clocks forward: for Dublin GMT is
STANDARD and IST DAYLIGHT, where tzdata (and form L) flags Dublin's winter as DST.

Exits 1 on the first (form, reader, zone) with a sample read otherwise than tzdata,
after printing the whole table and every difference.

    .build/client-venv/bin/python Tests/Interop/vtimezone_parsers.py --almanac .build/debug/almanac
    .build/client-venv/bin/python Tests/Interop/vtimezone_parsers.py --almanac .build/debug/almanac --forms A,L,B,C,D,E
"""
import argparse
import calendar
import datetime as dt
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections import namedtuple
from zoneinfo import ZoneInfo

import icalendar
from dateutil import tz as dateutil_tz
from icalendar.timezone import TZP

from interop_support import check, main

HERE = os.path.dirname(os.path.abspath(__file__))
OMNI_JA = "/usr/lib/thunderbird/omni.ja"
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Sao_Paulo", "Africa/Casablanca",
         "Europe/Dublin", "Pacific/Apia", "Asia/Tehran"]
FIRST_YEAR, LAST_YEAR = 2020, 2035
# The server's VTIMEZONE starts at noon on 1 January 2020 (a year before the series); samples the day after.
FIRST_SAMPLE = dt.datetime(FIRST_YEAR, 1, 2)
AFTER_LAST_SAMPLE = dt.datetime(LAST_YEAR + 1, 1, 1)
EPOCH = dt.datetime(1970, 1, 1)
DAY = 86_400
FORMS = {"A": "the server's (almanac export)", "L": "the server's before issue 34 (rebuilt)",
         "B": "L, DTSTART also the first RDATE",
         "C": "RRULE observances (tzurl.org style)", "D": "B, RDATEs comma-joined in one property",
         "E": "RDATE observances from the change before 2020, DAYLIGHT = clocks forward"}


# MARK: The truth, from the system tzdata

# A zone's state between two changes, and a change from one to the next at `instant` (Unix seconds).
State = namedtuple("State", "offset daylight name")
Change = namedtuple("Change", "instant before after")
# A wall-clock time (`local`, naive) or an instant (`utc`, Unix seconds), its offset in
# tzdata, and `edge`: "gap", "overlap", "at a change" (instants) or "".
Sample = namedtuple("Sample", "local utc truth edge")


def unix(naive_time):
    return int((naive_time - EPOCH).total_seconds())


def naive(seconds):
    return EPOCH + dt.timedelta(seconds=seconds)


def state(zone, seconds):
    moment = dt.datetime.fromtimestamp(seconds, zone)
    return State(int(moment.utcoffset().total_seconds()), bool(moment.dst()), moment.tzname())


def changes(zone, start, end, step=6 * 3600):
    """Every change of offset, DST flag or abbreviation in [start, end) (Unix seconds):
    stepping `step` seconds at a time, then bisecting to the second."""
    found = []
    previous = state(zone, start)
    for moment in range(start + step, end + step, step):
        current = state(zone, moment)
        if current != previous:
            low, high = moment - step, moment  # the change is in (low, high]
            while high - low > 1:
                middle = (low + high) // 2
                if state(zone, middle) == previous:
                    low = middle
                else:
                    high = middle
            if start <= high < end:
                found.append(Change(high, previous, current))
            previous = current
    return found


def local_offset(zone, wall):
    """The offset RFC 5545 gives a wall-clock time (the one before the change in a gap or
    an overlap: zoneinfo's fold=0), and whether the time is in a gap or an overlap."""
    first = wall.replace(tzinfo=zone, fold=0).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    edge = ""
    if first != second:
        back = dt.datetime.fromtimestamp(unix(wall - first), zone).replace(tzinfo=None)
        edge = "overlap" if back == wall else "gap"
    return int(first.total_seconds()), edge


def samples(zone, zone_changes):
    walls = [FIRST_SAMPLE] + [dt.datetime(year, month, 15, 12) for year in range(FIRST_YEAR, LAST_YEAR + 1)
                              for month in (1, 7)]
    instants = {unix(wall): "" for wall in walls}
    for change in zone_changes:
        onset = naive(change.instant + change.before.offset)  # the wall clock at the change, before it
        shift = dt.timedelta(seconds=change.after.offset - change.before.offset)
        minute = dt.timedelta(minutes=1)
        walls += [onset - dt.timedelta(days=1), onset + dt.timedelta(days=1),
                  onset - abs(shift) - minute,  # a minute before a gap or an overlap
                  onset + max(shift, dt.timedelta(0)),  # the first wall-clock time after either
                  onset + shift / 2]  # inside the gap or the overlap
        instants.update({change.instant - DAY: "", change.instant + DAY: ""})
        instants.update({change.instant - 1: "at a change", change.instant: "at a change"})
    chosen = []
    for wall in sorted(set(walls)):
        if FIRST_SAMPLE <= wall < AFTER_LAST_SAMPLE:
            truth, edge = local_offset(zone, wall)
            chosen.append(Sample(wall, None, truth, edge))
    for instant, edge in sorted(instants.items()):
        if unix(FIRST_SAMPLE) <= instant < unix(AFTER_LAST_SAMPLE):
            chosen.append(Sample(None, instant, state(zone, instant).offset, edge))
    return chosen


# MARK: The forms

def crlf(text):
    return "".join(line + "\r\n" for line in text.splitlines() if line)


def fold(line):
    return "\r\n ".join([line[:75]] + [line[index:index + 74] for index in range(75, len(line), 74)])


def offset_text(seconds):
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    return f"{sign}{hours:02d}{rest // 60:02d}" + (f"{rest % 60:02d}" if rest % 60 else "")


def stamp(wall):
    return wall.strftime("%Y%m%dT%H%M%S")


def server_form(almanac, data):
    """Form A: the VTIMEZONEs `almanac export` writes for a yearly event in each zone."""
    store = ["--data", data, "--user", "interop"]
    for zone in ZONES:
        subprocess.run([almanac, "add", *store, "--calendar", "Zones", "--title", zone, "--tz", zone,
                        "--start", f"{FIRST_YEAR + 1}-01-01 12:00", "--duration", "1h",
                        "--rrule", f"FREQ=YEARLY;COUNT={LAST_YEAR - FIRST_YEAR}"],
                       check=True, capture_output=True)
    exported = crlf(subprocess.run([almanac, "export", *store, "--calendar", "Zones"],
                                   check=True, capture_output=True, text=True).stdout)
    forms = {}
    for vtimezone in re.findall(r"BEGIN:VTIMEZONE\r\n.*?END:VTIMEZONE\r\n", exported, re.S):
        forms[re.search(r"^TZID:(.*?)\r$", vtimezone, re.M).group(1)] = vtimezone
    return forms


def earlier_form(tzid, zone):
    """Form L: the server's VTIMEZONE before issue 34 for the span form A covers (from
    noon on 1 January 2020): per kind of change (tzdata's DST flag, offsets before and
    after, abbreviation), in order of first onset, one observance with its first onset as
    DTSTART and the later ones as RDATEs."""
    kinds = {}
    for change in changes(zone, unix(dt.datetime(FIRST_YEAR, 1, 1, 12)), unix(AFTER_LAST_SAMPLE)):
        kind = (change.after.daylight, change.before.offset, change.after.offset, change.after.name)
        kinds.setdefault(kind, []).append(change)
    parts = []
    for (daylight, before, after, name), kind_changes in kinds.items():
        onsets = [naive(change.instant + before) for change in kind_changes]
        parts.append((onsets[0], observance(daylight, before, after, name, onsets[0],
                                            [f"RDATE:{stamp(onset)}" for onset in onsets[1:]])))
    return vtimezone_text(tzid, zone, parts)


def with_dtstart_rdates(vtimezone, joined=False):
    """Form B: each observance's DTSTART also its first RDATE; with `joined` (form D), all
    of an observance's RDATEs in one comma-separated property."""
    result = vtimezone
    for observance in re.findall(r"BEGIN:(?:STANDARD|DAYLIGHT)\r\n.*?END:(?:STANDARD|DAYLIGHT)\r\n", vtimezone, re.S):
        lines = observance.split("\r\n")[:-1]
        start = next(line for line in lines if line.startswith("DTSTART"))
        dates = [start.split(":", 1)[1]] + [line.split(":", 1)[1] for line in lines if line.startswith("RDATE")]
        kept = [line for line in lines[:-1] if not line.startswith("RDATE")]
        added = ["RDATE:" + ",".join(dates)] if joined else ["RDATE:" + date for date in dates]
        result = result.replace(observance, "".join(fold(line) + "\r\n" for line in kept + added + lines[-1:]))
    return result


def tzdata_kinds(zone):
    """For forms C and E: the changes from the last one before 2020 to the end of 2035,
    grouped as the server groups them (one kind per DAYLIGHT or STANDARD, offsets before
    and after, and abbreviation), in order of first onset. DAYLIGHT is a change that puts
    clocks forward: tzdata's own DST flag is set for Dublin's winter and Casablanca's
    Ramadan (negative DST), which readers that derive a standard offset from DAYLIGHT
    observances get wrong around the change (see dateutil in form L)."""
    start, end = unix(dt.datetime(FIRST_YEAR, 1, 1)), unix(AFTER_LAST_SAMPLE)
    found = changes(zone, start - 50 * 366 * DAY, start, step=DAY)[-1:] + changes(zone, start, end)
    kinds = {}
    for change in found:
        forward = change.after.offset > change.before.offset
        kind = (forward, change.before.offset, change.after.offset, change.after.name)
        kinds.setdefault(kind, []).append(change)
    return kinds


def observance(daylight, before, after, name, start, more):
    component = "DAYLIGHT" if daylight else "STANDARD"
    return ([f"BEGIN:{component}", f"DTSTART:{stamp(start)}", f"TZOFFSETFROM:{offset_text(before)}",
             f"TZOFFSETTO:{offset_text(after)}"] + ([f"TZNAME:{name}"] if name else []) + more + [f"END:{component}"])


def vtimezone_text(tzid, zone, parts):
    """A VTIMEZONE of (first onset, observance lines) parts, or for a zone that has not
    changed in 50 years one STANDARD observance from 2020."""
    if not parts:
        start = unix(dt.datetime(FIRST_YEAR, 1, 1))
        current = state(zone, start)
        parts = [(None, observance(False, current.offset, current.offset, current.name,
                                   naive(start + current.offset), []))]
    lines = ["BEGIN:VTIMEZONE", f"TZID:{tzid}"]
    for _, part in sorted(parts, key=lambda part: part[0] or EPOCH):
        lines += part
    return crlf("\n".join(lines + ["END:VTIMEZONE"]))


def rdate_form(tzid, zone):
    """Form E: one observance per kind of change, its DTSTART the first onset and every
    onset (the first too) an RDATE."""
    parts = []
    for (forward, before, after, name), kind_changes in tzdata_kinds(zone).items():
        onsets = [naive(change.instant + before) for change in kind_changes]
        parts.append((onsets[0], observance(forward, before, after, name, onsets[0],
                                            [f"RDATE:{stamp(onset)}" for onset in onsets])))
    return vtimezone_text(tzid, zone, parts)


def yearly_rules(onset):
    """The yearly rules an onset fits, best first: its weekday counted from the end of the
    month, then from its start, then its day of the month."""
    weekday = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][onset.weekday()]
    rules = []
    if onset.day + 7 > calendar.monthrange(onset.year, onset.month)[1]:
        rules.append(f"BYDAY=-1{weekday}")
    rules += [f"BYDAY={(onset.day - 1) // 7 + 1}{weekday}", f"BYMONTHDAY={onset.day}"]
    return [(onset.month, onset.time(), rule) for rule in rules]


def rrule_form(tzid, zone):
    """Form C: each kind of change is cut into runs of consecutive years that fit one
    yearly rule (same month, time and weekday or day of the month). A run of two or more
    is an observance with an RRULE, with UNTIL unless it reaches 2035 (then the rule goes
    on, as tzurl.org's last rules do); a kind's other onsets are one RDATE observance."""
    parts = []
    for (forward, before, after, name), kind_changes in tzdata_kinds(zone).items():
        runs = []  # (changes, the yearly rules they all fit)
        for change in kind_changes:
            fits = yearly_rules(naive(change.instant + before))
            if runs:
                run, common = runs[-1]
                shared = [rule for rule in common if rule in fits]
                if shared and naive(change.instant + before).year == naive(run[-1].instant + before).year + 1:
                    runs[-1] = (run + [change], shared)
                    continue
            runs.append(([change], fits))
        singles = []
        for run, common in runs:
            first, last = naive(run[0].instant + before), naive(run[-1].instant + before)
            if len(run) < 2:
                singles.append(first)
                continue
            month, _, rule = common[0]
            recurrence = f"RRULE:FREQ=YEARLY;BYMONTH={month};{rule}"
            if last.year < LAST_YEAR:
                # UNTIL is UTC (RFC 5545 §3.6.5). dateutil compares it with the wall-clock
                # onsets as they are, so east of UTC the exact instant drops the last onset;
                # the later of the instant and the wall-clock time read as UTC keeps it for both.
                until = max(run[-1].instant, unix(last))
                recurrence += f";UNTIL={stamp(naive(until))}Z"
            parts.append((first, observance(forward, before, after, name, first, [recurrence])))
        if singles:
            dates = [f"RDATE:{stamp(onset)}" for onset in singles] if len(singles) > 1 else []
            parts.append((singles[0], observance(forward, before, after, name, singles[0], dates)))
    return vtimezone_text(tzid, zone, parts)


# MARK: The readers
# Each takes jobs, (tzid, VTIMEZONE text, samples) each, and answers per job a list with
# the offset it read for each sample (seconds), or an error message.

def probe_calendar(tzid, vtimezone):
    """A VCALENDAR with the VTIMEZONE and an event whose DTSTART names it."""
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Interop//EN\r\n" + vtimezone
            + "BEGIN:VEVENT\r\nUID:probe@interop\r\nDTSTAMP:20260101T000000Z\r\n"
            + f"DTSTART;TZID={tzid}:20250601T120000\r\nDURATION:PT1H\r\nSUMMARY:Probe\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n")


def ical_js_module():
    """The ical.js file in Thunderbird's omni.ja (a zip): modules/calendar/Ical.sys.mjs
    since Thunderbird 115; older ones named it Ical.jsm or ical.js."""
    with zipfile.ZipFile(OMNI_JA) as omni:
        names = [name for name in omni.namelist()
                 if name.rsplit("/", 1)[-1].lower() in ("ical.sys.mjs", "ical.jsm", "ical.js")]
    check(len(names) == 1, f"ical.js found in {OMNI_JA}: {names}")
    return names[0]


def read_icaljs(jobs, scratch):
    """ical.js from Thunderbird, run by node (one process for every job)."""
    module = os.path.join(scratch, "Ical.sys.mjs")  # .mjs: node loads it as the ES module it is
    with zipfile.ZipFile(OMNI_JA) as omni, open(module, "wb") as handle:
        handle.write(omni.read(ical_js_module()))
    requests = [{"calendar": probe_calendar(tzid, vtimezone),
                 "local": [list(s.local.timetuple()[:6]) for s in chosen if s.local],
                 "utc": [s.utc for s in chosen if s.local is None]} for tzid, vtimezone, chosen in jobs]
    answers = json.loads(subprocess.run(["node", os.path.join(HERE, "vtimezone_icaljs.mjs"), module],
                                        input=json.dumps(requests), capture_output=True, text=True,
                                        check=True).stdout)
    return [answer["error"] if "error" in answer else answer["local"] + answer["utc"] for answer in answers]


def read_libical(jobs, scratch):
    """libical through vtimezone_libical.c, compiled here; one process per job."""
    program = os.path.join(scratch, "vtimezone_libical")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libical"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["gcc", "-O1", "-Wall", "-o", program, os.path.join(HERE, "vtimezone_libical.c"), *flags],
                   check=True)
    answers = []
    for index, (tzid, vtimezone, chosen) in enumerate(jobs):
        path = os.path.join(scratch, f"probe-{index}.ics")
        with open(path, "w", newline="") as handle:
            handle.write(probe_calendar(tzid, vtimezone))
        queries = "".join("local %d %d %d %d %d %d\n" % s.local.timetuple()[:6] for s in chosen if s.local)
        queries += "".join(f"utc {s.utc}\n" for s in chosen if s.local is None)
        result = subprocess.run([program, path], input=queries, capture_output=True, text=True)
        answers.append([int(line) for line in result.stdout.split()] if result.returncode == 0
                       else result.stderr.strip())
    return answers


def read_in_python(make_zone, localize):
    """A Python reader: `make_zone(tzid, vtimezone)` builds a tzinfo; a wall-clock time is
    read with `localize(wall, zone)`, an instant through astimezone."""
    def read(jobs, scratch):
        answers = []
        for tzid, vtimezone, chosen in jobs:
            try:
                zone = make_zone(tzid, vtimezone)
                local = [localize(s.local, zone).utcoffset() for s in chosen if s.local]
                utc = [dt.datetime.fromtimestamp(s.utc, dt.timezone.utc).astimezone(zone).utcoffset()
                       for s in chosen if s.local is None]
                answers.append([int(offset.total_seconds()) for offset in local + utc])
            except Exception as error:  # a reader that cannot read a form is a finding, not a crash
                answers.append(f"{type(error).__name__}: {error}")
        return answers
    return read


def icalendar_zone(provider):
    """How python `icalendar` makes a zone of a VTIMEZONE: Timezone.to_tz, as its parser
    does for a TZID its provider does not know (tzp.cache_timezone_component). With the
    default zoneinfo provider that is dateutil's tzical; with pytz, a pytz zone from its
    own transition table (Timezone.get_transitions). A TZID the provider knows
    (Europe/Berlin) never reaches the VTIMEZONE: see the check in run()."""
    def make_zone(tzid, vtimezone):
        return icalendar.Timezone.from_ical(vtimezone).to_tz(TZP(provider), lookup_tzid=False)
    return make_zone


READERS = {
    "ical.js": read_icaljs,
    "libical": read_libical,
    "dateutil": read_in_python(lambda tzid, vtimezone: dateutil_tz.tzical(io.StringIO(vtimezone)).get(tzid),
                               lambda wall, zone: wall.replace(tzinfo=zone)),
    # Wall-clock times as icalendar reads a DTSTART;TZID= (TZP.localize; pytz: is_dst=False).
    "icalendar": read_in_python(icalendar_zone("zoneinfo"), lambda wall, zone: TZP("zoneinfo").localize(wall, zone)),
    "icalendar+pytz": read_in_python(icalendar_zone("pytz"), lambda wall, zone: TZP("pytz").localize(wall, zone)),
}


# MARK: Comparing

def first_onset(vtimezone):
    return min(dt.datetime.strptime(value, "%Y%m%dT%H%M%S")
               for value in re.findall(r"^DTSTART[^:\r\n]*:(\d{8}T\d{6})", vtimezone, re.M))


def describe(sample, read, onset):
    when = f"{sample.local:%Y-%m-%d %H:%M:%S} local" if sample.local else f"{naive(sample.utc):%Y-%m-%d %H:%M:%S}Z"
    notes = [sample.edge] if sample.edge else []
    if (sample.local or naive(sample.utc + sample.truth)) < onset:
        notes.append("before the first onset")
    got = offset_text(read) if isinstance(read, int) else "nothing"
    return f"{when}{' (' + ', '.join(notes) + ')' if notes else ''}: tzdata {offset_text(sample.truth)}, read {got}"


def run(almanac, data, forms, strict):
    served = server_form(almanac, data)
    check(sorted(served) == sorted(ZONES), f"almanac export wrote a VTIMEZONE for each of the {len(ZONES)} zones")

    # icalendar's own parser never uses a VTIMEZONE whose TZID its zone database knows.
    parsed = icalendar.Calendar.from_ical(probe_calendar("Europe/Berlin", served["Europe/Berlin"]))
    start = next(iter(parsed.walk("VEVENT")))["DTSTART"].dt
    check(isinstance(start.tzinfo, ZoneInfo),
          f"icalendar reads TZID=Europe/Berlin from its zone database ({type(start.tzinfo).__name__}), "
          "not the VTIMEZONE: its columns below read the VTIMEZONE through Timezone.to_tz")

    zones = {name: ZoneInfo(name) for name in ZONES}
    chosen = {name: samples(zones[name], changes(zones[name], unix(dt.datetime(FIRST_YEAR, 1, 1)),
                                                 unix(AFTER_LAST_SAMPLE))) for name in ZONES}
    make = {"A": lambda name: served[name], "L": lambda name: earlier_form(name, zones[name]),
            "B": lambda name: with_dtstart_rdates(earlier_form(name, zones[name])),
            "C": lambda name: rrule_form(name, zones[name]),
            "D": lambda name: with_dtstart_rdates(earlier_form(name, zones[name]), joined=True),
            "E": lambda name: rdate_form(name, zones[name])}
    texts = {(form, name): make[form](name) for form in forms for name in ZONES}
    jobs = list(texts)
    read = {}
    with tempfile.TemporaryDirectory() as scratch:
        for reader, read_all in READERS.items():
            answers = read_all([(name, texts[form, name], chosen[name]) for form, name in jobs], scratch)
            read.update({(form, name, reader): answer for (form, name), answer in zip(jobs, answers)})

    # The whole table first, then every difference, then the checks (the first failing one exits 1).
    failures = {}
    for form in forms:
        print(f"\nform {form}: {FORMS[form]}")
        print(f"{'zone':21}{'bytes':>6}  " + "".join(f"{reader:22}" for reader in READERS))
        for name in ZONES:
            cells = []
            onset = first_onset(texts[form, name])
            for reader in READERS:
                answer = read[form, name, reader]
                if isinstance(answer, str):
                    failures[form, name, reader] = (answer, [], [])
                    cells.append("error")
                    continue
                wrong = [(sample, got) for sample, got in zip(chosen[name], answer) if got != sample.truth]
                counted = [(sample, got) for sample, got in wrong if strict or not sample.edge]
                early = sum(1 for sample, _ in counted if (sample.local or naive(sample.utc + sample.truth)) < onset)
                edges = len(wrong) - len(counted)
                cell = f"{len(counted)} wrong" + (f" ({early} pre)" if early else "") if counted else "ok"
                cells.append(cell + (f" +{edges}e" if edges else ""))
                if wrong:
                    failures[form, name, reader] = (None, counted, wrong)
            print(f"{name:21}{len(texts[form, name]):>6}  " + "".join(f"{cell:22}" for cell in cells))
    print(f"\nOf {', '.join(f'{name} {len(chosen[name])}' for name in ZONES)} samples: n wrong = read with "
          "another offset than tzdata's, (k pre) of them before the form's first onset; +e = edge samples read "
          "otherwise" + (" (counted: --strict)" if strict else " (not counted)") + ". bytes: the VTIMEZONE's size.")
    for (form, name, reader), (error, _, wrong) in failures.items():
        print(f"\nform {form}, {reader}, {name}:")
        if error:
            print(f"  could not read it: {error}")
        for sample, got in wrong:
            print("  " + describe(sample, got, first_onset(texts[form, name])))
    print()
    for form, name in jobs:
        for reader in READERS:
            error, counted, _ = failures.get((form, name, reader), (None, [], []))
            first = f" (first: {describe(*counted[0], first_onset(texts[form, name]))})" if counted else ""
            check(not error and not counted,
                  f"form {form}, {reader}, {name}: " + (f"could not read it: {error}" if error else
                  f"{len(chosen[name]) - len(counted)} of {len(chosen[name])} samples as tzdata{first}"))


if __name__ == "__main__":
    # interop_support.main takes --almanac; the options of this script are read first.
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--forms", default="A", help="the forms to check, of A, L, B, C, D and E (default: A)")
    options.add_argument("--strict", action="store_true", help="count edge samples too")
    chosen_options, sys.argv[1:] = options.parse_known_args()
    chosen_forms = [form.strip().upper() for form in chosen_options.forms.split(",") if form.strip()]
    if not chosen_forms or not set(chosen_forms) <= set(FORMS):
        options.error(f"--forms takes letters of {', '.join(FORMS)}: {chosen_options.forms}")
    main(lambda almanac, data: run(almanac, data, list(dict.fromkeys(chosen_forms)), chosen_options.strict),
         "vtimezone_parsers")
