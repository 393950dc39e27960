#!/usr/bin/env python3
"""Differential test of RFC 7529 rules: `almanac ics expand` against libical built with
ICU (Debian's libical 3.0.16), on random rules in the calendars whose months ICU computes
by arithmetic: GREGORIAN, HEBREW, ISLAMIC-CIVIL, ISLAMIC-TBLA, ETHIOPIC, COPTIC, PERSIAN
and INDIAN; FREQ YEARLY, MONTHLY, WEEKLY and DAILY with BYMONTH (leap months and month 13
included), BYMONTHDAY (negative too) and SKIP, DATE starts from 2000 to 2030.

Where the two are not compared, and why (each seen in a broader run):
  - INTERVAL > 1: libical 3.0.16 counts the interval from the year (or month) after
    DTSTART's, so every other instance is shifted; RFC 5545 counts from DTSTART's own period.
  - The astronomical calendars (CHINESE, DANGI, ISLAMIC, ISLAMIC-UMALQURA): Foundation's ICU
    and Debian's ICU 72 place a few new moons a day apart, so month boundaries differ.
  - CHINESE leap months with SKIP=FORWARD: libical takes the month itself, RFC 7529 the
    month after it (as both do for the Hebrew Adar I).
  - libical gives nothing for a DAILY rule with a negative BYMONTHDAY, ignores SKIP in
    MONTHLY rules (BYMONTHDAY=31;SKIP=FORWARD gives only the months that have a 31st; in
    YEARLY rules it moves the day, as RFC 7529 says and Almanac does in both), and refuses
    BYMONTHDAY=31 in calendars whose months have at most 30 days even with SKIP: the generator leaves those
    out.
A rule libical refuses (one that can never fire, such as BYMONTHDAY=31 in a 30-day
month) must give DTSTART alone here. libical's iterator leaves out a DTSTART the rule does
not give, which RFC 5545 counts as the first instance: the oracle puts it first.

    .build/client-venv/bin/python Tests/Differential/rscale_libical.py --almanac .build/debug/almanac
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCALES = ["GREGORIAN", "HEBREW", "ISLAMIC-CIVIL", "ISLAMIC-TBLA", "ETHIOPIC", "COPTIC", "PERSIAN", "INDIAN"]
COUNT = 12


def cases(number, seed):
    rng = random.Random(seed)
    for index in range(number):
        scale = SCALES[index % len(SCALES)]
        start = f"{rng.randint(2000, 2030)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        frequency = rng.choice(["YEARLY", "YEARLY", "MONTHLY", "MONTHLY", "WEEKLY", "DAILY"])
        parts = [f"RSCALE={scale}", f"FREQ={frequency}"]
        skip = rng.choice(["OMIT", "BACKWARD", "FORWARD"]) if rng.random() < 0.6 else None
        if rng.random() < 0.5:
            months = {"HEBREW": ["1", "5", "5L", "6", "12"], "ETHIOPIC": ["1", "12", "13"],
                      "COPTIC": ["1", "12", "13"]}.get(scale, ["1", "2", "6", "12"])
            if frequency == "MONTHLY" and skip in ("BACKWARD", "FORWARD"):
                months = [month for month in months if month != "13"]  # its 5 or 6 days: see below
            parts.append("BYMONTH=" + rng.choice(months))
        if rng.random() < 0.5 and frequency != "WEEKLY":
            days = [1, 5, 15, 29, 30, 31, -1, -2]
            if frequency == "DAILY":
                days = [day for day in days if day > 0]  # libical: nothing for a negative day
            if frequency == "MONTHLY" and skip in ("BACKWARD", "FORWARD"):
                days = [day for day in days if day <= 28]  # libical: no SKIP in MONTHLY
            if scale in ("ETHIOPIC", "COPTIC", "HEBREW", "ISLAMIC-CIVIL", "ISLAMIC-TBLA"):
                days = [day for day in days if day != 31]  # libical refuses a day no month has
            parts.append(f"BYMONTHDAY={rng.choice(days)}")
        if skip:
            parts.append(f"SKIP={skip}")
        parts.append(f"COUNT={COUNT}")
        yield f"case{index}", start, ";".join(parts)


def run(almanac, number, seed):
    chosen = list(cases(number, seed))
    with tempfile.TemporaryDirectory() as scratch:
        oracle = os.path.join(scratch, "rscale_libical")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libical"], capture_output=True, text=True,
                               check=True).stdout.split()
        subprocess.run(["gcc", "-O1", "-Wall", "-o", oracle, os.path.join(HERE, "rscale_libical.c"), *flags],
                       check=True)
        answer = subprocess.run([oracle], input="".join(f"{uid} {start} {rule} {COUNT}\n"
                                                        for uid, start, rule in chosen),
                                capture_output=True, text=True, check=True).stdout
        theirs = {}
        for line in answer.splitlines():
            uid, *rest = line.split(" ", 1)
            theirs[uid] = rest[0] if rest else ""
        path = os.path.join(scratch, "rules.ics")
        with open(path, "w", newline="") as handle:
            handle.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Differential//EN\r\n")
            for uid, start, rule in chosen:
                handle.write(f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n"
                             f"DTSTART;VALUE=DATE:{start}\r\nRRULE:{rule}\r\nEND:VEVENT\r\n")
            handle.write("END:VCALENDAR\r\n")
        expanded = subprocess.run([almanac, "ics", "expand", path, "--from", "1990-01-01", "--to", "2400-01-01",
                                   "--format", "jsonl"], capture_output=True, text=True)
    if expanded.returncode != 0:
        sys.exit(f"FAIL: almanac ics expand failed: {expanded.stderr.strip()}")
    ours = {uid: [] for uid, _, _ in chosen}
    for line in expanded.stdout.splitlines():
        instance = json.loads(line)
        ours[instance["uid"]].append(instance["start"].replace("-", ""))
    differ = refused = 0
    for uid, start, rule in chosen:
        said = theirs.get(uid, "")
        if said.startswith("error"):
            refused += 1
            expected = [start]
        else:
            expected = ([start] + [date for date in said.split() if date != start])[:COUNT]
        if ours[uid] != expected:
            differ += 1
            print(f"DIFFER {uid}: DTSTART;VALUE=DATE:{start} RRULE:{rule}\n  almanac {ours[uid]}\n  libical "
                  f"{expected}" + (f" ({said})" if said.startswith("error") else ""))
    print(json.dumps({"rules": len(chosen), "refused_by_libical": refused, "differ": differ}))
    if differ:
        sys.exit(f"FAIL: {differ} of {len(chosen)} RFC 7529 rules expand otherwise than libical")
    print(f"rscale_libical: all {len(chosen)} rules agree")


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--almanac", required=True)
    options.add_argument("--rules", type=int, default=800)
    options.add_argument("--seed", type=int, default=1)
    arguments = options.parse_args()
    run(arguments.almanac, arguments.rules, arguments.seed)
