#!/usr/bin/env python3
"""A slow stand-in for `almanac ics expand`, to check the differential harness itself.

    reference_expand.py ics expand FILE --from DATE --to DATE --format jsonl

It reads only the .ics text (python-dateutil's rrulestr on the written RRULE,
zoneinfo for TZIDs) and prints one JSON object per instance like the real
command. Running the differential test against it,

    rrule_differential.py --almanac Tests/Differential/reference_expand.py

must report 0 differences: that shows the files say what the oracle assumed
(RRULE, UNTIL, RDATE, EXDATE, DTEND and DURATION serialization) and that the
comparison works. It handles what the generator writes, not all of RFC 5545.
"""

import datetime as dt
import json
import re
import sys
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

UTC = dt.timezone.utc
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def unfold(text):
    return re.sub(r"\r\n[ \t]", "", text).split("\r\n")


def parse_value(params, value):
    """(kind, tzid, naive value): kind is allday, utc, floating or zoned."""
    if "VALUE=DATE" in params or len(value) == 8:
        return "allday", None, dt.datetime.strptime(value, "%Y%m%d")
    tzid = re.search(r"TZID=([^;:]+)", params)
    if value.endswith("Z"):
        return "utc", None, dt.datetime.strptime(value[:-1], "%Y%m%dT%H%M%S")
    return ("zoned", tzid[1], dt.datetime.strptime(value, "%Y%m%dT%H%M%S")) if tzid else \
        ("floating", None, dt.datetime.strptime(value, "%Y%m%dT%H%M%S"))


def parse_duration(text):
    match = re.fullmatch(r"P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", text)
    weeks, days, hours, minutes, seconds = (int(g or 0) for g in match.groups())
    return weeks * 7 + days, hours * 3600 + minutes * 60 + seconds


def expand_event(props, window_end):
    params, value = props["DTSTART"][0]
    kind, tzid, start = parse_value(params, value)
    zone = ZoneInfo(tzid) if tzid else None

    def moment(wall):   # UTC instant for zoned (fold=0), the value itself otherwise
        return wall.replace(tzinfo=zone).astimezone(UTC).replace(tzinfo=None) if zone else wall

    rule_text = props["RRULE"][0][1]
    until = re.search(r"UNTIL=([0-9TZ]+)", rule_text)
    rule_text = re.sub(r";?UNTIL=[0-9TZ]+", "", rule_text)
    if "BYWEEKNO" in rule_text and not re.search(r"BY(DAY|MONTHDAY|YEARDAY)=", rule_text):
        rule_text += ";BYDAY=" + WEEKDAYS[start.weekday()]   # the weekday comes from DTSTART
    until_value = parse_value("", until[1])[2] if until else None
    rule = rrulestr(rule_text, dtstart=start)

    walls = []
    stop = dt.datetime(2040, 2, 1)
    for wall in rule:
        if wall > stop:
            break
        if until_value is not None and moment(wall) > until_value:
            break
        walls.append(wall)
    if not walls or walls[0] != start:
        walls.insert(0, start)   # DTSTART is always the first instance
    for name, add in (("RDATE", True), ("EXDATE", False)):
        for p, v in props.get(name, []):
            values = {parse_value(p, item)[2] for item in v.split(",")}
            walls = sorted(set(walls) | values) if add else [w for w in walls if moment(w) not in {moment(x) for x in values}]

    end_kind = "none"
    if "DTEND" in props:
        end_kind, end_value = "dtend", parse_value(*props["DTEND"][0])[2]
    elif "DURATION" in props:
        end_kind, (days, seconds) = "duration", parse_duration(props["DURATION"][0][1])

    def fmt(value):
        if kind == "allday":
            return value.date().isoformat()
        if kind == "floating":
            return value.strftime("%Y-%m-%dT%H:%M:%S")
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")

    out = []
    for wall in walls:
        begin = moment(wall)
        if end_kind == "dtend":
            end = begin + (moment(end_value) - moment(start))
        elif end_kind == "duration":
            end = moment(wall + dt.timedelta(days=days)) + dt.timedelta(seconds=seconds)
        else:
            end = begin + dt.timedelta(days=1 if kind == "allday" else 0)
        if begin >= window_end:
            continue
        out.append({"uid": props["UID"][0][1], "recurrenceId": fmt(begin), "start": fmt(begin), "end": fmt(end),
                    "allDay": kind == "allday", "tzid": tzid})
    return out


def main(argv):
    if argv[:2] != ["ics", "expand"]:
        print("usage: reference_expand.py ics expand FILE --from DATE --to DATE --format jsonl", file=sys.stderr)
        return 2
    path = argv[2]
    window_end = dt.datetime.strptime(argv[argv.index("--to") + 1][:10], "%Y-%m-%d")
    with open(path, newline="") as fh:
        lines = unfold(fh.read())
    rows, props = [], None
    for line in lines:
        if line == "BEGIN:VEVENT":
            props = {}
        elif line == "END:VEVENT":
            rows.extend(expand_event(props, window_end))
            props = None
        elif props is not None and line:
            head, _, value = line.partition(":")
            name, _, params = head.partition(";")
            props.setdefault(name, []).append((params, value))
    rows.sort(key=lambda row: (row["start"], row["uid"]))
    sys.stdout.write("".join(json.dumps(row) + "\n" for row in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
