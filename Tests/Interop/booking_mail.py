#!/usr/bin/env python3
"""A booker's mail, end to end: an SMTP sink started here on 127.0.0.1 (aiosmtpd, never a
real mail server) and `almanac serve --smtp smtp://127.0.0.1:PORT`.

A trainer in Berlin (Anna, with an e-mail address) offers a booking type. A visitor in
New York books it on the public page, moves it with her reschedule link and cancels it
with her manage link, all as plain HTTP form posts, as a browser sends them. Every
message is parsed with Python's `email` package and its calendar part with the
`icalendar` package:

- Lena gets three: a METHOD:REQUEST with the booked time (SEQUENCE 0) and both links,
  its text in her zone (America/New_York); a REQUEST with the new time and SEQUENCE 1;
  a METHOD:CANCEL with SEQUENCE 2. One UID throughout, organizer Anna, Lena attending.
- Anna gets a notice of each, in Berlin time; with the type's `hostNotice` off she gets
  none while Lena still gets hers.
- A page answers before its mail is sent (the queue sends it): the answer never waits
  for the relay, which this test holds back for a while to show it.

    .build/client-venv/bin/python Tests/Interop/booking_mail.py --almanac .build/debug/almanac
"""
import base64
import email
import email.policy
import http.cookiejar
import json
import re
import subprocess
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import icalendar

from interop_support import check, main, wait_for
from almanac_server import AlmanacServer
from mail_sink import start_sink

PASSWORD = "booking mail interop password"
NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")


def to(sink, address):
    """The messages to `address` alone, parsed."""
    with sink.lock:
        return [email.message_from_bytes(raw, policy=email.policy.default)
                for _, recipients, raw in sink.messages if recipients == [address]]


class Visitor:
    """A browser without JavaScript: cookies kept, forms posted with their fields."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path):
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.geturl(), response.read().decode()

    def post(self, path, fields):
        data = urllib.parse.urlencode(fields).encode()
        with self.opener.open(urllib.request.Request(self.base + path, data=data), timeout=30) as response:
            return response.geturl(), response.read().decode()


def csrf(page):
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def calendar_of(message):
    parts = {part.get_content_type(): part for part in message.walk()}
    check("text/calendar" in parts and "text/plain" in parts,
          f"{message['Subject']!r}: a readable part and a calendar part")
    part = parts["text/calendar"]
    content = part.get_content()
    content = content if isinstance(content, str) else content.decode()
    calendar = icalendar.Calendar.from_ical(content)
    events = [c for c in calendar.walk("VEVENT")]
    check(len(events) == 1, f"{message['Subject']!r}: one event")
    text = parts["text/plain"].get_content()
    return part.get_param("method"), calendar, events[0], text


def run(almanac, data):
    sink, controller, port = start_sink()
    subprocess.run([almanac, "user", "add", "anna", "--data", data, "--email", "anna@example.com"],
                   input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    server = AlmanacServer(almanac, data, "anna", password=PASSWORD, extra=["--smtp", f"smtp://127.0.0.1:{port}"])
    try:
        def call(method, path, body=None):
            request = urllib.request.Request(server.base + path, method=method,
                                             data=json.dumps(body).encode() if body is not None else None)
            request.add_header("Authorization", "Basic " + base64.b64encode(f"anna:{PASSWORD}".encode()).decode())
            request.add_header("Content-Type", "application/json")
            with urllib.request.urlopen(request) as response:
                return json.loads(response.read() or b"null")

        call("POST", "/api/v1/availability-schedules",
             {"title": "Studio", "timeZone": "Europe/Berlin", "hours": "Mon-Sun 09:00-18:00"})
        calendar = call("POST", "/api/v1/calendars", {"title": "Trainings", "timeZone": "Europe/Berlin"})
        kind = call("POST", "/api/v1/booking-types", {
            "title": "Personal training", "slug": "personal", "durations": [60], "calendar": calendar["id"],
            "location": "Studio 1", "notice": 60})
        check(kind["hostNotice"] is True, "a type tells its owner of bookings unless told not to")
        today = datetime.now(timezone.utc)
        slots = call("GET", f"/api/v1/booking-types/{kind['id']}/slots?from={(today + timedelta(days=2)).date()}"
                            f"&to={(today + timedelta(days=9)).date()}")["slots"]
        check(len(slots) > 10, f"free slots to book ({len(slots)})")
        first, moved_to = slots[0]["start"], slots[5]["start"]

        # Lena, in New York, books the first slot. The relay is held back: the page answers anyway.
        lena = Visitor(server.base)
        _, form = lena.get(f"/book/personal/slot?start={first}&duration=60&tz=America/New_York")
        sink.held.clear()
        _, page = lena.post("/book/personal", {"csrf": csrf(form), "start": first, "duration": "60",
                                               "tz": "America/New_York", "name": "Lena Berg",
                                               "email": "lena@example.com", "note": "First session"})
        check("You are booked" in page and not sink.messages,
              "the booking page answered while the relay was still holding its mail")
        sink.held.set()
        manage = re.search(r'href="(/book/manage/bkc_[0-9a-f]+)/cancel"', page).group(1)
        reschedule = re.search(r'href="(/book/reschedule/bkr_[0-9a-f]+)"', page).group(1)
        wait_for(lambda: len(to(sink, "lena@example.com")) == 1 and len(to(sink, "anna@example.com")) == 1,
                 "the confirmation and Anna's notice")

        booked = to(sink, "lena@example.com")[0]
        check(booked["From"].addresses[0].addr_spec == "anna@example.com", f"from the trainer: {booked['From']}")
        check(not booked.defects and all(not part.defects for part in booked.walk()), "the message has no defects")
        method, _, event, text = calendar_of(booked)
        start = datetime.fromisoformat(first.replace("Z", "+00:00"))
        local = start.astimezone(NEW_YORK)
        check(method == "REQUEST" and event["DTSTART"].dt == start and event["SEQUENCE"] == 0,
              f"a REQUEST for the booked time, SEQUENCE 0 ({event['DTSTART'].dt}, {event['SEQUENCE']})")
        check(str(event["ORGANIZER"]) == "mailto:anna@example.com"
              and str(event["ATTENDEE"]) == "mailto:lena@example.com"
              and event["ATTENDEE"].params["PARTSTAT"] == "ACCEPTED",
              "Anna organizes, Lena attends (accepted: she chose the time)")
        check(event["LOCATION"] == "Studio 1" and event["STATUS"] == "CONFIRMED", "where, and confirmed")
        uid = str(event["UID"])
        check(f"{local:%H:%M}" in text and "America/New_York" in text and f"{local.day} {local:%B}" in text,
              f"the text gives the time in Lena's zone ({local:%d %B %H:%M})")
        check(server.base + manage in text and server.base + reschedule in text
              and server.base + manage in str(event["DESCRIPTION"]),
              "the text and the event carry both links")
        check(f"{local:%H:%M}" in booked["Subject"], f"the subject says when: {booked['Subject']!r}")
        notice = to(sink, "anna@example.com")[0]
        berlin = start.astimezone(BERLIN)
        notice_text = notice.get_content()
        check(notice.get_content_type() == "text/plain" and "Lena Berg" in notice["Subject"]
              and f"{berlin:%H:%M}" in notice_text and "Europe/Berlin" in notice_text
              and "First session" in notice_text,
              f"Anna's notice names the booker, her note and the time in Berlin: {notice['Subject']!r}")

        # Lena moves it with her reschedule link.
        _, picker = lena.get(reschedule + "?day=" + datetime.fromisoformat(moved_to.replace("Z", "+00:00"))
                             .astimezone(NEW_YORK).date().isoformat())
        check(f'value="{moved_to}"' in picker, "the reschedule page offers the new time")
        _, page = lena.post(reschedule, {"csrf": csrf(picker), "start": moved_to, "duration": "60"})
        check("Your booking moved" in page, "moved")
        wait_for(lambda: len(to(sink, "lena@example.com")) == 2 and len(to(sink, "anna@example.com")) == 2,
                 "the second invitation and Anna's notice")
        method, _, event, text = calendar_of(to(sink, "lena@example.com")[1])
        new_start = datetime.fromisoformat(moved_to.replace("Z", "+00:00"))
        check(method == "REQUEST" and event["DTSTART"].dt == new_start and event["SEQUENCE"] == 1
              and str(event["UID"]) == uid,
              f"a new REQUEST for the new time, same UID, SEQUENCE 1 ({event['DTSTART'].dt}, {event['SEQUENCE']})")
        check(f"{new_start.astimezone(NEW_YORK):%H:%M}" in text and "America/New_York" in text
              and server.base + reschedule in text, "in Lena's zone, with the link she used")
        check("moved" in to(sink, "anna@example.com")[1]["Subject"], "Anna is told it moved")

        # Lena cancels through her manage link, after the confirmation page.
        _, confirm = lena.get(manage + "/cancel")
        _, page = lena.post(manage, {"csrf": csrf(confirm)})
        check("Cancelled" in page, "cancelled")
        wait_for(lambda: len(to(sink, "lena@example.com")) == 3 and len(to(sink, "anna@example.com")) == 3,
                 "the cancellation and Anna's notice")
        method, calendar_part, event, text = calendar_of(to(sink, "lena@example.com")[2])
        check(method == "CANCEL" and calendar_part["METHOD"] == "CANCEL" and event["SEQUENCE"] == 2
              and str(event["UID"]) == uid and event["STATUS"] == "CANCELLED",
              f"a CANCEL of the same UID, SEQUENCE 2 ({event['SEQUENCE']})")
        check("cancelled" in to(sink, "anna@example.com")[2]["Subject"], "Anna is told it was cancelled")
        # Cancelling again changes nothing and sends nothing (a mail it queued would go
        # out before Max's below: one queue per owner, in order).
        count = len(sink.messages)
        lena.post(manage, {"csrf": csrf(confirm)})

        # With the notice off, Anna hears nothing; Lena still gets her confirmation.
        call("PATCH", f"/api/v1/booking-types/{kind['id']}", {"hostNotice": False})
        other = Visitor(server.base)
        _, form = other.get(f"/book/personal/slot?start={slots[8]['start']}&duration=60&tz=Europe/Berlin")
        _, page = other.post("/book/personal", {"csrf": csrf(form), "start": slots[8]["start"], "duration": "60",
                                                "tz": "Europe/Berlin", "name": "Max Ott", "email": "max@example.com"})
        wait_for(lambda: len(to(sink, "max@example.com")) == 1, "Max's confirmation")
        check(len(sink.messages) == count + 1 and len(to(sink, "anna@example.com")) == 3,
              "cancelling twice mails nothing more, and with hostNotice off only the booker is mailed")
    finally:
        server.stop()
        controller.stop()


if __name__ == "__main__":
    main(run, "booking mail")
