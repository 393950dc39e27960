#!/usr/bin/env python3
"""Checks Tests/RecurrenceTests/Fixtures/rfc5545-examples.json two ways.

1. Transcription: each entry's `rfcText` (the RFC's own "==>" prose, e.g.
   "(1997 9:00 AM EDT) September 2,4,6,8...24,26,28,30") is parsed here, ranges
   and "..." elisions expanded, and the result must equal the hand-written
   `expected` list; every EDT/EST the RFC prints must be the abbreviation
   zoneinfo gives for that instant; "..." must match `expectedIsComplete`.
2. Sanity against python-dateutil: the entry is expanded with dateutil (aware
   America/New_York datetimes, so UNTIL compares as an instant), once as dateutil
   does it and once with RFC 5545's rule that DTSTART is always the first
   instance (and counts toward COUNT), and compared with `expected` inside
   `window`. Every disagreement is printed with its reason.

Exits 1 when a transcription does not match the RFC text or dateutil disagrees
in a way no erratum or known dateutil/RFC difference explains.

    .build/client-venv/bin/python Tests/Differential/check_rfc_examples.py [--fixture PATH] [-v]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr, rruleset

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FIXTURE = os.path.normpath(os.path.join(HERE, "..", "RecurrenceTests", "Fixtures", "rfc5545-examples.json"))
MONTHS = {name: number for number, name in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August",
     "September", "October", "November", "December"], 1)}


def parse_local(text):
    return dt.datetime.strptime(text, "%Y%m%dT%H%M%S")


def fmt_local(value):
    return value.strftime("%Y%m%dT%H%M%S")


def parse_property(text):
    """'TZID=America/New_York:19970902T090000' -> (zone name, naive local datetime)."""
    params, _, value = text.rpartition(":")
    tzid = dict(p.split("=", 1) for p in params.split(";") if p).get("TZID")
    return tzid, parse_local(value)


# ------------------------------------------------------------------------------------------
# 1. The RFC's prose, parsed

def expand_tokens(tokens, convert):
    """'2','4','8...24','26' -> 2,4,6,8,...,26; '2-30' -> 2..30; a trailing '...' means open-ended."""
    values, open_ended = [], False
    for token in tokens:
        token = token.strip()
        if not token:
            continue
        if "..." in token:
            left, _, right = token.partition("...")
            left, right = left.strip(), right.strip(" .")
            if left:
                values.append(convert(left))
            if right:
                step = values[-1] - values[-2]
                target = convert(right)
                value = values[-1] + step
                while value < target:
                    values.append(value)
                    value += step
                if value != target:
                    raise ValueError(f"elision does not reach {right!r} in steps of {step}")
                values.append(target)
            else:
                open_ended = True
            continue
        if re.fullmatch(r"\d+-\d+", token):
            first, last = map(int, token.split("-"))
            values.extend(range(first, last + 1))
        else:
            values.append(convert(token))
    return values, open_ended


def minutes_of(text):
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def parse_rfc_text(lines, dtstart):
    """[(local datetime, 'EDT'|'EST')], open_ended — from the RFC's '==>' lines."""
    text = " ".join(line.strip() for line in lines).replace("==>", " ")
    text = re.sub(r"(\.\.\.\s*)+", "... ", text)
    out, open_ended = [], False
    for header, body in re.findall(r"\(([^)]*)\)\s*([^(]*)", text):
        body = body.strip()
        subdaily = re.fullmatch(r"([A-Z][a-z]+) (\d+), (\d{4}) (E[DS]T)", header)
        if subdaily:
            day = dt.date(int(subdaily[3]), MONTHS[subdaily[1]], int(subdaily[2]))
            minutes, more = expand_tokens(re.split(r"[,;]", body), minutes_of)
            open_ended |= more
            for m in minutes:
                out.append((dt.datetime(day.year, day.month, day.day, m // 60, m % 60), subdaily[4]))
            continue
        head = re.fullmatch(r"(\d{4})(?: (\d+):(\d\d) (AM|PM))? (E[DS]T)", header)
        if not head:
            raise ValueError(f"unreadable header {header!r}")
        year, abbr = int(head[1]), head[5]
        if head[2]:
            hour = int(head[2]) % 12 + (12 if head[4] == "PM" else 0)
            clock = dt.time(hour, int(head[3]))
        else:
            clock = dtstart.time()
        for group in body.split(";"):
            group = group.strip()
            if not group:
                continue
            if group.strip(" .") == "":
                open_ended = True
                continue
            match = re.fullmatch(r"([A-Z][a-z]+)\s*(.*)", group)
            if not match:
                raise ValueError(f"unreadable group {group!r}")
            days, more = expand_tokens(match[2].split(","), int)
            open_ended |= more
            for d in days:
                out.append((dt.datetime.combine(dt.date(year, MONTHS[match[1]], d), clock), abbr))
    if text.rstrip().endswith("..."):
        open_ended = True
    return out, open_ended


# ------------------------------------------------------------------------------------------
# 2. dateutil

def dateutil_instances(entry, rfc_dtstart):
    """Local start strings inside the window. rfc_dtstart: DTSTART is always the first instance."""
    tzid, wall = parse_property(entry["dtstart"])
    zone = ZoneInfo(tzid)
    start = wall.replace(tzinfo=zone)
    unsynchronized = []
    rs = rruleset()
    for text in entry["rrule"]:
        rule = rrulestr(text, dtstart=start)
        first = next(iter(rule), None)
        if first != start:
            unsynchronized.append(text)
            if rfc_dtstart:
                count = re.search(r"COUNT=(\d+)", text)
                if count:   # DTSTART counts toward COUNT
                    rule = rrulestr(text.replace(count[0], f"COUNT={int(count[1]) - 1}"), dtstart=start) \
                        if int(count[1]) > 1 else None
                rs.rdate(start)
        if rule is not None:
            rs.rrule(rule)
    for text in entry["rdate"]:
        tz, value = parse_property(text)
        rs.rdate(value.replace(tzinfo=ZoneInfo(tz)))
    for text in entry["exdate"]:
        tz, value = parse_property(text)
        rs.exdate(value.replace(tzinfo=ZoneInfo(tz)))
    low = parse_local(entry["window"]["from"]).replace(tzinfo=zone)
    high = parse_local(entry["window"]["to"]).replace(tzinfo=zone)
    out = []
    for value in rs:
        if value >= high:
            break
        if value >= low:
            out.append(fmt_local(value.astimezone(zone).replace(tzinfo=None)))
    return out, unsynchronized


def diff(want, got):
    return sorted(set(want) - set(got)), sorted(set(got) - set(want))


def main(argv=None):
    parser = argparse.ArgumentParser(description="Check the RFC 5545 example fixture.")
    parser.add_argument("--fixture", default=DEFAULT_FIXTURE)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every entry")
    args = parser.parse_args(argv)
    with open(args.fixture) as fh:
        doc = json.load(fh)
    entries = doc["examples"]
    passed, failed, notes = 0, 0, []

    for entry in entries:
        name = entry["name"]
        problems = []
        tzid, dtstart = parse_property(entry["dtstart"])
        zone = ZoneInfo(tzid)
        expected = entry["expected"]
        low, high = entry["window"]["from"], entry["window"]["to"]

        # the fixture's own shape
        if expected != sorted(set(expected)):
            problems.append("expected is not sorted and unique")
        if any(not (low <= e < high) for e in expected):
            problems.append("an expected instance lies outside the window")

        # 1. transcription against the RFC's prose
        from_text, open_ended = parse_rfc_text(entry["rfcText"], dtstart)
        listed = [fmt_local(value) for value, _ in from_text]
        reference = entry.get("rfcTextExpected", expected) if not entry.get("expectedFromRfcText", True) else expected
        if listed != reference:
            only_text, only_fixture = diff(listed, reference)
            problems.append(f"transcription differs from the RFC text: text only {only_text[:6]}, fixture only {only_fixture[:6]}")
        if open_ended == entry["expectedIsComplete"]:
            problems.append(f"expectedIsComplete={entry['expectedIsComplete']} but the RFC text "
                            f"{'ends' if open_ended else 'does not end'} with '...'")
        for value, abbr in from_text:
            actual = value.replace(tzinfo=zone).tzname()
            if actual != abbr:
                problems.append(f"the RFC labels {fmt_local(value)} {abbr}; zoneinfo says {actual}")

        # 2. dateutil, plain and with RFC 5545's DTSTART rule
        plain, unsynchronized = dateutil_instances(entry, rfc_dtstart=False)
        rfc, _ = dateutil_instances(entry, rfc_dtstart=True)
        if unsynchronized:
            missing, extra = diff(rfc, plain)
            effect = ("no effect on the result: an EXDATE removes DTSTART" if not (missing or extra)
                      else f"dateutil alone differs: missing {missing}, extra {extra}")
            notes.append(f"{name}: DTSTART is not an instance of its rule; dateutil drops it, RFC 5545 keeps it as the "
                         f"first instance ({effect})")
        if rfc != expected:
            missing, extra = diff(expected, rfc)
            problems.append(f"dateutil (with RFC's DTSTART rule) differs: fixture only {missing[:8]}, dateutil only {extra[:8]}")
        if "rfcTextExpected" in entry:
            missing, extra = diff(entry["rfcTextExpected"], rfc)
            notes.append(f"{name}: the RFC prints {len(entry['rfcTextExpected'])} instances but the printed rule gives "
                         f"{len(rfc)} (RFC only: {missing}); explained by erratum {', '.join(entry.get('errata', []))}")

        if problems:
            failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print("     " + problem)
        else:
            passed += 1
            if args.verbose:
                print(f"ok   {name} ({len(expected)} instances{'' if entry['expectedIsComplete'] else ', first ones'})")

    if notes:
        print("\ndateutil vs RFC 5545 text:")
        for note in notes:
            print("  - " + note)
    print(f"\n{len(entries)} entries: transcriptions checked against the RFC text, expansions against python-dateutil")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
