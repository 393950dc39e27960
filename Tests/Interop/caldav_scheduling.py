#!/usr/bin/env python3
"""Real-client interop for scheduling between the server's users (RFC 6638): three users
of `almanac serve`, each with the python `caldav` library and an e-mail address.

- The organizer saves a weekly meeting with `save_with_invites` (the library adds the
  ORGANIZER from the principal's calendar-user-address-set and the ATTENDEEs).
- Each attendee finds the REQUEST in their schedule inbox (`schedule_inbox().get_items()`)
  and the event in their default calendar; one accepts the series, the other declines one
  occurrence (an override with their PARTSTAT, as calendar apps write it); the organizer's
  copy carries both answers, and the organizer's inbox the REPLYs.
- The organizer moves an occurrence: the attendees' copies follow. The organizer invites a
  fourth user to the last week only (an override that lists her): her copy and her REQUEST
  hold that week alone, no RRULE (RFC 6638 §3.2.6). The organizer moves the whole series
  an hour later and saves without raising SEQUENCE: the server raises it (RFC 5546 §2.1.4)
  and asks every attendee again (NEEDS-ACTION, RFC 6638 §3.2.8), which their clients see.
  The organizer deletes the meeting: the attendees' copies stay, cancelled, with a CANCEL
  in their inbox.
- The organizer asks the outbox for an attendee's free-busy (`freebusy_request`).

    .build/client-venv/bin/python Tests/Interop/caldav_scheduling.py --almanac .build/debug/almanac
"""
import datetime as dt
import subprocess

import caldav
import icalendar

from interop_support import check, main
from almanac_server import AlmanacServer

PASSWORD = "scheduling interop password"

MEETING = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VEVENT
UID:standup@interop
DTSTAMP:20261101T000000Z
DTSTART:20261207T090000Z
DTEND:20261207T093000Z
RRULE:FREQ=WEEKLY;COUNT=4
SUMMARY:Stand-up
END:VEVENT
END:VCALENDAR
"""



def attendees(component):
    found = component.get("ATTENDEE", [])
    return found if isinstance(found, list) else [found]


def partstat(component, address):
    for attendee in attendees(component):
        if str(attendee).lower() == address:
            return str(attendee.params.get("PARTSTAT", "NEEDS-ACTION"))
    return None


def components(event):
    return [c for c in event.icalendar_instance.walk("VEVENT")]


def master(event):
    return next(c for c in components(event) if c.get("RECURRENCE-ID") is None)


def instance(event, when):
    for c in components(event):
        if c.get("RECURRENCE-ID") is not None and c.decoded("RECURRENCE-ID") == when:
            return c
    return None


def run(almanac, data):
    for user in ["olivia", "paul", "quinn", "rosa"]:
        subprocess.run([almanac, "user", "add", user, "--data", data, "--email", f"{user}@example.com"],
                       input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    server = AlmanacServer(almanac, data, "olivia", password=PASSWORD, extra=["--visible-principals", "all"])
    try:
        clients = {user: caldav.DAVClient(url=server.base + "/dav/", username=user, password=PASSWORD)
                   for user in ["olivia", "paul", "quinn", "rosa"]}
        principals = {user: client.principal() for user, client in clients.items()}
        check(str(principals["paul"].schedule_inbox().url).endswith("/dav/inbox/paul/"), "the principal names its inbox")
        work = principals["olivia"].make_calendar(name="Work", cal_id="work")
        principals["paul"].make_calendar(name="Paul's", cal_id="pauls")

        # Olivia invites Paul and Quinn.
        work.save_with_invites(MEETING, [principals["paul"], "mailto:quinn@example.com"])
        stored = work.event_by_uid("standup@interop")
        schedule = {str(a).lower(): a.params.get("SCHEDULE-STATUS") for a in attendees(master(stored))}
        check(schedule.get("mailto:paul@example.com") == "1.2" and schedule.get("mailto:quinn@example.com") == "1.2",
              f"both delivered (SCHEDULE-STATUS {schedule})")

        for user in ["paul", "quinn"]:
            items = principals[user].schedule_inbox().get_items()
            methods = [str(item.icalendar_instance.get("METHOD")) for item in items]
            check(methods == ["REQUEST"], f"{user}'s inbox holds the REQUEST ({methods})")
            calendars = principals[user].calendars()
            check(len(calendars) == 1 and calendars[0].event_by_uid("standup@interop") is not None,
                  f"{user} has the meeting in their calendar")

        # Paul accepts the series; Quinn declines the third week only.
        paul_copy = principals["paul"].calendars()[0].event_by_uid("standup@interop")
        check(paul_copy.parent.get_display_name() == "Paul's", "Paul's copy is in his own calendar")
        paul_copy.change_attendee_status(attendee="mailto:paul@example.com", partstat="ACCEPTED")
        paul_copy.save(increase_seqno=False)
        quinn_calendar = principals["quinn"].calendars()[0]
        quinn_copy = quinn_calendar.event_by_uid("standup@interop")
        week3 = dt.datetime(2026, 12, 21, 9, 0, tzinfo=dt.timezone.utc)
        override = icalendar.Event()
        for name in ["UID", "SUMMARY", "ORGANIZER"]:
            override.add(name, master(quinn_copy).get(name))
        override.add("DTSTAMP", dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc))
        override.add("RECURRENCE-ID", week3)
        override.add("DTSTART", week3)
        override.add("DTEND", week3 + dt.timedelta(minutes=30))
        override.add("ATTENDEE", "mailto:quinn@example.com", parameters={"PARTSTAT": "DECLINED"})
        quinn_copy.icalendar_instance.add_component(override)
        quinn_copy.save(increase_seqno=False)

        organizer = work.event_by_uid("standup@interop")
        check(partstat(master(organizer), "mailto:paul@example.com") == "ACCEPTED", "Olivia sees Paul's acceptance")
        declined = instance(organizer, week3)
        check(declined is not None and partstat(declined, "mailto:quinn@example.com") == "DECLINED",
              "Olivia's copy has the third week, declined by Quinn")
        check(partstat(declined, "mailto:paul@example.com") == "ACCEPTED", "with Paul's answer as for the series")
        replies = [str(i.icalendar_instance.get("METHOD")) for i in principals["olivia"].schedule_inbox().get_items()]
        check(replies.count("REPLY") == 2, f"Olivia's inbox has both replies ({replies})")

        # Olivia moves the second week: Paul's copy follows.
        organizer = work.event_by_uid("standup@interop")
        week2 = dt.datetime(2026, 12, 14, 9, 0, tzinfo=dt.timezone.utc)
        moved = icalendar.Event()
        moved.add("UID", "standup@interop")
        moved.add("DTSTAMP", dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc))
        moved.add("RECURRENCE-ID", week2)
        moved.add("DTSTART", week2 + dt.timedelta(hours=5))
        moved.add("DTEND", week2 + dt.timedelta(hours=5, minutes=30))
        moved.add("SUMMARY", "Stand-up (afternoon)")
        moved.add("ORGANIZER", master(organizer).get("ORGANIZER"))
        for attendee in attendees(master(organizer)):
            moved.add("ATTENDEE", attendee)
        organizer.icalendar_instance.add_component(moved)
        organizer.save()
        paul_copy = principals["paul"].calendars()[0].event_by_uid("standup@interop")
        afternoon = instance(paul_copy, week2)
        check(afternoon is not None and str(afternoon.get("SUMMARY")) == "Stand-up (afternoon)", "Paul's copy has the moved week")
        expanded = principals["paul"].calendars()[0].search(
            start=dt.datetime(2026, 12, 14), end=dt.datetime(2026, 12, 15), event=True, expand=True)
        starts = [e.icalendar_component.decoded("DTSTART") for e in expanded]
        check(starts == [week2 + dt.timedelta(hours=5)], f"and his calendar expands it there ({starts})")

        # Olivia invites Rosa to the last week only: Rosa gets that week alone.
        organizer = work.event_by_uid("standup@interop")
        week4 = dt.datetime(2026, 12, 28, 9, 0, tzinfo=dt.timezone.utc)
        last = icalendar.Event()
        last.add("UID", "standup@interop")
        last.add("DTSTAMP", dt.datetime(2026, 11, 3, tzinfo=dt.timezone.utc))
        last.add("RECURRENCE-ID", week4)
        last.add("DTSTART", week4)
        last.add("DTEND", week4 + dt.timedelta(minutes=30))
        last.add("SUMMARY", "Stand-up (with Rosa)")
        last.add("ORGANIZER", master(organizer).get("ORGANIZER"))
        for attendee in attendees(master(organizer)) + ["mailto:rosa@example.com"]:
            last.add("ATTENDEE", attendee)
        organizer.icalendar_instance.add_component(last)
        organizer.save(increase_seqno=False)
        rosa_copy = principals["rosa"].calendars()[0].event_by_uid("standup@interop")
        check([c.get("RRULE") for c in components(rosa_copy)] == [None]
              and components(rosa_copy)[0].decoded("RECURRENCE-ID") == week4,
              f"Rosa's copy is the last week alone ({rosa_copy.data})")
        request = list(principals["rosa"].schedule_inbox().get_items())[-1].icalendar_instance
        check([str(c.get("SUMMARY")) for c in request.walk("VEVENT")] == ["Stand-up (with Rosa)"]
              and all(c.get("RRULE") is None for c in request.walk("VEVENT")), "and so is her REQUEST")

        # Olivia moves the series an hour later; her client does not raise SEQUENCE.
        organizer = work.event_by_uid("standup@interop")
        series = master(organizer)
        before = int(series.get("SEQUENCE", 0))
        start, end = series.decoded("DTSTART"), series.decoded("DTEND")
        del series["DTSTART"], series["DTEND"]
        series.add("DTSTART", start + dt.timedelta(hours=1))
        series.add("DTEND", end + dt.timedelta(hours=1))
        organizer.save(increase_seqno=False)
        organizer = work.event_by_uid("standup@interop")
        check(int(master(organizer).get("SEQUENCE", 0)) > before, "the server raised the series' SEQUENCE")
        check(partstat(master(organizer), "mailto:paul@example.com") == "NEEDS-ACTION",
              "and asks Paul again in Olivia's copy")
        paul_copy = principals["paul"].calendars()[0].event_by_uid("standup@interop")
        check(int(master(paul_copy).get("SEQUENCE", 0)) > before
              and partstat(master(paul_copy), "mailto:paul@example.com") == "NEEDS-ACTION",
              "Paul's client sees the raised SEQUENCE and his answer asked for again")
        paul_copy.change_attendee_status(attendee="mailto:paul@example.com", partstat="ACCEPTED")
        paul_copy.save(increase_seqno=False)
        check(partstat(master(work.event_by_uid("standup@interop")), "mailto:paul@example.com") == "ACCEPTED",
              "Paul accepts the new time")

        # Free-busy through the outbox.
        answer = principals["olivia"].freebusy_request(
            dt.datetime(2026, 12, 7, tzinfo=dt.timezone.utc), dt.datetime(2026, 12, 8, tzinfo=dt.timezone.utc),
            [principals["paul"]])
        check(sorted(answer) == ["errors", "mailto:paul@example.com"] and not answer["errors"],
              f"one answer, for Paul, and no errors ({answer})")
        text = str(answer["mailto:paul@example.com"].data).replace("\r\n ", "")
        check("20261207T100000Z/20261207T103000Z" in text and "Stand-up" not in text,
              "the outbox tells Paul's busy time, and nothing else")

        # Olivia cancels: the copies stay, cancelled; the attendees are told.
        work.event_by_uid("standup@interop").delete()
        paul_copy = principals["paul"].calendars()[0].event_by_uid("standup@interop")
        check(all(str(c.get("STATUS")) == "CANCELLED" for c in components(paul_copy)), "Paul's copy is cancelled")
        methods = [str(i.icalendar_instance.get("METHOD")) for i in principals["quinn"].schedule_inbox().get_items()]
        check(methods[-1] == "CANCEL", f"Quinn's inbox ends with the CANCEL ({methods})")
    finally:
        server.stop()


if __name__ == "__main__":
    main(run, "caldav scheduling")
