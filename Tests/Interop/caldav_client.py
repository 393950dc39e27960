#!/usr/bin/env python3
"""Real-client interop: the python `caldav` library against `almanac serve`.

Starts the almanac binary on a free loopback port with a temporary data
directory, then drives it the way a sync client does: discovery from the bare
server URL, calendar creation, saving single, all-day and recurring events
(with an override and a time zone), time-range search with and without
expansion, principal search at the root, to-do time ranges, sync tokens, an update with its ETag, and deletion; and, as
raw REPORTs through the library's client, ANDed sibling filters, partial calendar data, a query's own time zone and an
incremental sync with an empty DAV:prop (RFC 4791 §9.6–§9.8, RFC 6578). Exits non-zero on the first disagreement.

    .build/client-venv/bin/python Tests/Interop/caldav_client.py --almanac .build/debug/almanac
"""
import argparse
import datetime as dt
import shutil
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

import caldav

from almanac_server import AlmanacServer

SINGLE = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VEVENT
UID:single@interop
DTSTAMP:20261101T000000Z
DTSTART:20261202T100000Z
DTEND:20261202T110000Z
SUMMARY:Dentist
X-INTEROP:kept
END:VEVENT
END:VCALENDAR
"""

ALL_DAY = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VEVENT
UID:allday@interop
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20261203
DTEND;VALUE=DATE:20261204
SUMMARY:Holiday
END:VEVENT
END:VCALENDAR
"""

RECURRING = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:STANDARD
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
UID:weekly@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20261201T180000
DTEND;TZID=Europe/Berlin:20261201T190000
RRULE:FREQ=WEEKLY;COUNT=4
SUMMARY:Yoga
END:VEVENT
BEGIN:VEVENT
UID:weekly@interop
DTSTAMP:20261101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20261208T180000
DTSTART;TZID=Europe/Berlin:20261208T200000
DTEND;TZID=Europe/Berlin:20261208T210000
SUMMARY:Yoga (late)
END:VEVENT
END:VCALENDAR
"""

TODO_DUE = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VTODO
UID:due@interop
DTSTAMP:20261101T000000Z
DUE:20261210T110000Z
SUMMARY:Report
END:VTODO
END:VCALENDAR
"""

TODO_UNDATED = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VTODO
UID:undated@interop
DTSTAMP:20261101T000000Z
SUMMARY:Someday
END:VTODO
END:VCALENDAR
"""

FLOATING = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VEVENT
UID:floating@interop
DTSTAMP:20261101T000000Z
DTSTART:20261210T090000
DURATION:PT30M
SUMMARY:Breakfast
END:VEVENT
END:VCALENDAR
"""

# The recurring event's own VTIMEZONE, as a query's CALDAV:timezone (one VCALENDAR, one VTIMEZONE).
BERLIN = ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Interop//EN\n"
          + RECURRING[RECURRING.index("BEGIN:VTIMEZONE"):RECURRING.index("END:VTIMEZONE")] + "END:VTIMEZONE\nEND:VCALENDAR\n")

DAV = "{DAV:}"
CALDAV = "{urn:ietf:params:xml:ns:caldav}"


def report(client, calendar, body):
    """A REPORT on the calendar through the library's own client, as a parsed multistatus."""
    answer = client.report(str(calendar.url), body, depth=1)
    check(answer.status == 207, f"REPORT answered {answer.status}")
    return ET.fromstring(answer.raw)


def hrefs(multistatus):
    return sorted(urllib.parse.unquote(r.findtext(DAV + "href")) for r in multistatus.iter(DAV + "response"))


def query(filter_xml, prop="<D:getetag/>", extra=""):
    return ('<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
            f'<D:prop>{prop}</D:prop><C:filter><C:comp-filter name="VCALENDAR">{filter_xml}'
            f'</C:comp-filter></C:filter>{extra}</C:calendar-query>')


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)
    print("ok:", message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    arguments = parser.parse_args()
    data = tempfile.mkdtemp(prefix="almanac-interop-")
    server = AlmanacServer(arguments.almanac, data, "interop")
    try:
        run(server.base, server.password)
    finally:
        code = server.stop()
        shutil.rmtree(data, ignore_errors=True)
    if code != 0:
        raise SystemExit(f"FAIL: the server exited with {code}")
    print("caldav interop: all checks passed")


def run(base, password):
    # Discovery from the bare server URL: .well-known, principal, home.
    client = caldav.DAVClient(url=base + "/", username="interop", password=password)
    principal = client.principal()
    check(principal.url.path == "/dav/principals/interop/", f"principal discovered at {principal.url.path}")
    home = principal.calendar_home_set
    check(home.url.path == "/dav/calendars/interop/", "calendar home set")
    # Principal search sent to the URL the user typed (the bare server URL).
    found = client.search_principals()
    check([p.url.path for p in found] == ["/dav/principals/interop/"], "principal search at the server root")
    check(client.search_principals(name="interop")[0].calendar_home_set.url.path == "/dav/calendars/interop/",
          "principal search by name names the home")

    calendar = principal.make_calendar(name="Work", cal_id="work")
    check(calendar.url.path == "/dav/calendars/interop/work/", "calendar created with MKCALENDAR")
    check(calendar.get_display_name() == "Work", "display name read back")
    check([c.url.path for c in principal.calendars()] == ["/dav/calendars/interop/work/"], "calendar listed in the home")

    single = calendar.save_event(SINGLE)
    calendar.save_event(ALL_DAY)
    calendar.save_event(RECURRING)
    check(len(calendar.events()) == 3, "three objects stored")

    start = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    end = dt.datetime(2026, 12, 8, tzinfo=dt.timezone.utc)
    found = calendar.search(start=start, end=end, event=True, expand=False)
    check(sorted(e.icalendar_component["UID"] for e in found) == ["allday@interop", "single@interop", "weekly@interop"],
          "time-range search finds each object once")
    late = calendar.search(start=dt.datetime(2026, 12, 8, 18, tzinfo=dt.timezone.utc),
                           end=dt.datetime(2026, 12, 8, 21, tzinfo=dt.timezone.utc), event=True, expand=False)
    check([e.icalendar_component["UID"] for e in late] == ["weekly@interop"], "an override moved into the range is found")
    expanded = calendar.search(start=start, end=dt.datetime(2026, 12, 29, tzinfo=dt.timezone.utc), event=True, expand=True)
    summaries = sorted(str(e.icalendar_component["SUMMARY"]) for e in expanded)
    check(summaries.count("Yoga") == 3 and summaries.count("Yoga (late)") == 1, f"expanded instances: {summaries}")

    # RFC 4791 §9.7.1: sibling comp-filters are ANDed (only the recurring event carries a VTIMEZONE).
    both = report(client, calendar, query('<C:comp-filter name="VEVENT"/><C:comp-filter name="VTIMEZONE"/>'))
    check(hrefs(both) == ["/dav/calendars/interop/work/weekly@interop.ics"], f"sibling filters are ANDed: {hrefs(both)}")
    dentist = report(client, calendar, query(
        '<C:comp-filter name="VEVENT"><C:time-range start="20261201T000000Z" end="20261208T000000Z"/>'
        '<C:prop-filter name="SUMMARY"><C:text-match>dentist</C:text-match></C:prop-filter></C:comp-filter>'))
    check(hrefs(dentist) == ["/dav/calendars/interop/work/single@interop.ics"], "a time range and a text match hold together")

    # RFC 4791 §9.6.1–§9.6.4: only the components and properties asked for.
    partial = report(client, calendar, query(
        '<C:comp-filter name="VEVENT"/>',
        prop='<C:calendar-data><C:comp name="VCALENDAR"><C:comp name="VEVENT"><C:prop name="UID"/>'
             '<C:prop name="SUMMARY"/></C:comp></C:comp></C:calendar-data>'))
    for data in partial.iter(CALDAV + "calendar-data"):
        lines = [line for line in data.text.splitlines() if line]
        check(lines[0] == "BEGIN:VCALENDAR" and all(line.split(":")[0].split(";")[0] in
              ("BEGIN", "END", "UID", "SUMMARY") for line in lines), f"partial calendar data: {lines}")
        check("BEGIN:VTIMEZONE" not in lines, "partial calendar data leaves out the VTIMEZONE")

    # RFC 4791 §9.8: a floating 09:00 is 08:00Z in the query's own Berlin, 09:00Z without it.
    calendar.save_event(FLOATING)
    morning = '<C:comp-filter name="VEVENT"><C:time-range start="20261210T074500Z" end="20261210T081500Z"/></C:comp-filter>'
    check(hrefs(report(client, calendar, query(morning))) == [], "a floating time is UTC when no zone is named")
    in_berlin = report(client, calendar, query(morning, extra=f"<C:timezone><![CDATA[{BERLIN}]]></C:timezone>"))
    check(hrefs(in_berlin) == ["/dav/calendars/interop/work/floating@interop.ics"], "the query's time zone places floating times")
    calendar.event_by_uid("floating@interop").delete()

    token_objects = calendar.objects_by_sync_token(load_objects=False)
    token = token_objects.sync_token
    check(len(list(token_objects)) == 3 and token, "initial sync lists every object")

    # Update with the ETag: change the summary, keep the X- property.
    single.load()
    single.icalendar_component["SUMMARY"] = "Dentist (moved)"
    single.save()
    reread = calendar.event_by_uid("single@interop")
    check(str(reread.icalendar_component["SUMMARY"]) == "Dentist (moved)", "update saved")
    check("X-INTEROP:kept" in reread.data, "unknown property kept through the update")

    calendar.event_by_uid("allday@interop").delete()
    changes = calendar.objects_by_sync_token(sync_token=token, load_objects=False)
    paths = sorted(urllib.parse.unquote(o.url.path) for o in changes)
    check(paths == ["/dav/calendars/interop/work/allday@interop.ics", "/dav/calendars/interop/work/single@interop.ics"],
          f"incremental sync lists the change and the deletion: {paths}")
    check(len(calendar.events()) == 2, "deleted object gone")

    # RFC 6578 §3.2: with an empty DAV:prop, each change still has a propstat (200) and each removal a 404 status.
    empty = report(client, calendar, '<D:sync-collection xmlns:D="DAV:"><D:sync-token>' + token + '</D:sync-token>'
                   '<D:sync-level>1</D:sync-level><D:prop/></D:sync-collection>')
    statuses = {}
    for response in empty.iter(DAV + "response"):
        href = urllib.parse.unquote(response.findtext(DAV + "href"))
        statuses[href] = response.findtext(DAV + "status") or response.findtext(DAV + "propstat/" + DAV + "status")
    check(statuses == {"/dav/calendars/interop/work/allday@interop.ics": "HTTP/1.1 404 Not Found",
                       "/dav/calendars/interop/work/single@interop.ics": "HTTP/1.1 200 OK"},
          f"an incremental sync with an empty prop: {statuses}")

    # To-dos by RFC 4791 §9.9: one with neither DTSTART nor DUE is in every range. (The
    # library widens the range it sends by a day and filters the answer itself, so the
    # table's edges are tested in Tests/CalDAVTests, not here.)
    tasks = principal.make_calendar(name="Tasks", cal_id="tasks", supported_calendar_component_set=["VTODO"])
    tasks.save_todo(TODO_DUE)
    tasks.save_todo(TODO_UNDATED)
    due_range = tasks.search(start=dt.datetime(2026, 12, 10, 10, tzinfo=dt.timezone.utc),
                             end=dt.datetime(2026, 12, 10, 12, tzinfo=dt.timezone.utc), todo=True, expand=False)
    check(sorted(t.icalendar_component["UID"] for t in due_range) == ["due@interop", "undated@interop"],
          "a to-do due in the range and an undated one are found")
    later = tasks.search(start=dt.datetime(2027, 1, 10, tzinfo=dt.timezone.utc),
                         end=dt.datetime(2027, 1, 11, tzinfo=dt.timezone.utc), todo=True, expand=False)
    check([t.icalendar_component["UID"] for t in later] == ["undated@interop"], "a to-do due long before the range is not")
    tasks.delete()

    calendar.delete()
    check(principal.calendars() == [], "calendar deleted")


if __name__ == "__main__":
    main()
