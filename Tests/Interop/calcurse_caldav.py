#!/usr/bin/env python3
"""Real-client interop: calcurse-caldav (the sync script shipped with calcurse 4.7)
syncing calcurse data directories with `almanac serve`.

calcurse-caldav has no discovery: its configuration names the host and the
calendar's path, so the script finds the path itself (PROPFIND on the home) and
writes it there, with the user's password. calcurse keeps floating local times,
so every calcurse command runs with TZ=Europe/Berlin.

  1. Work (two-way): the server holds a UTC event with an alarm and non-ASCII text
     (summary and a two-line description), an all-day event and a weekly Berlin
     series (UNTIL, see 2.) with an EXDATE across the 2027-03-28 DST change. The first sync
     (--init keep-remote) brings them into calcurse, at their Berlin wall times on
     both sides of the change; a second sync changes nothing. Events imported into
     calcurse (a timed, an all-day and a weekly series with an excluded date) are
     synced up; the server expands the floating series in the calendar's zone. A
     change and a deletion on the server reach calcurse; an edit and a deletion in
     calcurse reach the server.
  2. Series: a series with an overridden instance (RECURRENCE-ID) is one VCALENDAR
     with two VEVENTs, which calcurse-caldav cannot record ("Failed to import
     object", calcurse issue #20): calcurse keeps the series and the override as
     two unrelated items, the replaced instance included. And calcurse turns
     COUNT=5 with one EXDATE into an UNTIL one week too late (it counts only the
     instances left, RFC 5545 counts the excluded one too), on import and so on its
     upload. Checked as the client's known behaviour, in a calendar of its own and
     synced once: on a second sync calcurse-caldav would upload both pieces as new
     objects.
  3. A read-only share (`almanac calendar share Team --with reader`): the sharee
     reads the owner's events and the owner's changes; the sharee's own upload is
     refused with 403 and nothing is stored.
  4. calcurse writes every alarm as `TRIGGER:-P300S` (RFC 5545 wants `-PT300S`).
     Before issue 34 the server answered 403 valid-calendar-data, which stops
     calcurse-caldav; now it reads it as the documented repair (300 seconds) and
     stores the bytes as sent.

    .build/client-venv/bin/python Tests/Interop/calcurse_caldav.py --almanac .build/debug/almanac

Needs calcurse (Debian package `calcurse`, with /usr/bin/calcurse-caldav) and a
python3 that imports httplib2 (Debian's python3-httplib2, for /usr/bin/python3):
calcurse-caldav runs under that interpreter explicitly, because its
`#!/usr/bin/env python3` may find another python3 first on PATH.
"""
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET

from interop_support import check, main
from almanac_server import AlmanacServer
from desktop_scenario import BERLIN, Oracle, add_user, cli

DAV = "{DAV:}"
CALDAV = "{urn:ietf:params:xml:ns:caldav}"
ZONE = "Europe/Berlin"

def calendar(*components, zone=False):
    body = "".join(components)
    text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Interop//EN\n" + (BERLIN if zone else "") + body + "END:VCALENDAR\n"
    return text.replace("\n", "\r\n")


SINGLE = calendar("""BEGIN:VEVENT
UID:single@interop
DTSTAMP:20261101T000000Z
DTSTART:20270311T133000Z
DTEND:20270311T143000Z
SUMMARY:Café ☕ Zürich
DESCRIPTION:Zeile eins\\nZeile zwei – Grüße
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Café
TRIGGER:-PT15M
END:VALARM
END:VEVENT
""")

ALL_DAY = calendar("""BEGIN:VEVENT
UID:allday@interop
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20270329
DTEND;VALUE=DATE:20270330
SUMMARY:Ostermontag
END:VEVENT
""")

# Weekly from 11 March, over the change to summer time on 28 March, 18 March excluded.
WEEKLY = calendar("""BEGIN:VEVENT
UID:weekly@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270311T143000
DTEND;TZID=Europe/Berlin:20270311T153000
RRULE:FREQ=WEEKLY;UNTIL=20270408T123000Z
EXDATE;TZID=Europe/Berlin:20270318T143000
SUMMARY:Chorprobe
END:VEVENT
""", zone=True)

# The same with 1 April moved to 17:00: one resource, two VEVENTs.
OVERRIDDEN = calendar("""BEGIN:VEVENT
UID:overridden@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270311T143000
DTEND;TZID=Europe/Berlin:20270311T153000
RRULE:FREQ=WEEKLY;COUNT=5
EXDATE;TZID=Europe/Berlin:20270318T143000
SUMMARY:Orchester
END:VEVENT
BEGIN:VEVENT
UID:overridden@interop
DTSTAMP:20261101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20270401T143000
DTSTART;TZID=Europe/Berlin:20270401T170000
DTEND;TZID=Europe/Berlin:20270401T180000
SUMMARY:Orchester (verlegt)
END:VEVENT
""", zone=True)

# What the user adds in calcurse (imported with `calcurse -i`, floating local times).
LOCAL = calendar("""BEGIN:VEVENT
UID:local-timed
DTSTART:20270330T190000
DTEND:20270330T210000
SUMMARY:Stammtisch – Åse
DESCRIPTION:Bring Brezn 🥨
END:VEVENT
BEGIN:VEVENT
UID:local-allday
DTSTART;VALUE=DATE:20270402
DTEND;VALUE=DATE:20270403
SUMMARY:Brückentag
END:VEVENT
BEGIN:VEVENT
UID:local-weekly
DTSTART:20270322T070000
DTEND:20270322T080000
RRULE:FREQ=WEEKLY;UNTIL=20270405T070000
EXDATE:20270329T070000
SUMMARY:Laufen
END:VEVENT
""")

LOCAL_ALARM = calendar("""BEGIN:VEVENT
UID:local-alarm
DTSTART:20270405T090000
DTEND:20270405T100000
SUMMARY:Zahnarzt
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Zahnarzt
TRIGGER:-PT5M
END:VALARM
END:VEVENT
""")

SHARED = calendar("""BEGIN:VEVENT
UID:team@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270406T100000
DTEND;TZID=Europe/Berlin:20270406T110000
SUMMARY:Teamrunde
END:VEVENT
""", zone=True)


def system_python():
    """An interpreter that imports httplib2, as calcurse-caldav needs (Debian's python3-httplib2)."""
    for candidate in ["/usr/bin/python3", sys.executable]:
        if os.path.exists(candidate) and subprocess.run([candidate, "-c", "import httplib2"],
                                                         capture_output=True).returncode == 0:
            return candidate
    raise SystemExit("FAIL: no python3 with httplib2 for calcurse-caldav (apt-get install python3-httplib2)")


class Server(Oracle):
    """The oracle, with the home's calendars, summaries and start times as this test reads them."""

    def calendars(self):
        """displayname → path of each calendar in the user's home."""
        status, _, body = self.http.request("PROPFIND", f"/dav/calendars/{self.user}/",
                                            b"<D:propfind xmlns:D='DAV:'><D:prop><D:displayname/><D:resourcetype/></D:prop></D:propfind>",
                                            {"Depth": "1", "Content-Type": "application/xml"})
        assert status == 207, status
        found = {}
        for response in ET.fromstring(body).iter(DAV + "response"):
            if response.find(f".//{CALDAV}calendar") is not None:
                found[response.findtext(f".//{DAV}displayname")] = urllib.parse.unquote(response.findtext(DAV + "href"))
        return found

    def summaries(self, path):
        return sorted(s for text in self.stored(path).values() for s in re.findall(r"^SUMMARY:(.*)$", text, re.M))

    def starts(self, calendar_id, title):
        return [start for start, _ in self.occurrences(calendar_id, title, "2027-03-01T00:00:00Z", "2027-05-01T00:00:00Z")]


class Calcurse:
    """One calcurse data directory and its calcurse-caldav configuration, sync database and lock."""

    def __init__(self, work, name, server, path, user, password, python):
        self.root = os.path.join(work, name)
        self.data = os.path.join(self.root, "calcurse")
        os.makedirs(os.path.join(self.root, "home"))
        os.makedirs(self.data)
        self.python = python
        self.config = os.path.join(self.root, "config")
        with open(self.config, "w", encoding="utf-8") as handle:
            handle.write(f"[General]\nBinary = calcurse\nHostname = 127.0.0.1:{server.port}\nPath = {path}\nHTTPS = No\n"
                         f"DryRun = No\nSyncFilter = cal,todo\n\n[Auth]\nUsername = {user}\nPassword = {password}\n")
        self.env = {**os.environ, "HOME": os.path.join(self.root, "home"), "TZ": ZONE, "LC_ALL": "C.UTF-8",
                    "XDG_CONFIG_HOME": os.path.join(self.root, "home", ".config"),
                    "XDG_DATA_HOME": os.path.join(self.root, "home", ".local", "share")}

    def calcurse(self, *arguments, stdin=None):
        result = subprocess.run(["calcurse", "-D", self.data, *arguments], input=stdin, env=self.env,
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise SystemExit(f"FAIL: calcurse {' '.join(arguments)}: {result.stdout}{result.stderr}")
        return result.stdout

    def sync(self, init=None):
        """Runs calcurse-caldav once (with --debug, so a refusal's body is in the output); (exit status, output)."""
        command = [self.python, shutil.which("calcurse-caldav") or "/usr/bin/calcurse-caldav", "--debug",
                   "--config", self.config, "--datadir", self.data, "--lockfile", os.path.join(self.root, "lock"),
                   "--syncdb", os.path.join(self.root, "sync.db"), "--hookdir", os.path.join(self.root, "hooks")]
        if init:
            command += ["--init", init]
        # Bounded: calcurse-caldav loops for ever when a PUT answers without an ETag and a multiget finds nothing.
        result = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=120)
        return result.returncode, result.stdout + result.stderr

    def synced(self, what, init=None, imported="", exported=""):
        """A sync that must succeed, and whose summary lines start with `imported` and `exported`."""
        code, output = self.sync(init)
        summary = [line for line in output.splitlines() if re.match(r"\d+ items (imported|exported)", line)]
        check(code == 0 and len(summary) == 2 and summary[0].startswith(imported) and summary[1].startswith(exported),
              f"calcurse-caldav {what}: {' / '.join(summary) or tail(output)}")
        return output

    def occurrences(self):
        """Every occurrence calcurse shows from 1 March to 30 April 2027, as 'YYYY-MM-DD HH:MM-HH:MM title' or
        'YYYY-MM-DD all-day title', in local (Berlin) time."""
        timed = "--format-{}=%(start:%Y-%m-%d %H:%M)-%(end:%H:%M) %m\\n"
        whole = "--format-{}=all-day %m\\n"  # an all-day event has no start: its date is the day's heading
        output = self.calcurse("-Q", "--input-datefmt", "4", "--from", "2027-03-01", "--to", "2027-04-30",
                               timed.format("apt"), timed.format("recur-apt"),
                               whole.format("event"), whole.format("recur-event"))
        found, day = [], None
        for line in output.splitlines():
            heading = re.match(r"(\d\d)/(\d\d)/(\d\d):$", line)
            if heading:
                day = f"20{heading.group(3)}-{heading.group(1)}-{heading.group(2)}"
            elif line.startswith("all-day "):
                found.append(f"{day} {line}")
            elif re.match(r"\d{4}-", line):
                found.append(line)
        return sorted(found)

    def hashes(self, title):
        listing = self.calcurse("-G", *(f"--format-{kind}=%(hash) %m\\n" for kind in
                                        ["apt", "recur-apt", "event", "recur-event", "todo"]))
        return [line.split(" ", 1)[0] for line in listing.splitlines() if line.split(" ", 1)[-1] == title]

    def remove(self, title):
        for objhash in self.hashes(title):
            self.calcurse("-F", "--filter-hash=!" + objhash)

    def apts(self):
        with open(os.path.join(self.data, "apts"), encoding="utf-8") as handle:
            return handle.read()


def tail(output, lines=25):
    return "\n".join(line for line in output.splitlines()[-lines:])


def refusal(output):
    """The last response calcurse-caldav's --debug printed: its status line and body."""
    status = re.findall(r"^< Status: (.*)$", output, re.M)
    body = re.findall(r"^< (<D:error.*)$", output, re.M)
    return " ".join([status[-1] if status else "no response", body[-1] if body else tail(output, 3)])


def run(almanac, data):
    if not shutil.which("calcurse"):
        raise SystemExit("FAIL: calcurse is not installed (apt-get install calcurse)")
    python = system_python()
    store = os.path.join(data, "store")
    owner_password = add_user(almanac, store, "owner", "owner@example.com")
    reader_password = add_user(almanac, store, "reader", "reader@example.com")
    for title in ["Work", "Series", "Team"]:
        cli(almanac, store, "calendar", "create", title, "--tz", ZONE, "--user", "owner")
    cli(almanac, store, "calendar", "share", "Team", "--with", "reader", "--access", "read", "--user", "owner")
    ids = {title: re.search(r"Identifier:\s+(\S+)", cli(almanac, store, "calendar", "show", title, "--user", "owner")).group(1)
           for title in ["Work", "Series"]}

    server = AlmanacServer(almanac, store, "owner", password=owner_password)
    try:
        owner = Server(server, "owner", owner_password)
        reader = Server(server, "reader", reader_password)
        paths = owner.calendars()
        check(sorted(paths) == ["Series", "Team", "Work"], f"the owner's calendars: {sorted(paths)}")
        shared = reader.calendars()
        check(list(shared) == ["Team"], f"the share made with the CLI is in the reader's home at once: {shared}")

        # 1. Work, both ways.
        work = paths["Work"]
        for name, text in [("single", SINGLE), ("allday", ALL_DAY), ("weekly", WEEKLY)]:
            check(owner.put(f"{work}{name}.ics", text) == 201, f"{name} written on the server")
        local = Calcurse(data, "work", server, work, "owner", owner_password, python)
        local.synced("first sync (keep-remote)", init="keep-remote", imported="3 items imported")
        expected = ["2027-03-11 14:30-15:30 Café ☕ Zürich",       # 13:30Z in Berlin (winter time)
                    "2027-03-11 14:30-15:30 Chorprobe",
                    "2027-03-25 14:30-15:30 Chorprobe",             # 18 March excluded
                    "2027-03-29 all-day Ostermontag",
                    "2027-04-01 14:30-15:30 Chorprobe",             # summer time: still 14:30 local
                    "2027-04-08 14:30-15:30 Chorprobe"]
        check(local.occurrences() == expected, f"calcurse shows the server's events: {local.occurrences()}")
        check("!Café ☕ Zürich" in local.apts(), "the alarm arrived (calcurse's notify flag)")
        notes = [open(os.path.join(local.data, "notes", n), encoding="utf-8").read()
                 for n in os.listdir(os.path.join(local.data, "notes"))]
        check(any("Zeile zwei – Grüße" in note for note in notes), "the two-line non-ASCII description became the note")
        local.synced("second sync with nothing changed", imported="0 items imported", exported="0 items exported")
        check(sorted(owner.stored(work)) == [f"{work}allday.ics", f"{work}single.ics", f"{work}weekly.ics"],
              "and nothing was uploaded back")

        local.calcurse("-i", "-", "-q", stdin=LOCAL)
        local.synced("sync after adding three events in calcurse", imported="0 items imported", exported="3 items exported")
        stored = owner.stored(work)
        check(owner.summaries(work) == ["Brückentag", "Café ☕ Zürich", "Chorprobe", "Laufen", "Ostermontag",
                                        "Stammtisch – Åse"], f"calcurse's events are on the server: {owner.summaries(work)}")
        by_summary = {re.search(r"^SUMMARY:(.*)$", t, re.M).group(1): t for t in stored.values()}
        check("DTSTART;VALUE=DATE:20270402" in by_summary["Brückentag"], "calcurse's all-day event is all-day on the server")
        check("DESCRIPTION:Bring Brezn 🥨" in by_summary["Stammtisch – Åse"], "calcurse's non-ASCII note is the description")
        check(owner.starts(ids["Work"], "Laufen") == ["2027-03-22T06:00:00Z", "2027-04-05T05:00:00Z"],
              f"calcurse's floating weekly series, expanded by the server in the calendar's zone, "
              f"29 March excluded: {owner.starts(ids['Work'], 'Laufen')}")

        # Server-side changes: a new time and summary, a deletion.
        moved = SINGLE.replace("20270311T133000Z", "20270312T150000Z").replace("20270311T143000Z", "20270312T160000Z") \
                      .replace("SUMMARY:Café ☕ Zürich", "SUMMARY:Café ☕ Zürich (verschoben)")
        check(owner.put(f"{work}single.ics", moved) == 204, "the UTC event changed on the server")
        check(owner.http.request("DELETE", f"{work}allday.ics")[0] == 204, "the all-day event deleted on the server")
        local.synced("sync after the server's changes", imported="1 items imported")
        now = local.occurrences()
        check("2027-03-12 16:00-17:00 Café ☕ Zürich (verschoben)" in now and not any("Café ☕ Zürich" == o[23:] for o in now),
              f"calcurse has the new time and summary: {now}")
        check(not any("Ostermontag" in o for o in now), "the server's deletion reached calcurse")

        # calcurse-side changes: an edit (calcurse gives the item a new hash) and a deletion.
        apts = os.path.join(local.data, "apts")
        with open(apts, encoding="utf-8") as handle:
            text = handle.read()
        with open(apts, "w", encoding="utf-8") as handle:
            handle.write(text.replace("Stammtisch – Åse", "Stammtisch – Åse (abgesagt)"))
        local.remove("Brückentag")
        local.synced("sync after calcurse's edit and deletion", exported="1 items exported")
        check(owner.summaries(work) == ["Café ☕ Zürich (verschoben)", "Chorprobe", "Laufen", "Stammtisch – Åse (abgesagt)"],
              f"the edit replaced the old object and the deletion reached the server: {owner.summaries(work)}")

        # 2. A series with an override: what calcurse makes of it.
        series = Calcurse(data, "series", server, paths["Series"], "owner", owner_password, python)
        check(owner.put(f"{paths['Series']}orchester.ics", OVERRIDDEN) == 201, "a series with an override on the server")
        code, output = series.sync("keep-remote")
        check(code == 0 and "Failed to import object" in output and "0 items imported" in output,
              "calcurse-caldav cannot record a VCALENDAR with two VEVENTs (calcurse issue #20; client limitation)")
        check(owner.starts(ids["Series"], "Orchester") == ["2027-03-11T13:30:00Z", "2027-03-25T13:30:00Z",
                                                                "2027-04-01T15:00:00Z", "2027-04-08T12:30:00Z"],
              f"the server's own expansion: four instances, the moved one at 17:00 summer time")
        seen = series.occurrences()
        check([o for o in seen if o < "2027-04-09"] == [
            "2027-03-11 14:30-15:30 Orchester", "2027-03-25 14:30-15:30 Orchester", "2027-04-01 14:30-15:30 Orchester",
            "2027-04-01 17:00-18:00 Orchester (verlegt)", "2027-04-08 14:30-15:30 Orchester"],
              "calcurse keeps the EXDATE and the Berlin wall time across DST, but has no RECURRENCE-ID: the moved "
              f"instance stays at 14:30 beside its replacement (client limitation): {seen}")
        check(seen[-1] == "2027-04-15 14:30-15:30 Orchester",
              "calcurse reads COUNT=5 as five instances besides the EXDATE and adds 15 April (client bug; RFC 5545 "
              "§3.8.5.1 counts the excluded one, as the server does)")

        # 3. The read-only share.
        team = shared["Team"]
        check(owner.put(f"{paths['Team']}team.ics", SHARED) == 201, "the owner writes into the shared calendar")
        sharee = Calcurse(data, "reader", server, team, "reader", reader_password, python)
        sharee.synced("the sharee's first sync", init="keep-remote", imported="1 items imported")
        check(sharee.occurrences() == ["2027-04-06 10:00-11:00 Teamrunde"], f"the sharee reads it: {sharee.occurrences()}")
        check(owner.put(f"{paths['Team']}team.ics", SHARED.replace("Teamrunde", "Teamrunde – später")
                        .replace("T100000", "T113000").replace("T110000", "T123000")) == 204, "the owner changes it")
        sharee.synced("the sharee's next sync", imported="1 items imported")
        check(sharee.occurrences() == ["2027-04-06 11:30-12:30 Teamrunde – später"], f"the sharee sees the change: {sharee.occurrences()}")
        sharee.calcurse("-i", "-", "-q", stdin=calendar(
            "BEGIN:VEVENT\nUID:own\nDTSTART:20270407T100000\nDTEND:20270407T110000\nSUMMARY:Sharee's own\nEND:VEVENT\n"))
        code, output = sharee.sync()
        check(code != 0 and "403" in output, f"the sharee's upload is refused: {refusal(output)}")
        check(owner.summaries(paths["Team"]) == ["Teamrunde – später"], "and nothing was stored")

        # 4. An alarm written by calcurse: TRIGGER:-P300S.
        local.calcurse("-i", "-", "-q", stdin=LOCAL_ALARM)
        exported = local.calcurse("-xical", "--export-uid", "--filter-hash=" + local.hashes("Zahnarzt")[0])
        check("TRIGGER:-P300S" in exported, "calcurse exports its alarm as TRIGGER:-P300S")
        code, output = local.sync()
        check(code == 0, f"the server takes calcurse's alarm (TRIGGER:-P300S); it answered: {refusal(output)}")
        check("Zahnarzt" in owner.summaries(work), "the event with calcurse's alarm is on the server")
        stored = next(text for text in owner.stored(work).values() if "SUMMARY:Zahnarzt" in text)
        check("TRIGGER:-P300S" in stored, "the server keeps calcurse's bytes (the repair is for reading only)")
    finally:
        server.stop()


if __name__ == "__main__":
    main(run, "calcurse-caldav interop")
