#!/usr/bin/env python3
"""Reminders end to end, with real processes and the real clock: `almanac serve` firing
alarms as `alarm.due` webhooks (to the receiver of webhooks.py, which checks each
signature with Python's hmac) and `ACTION:EMAIL` alarms through an SMTP sink
(aiosmtpd on 127.0.0.1, never a real mail server).

- An event PUT over CalDAV with a DISPLAY and an EMAIL alarm a few seconds ahead (the
  EMAIL one naming a stranger as its ATTENDEE): both come due as signed webhooks, and
  one mail goes to the owner's own addresses only, with the title, the time in the
  calendar's zone and a link. Acknowledged through the API before it is due, a
  repeating alarm stops.
- kill -9 of the server while alarms come due, ten seconds down, a restart: every
  alarm is delivered at least once, the ones due while it was down marked late; the
  duplicates are counted.
- With ALMANAC_TEST_POSTGRES (scripts/with-test-postgres): two server processes on one
  database fire each of many alarms due at the same seconds exactly once.

    .build/client-venv/bin/python Tests/Interop/reminders.py --almanac .build/debug/almanac
"""
import datetime
import email
import email.policy
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from almanac_server import AlmanacServer, BasicClient  # noqa: E402
from mail_sink import start_sink  # noqa: E402
from interop_support import check, main  # noqa: E402
from webhooks import PRIVATE, Receiver, api, subscribe, two_servers  # noqa: E402


def stamp(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def calendar_file(uid, start, alarms, summary="Dentist"):
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Reminders//EN", "BEGIN:VEVENT", f"UID:{uid}",
             "DTSTAMP:20261101T000000Z", f"SUMMARY:{summary}", f"DTSTART:{stamp(start)}", "DURATION:PT30M"]
    for alarm in alarms:
        lines += ["BEGIN:VALARM", *alarm, "END:VALARM"]
    return ("\r\n".join(lines + ["END:VEVENT", "END:VCALENDAR", ""])).encode()


def alarm_dues(receiver):
    return [d for d in receiver.snapshot() if d["type"] == "alarm.due"]


def mail_and_webhooks(almanac, data):
    sink, controller, port = start_sink()
    server = AlmanacServer(almanac, data, "anna", extra=PRIVATE + ["--smtp", f"smtp://127.0.0.1:{port}"])
    receiver = Receiver()
    client = BasicClient(server.port, "anna", server.password)
    try:
        cli = subprocess.run([almanac, "user", "email", "anna", "anna@example.com", "--data", data],
                             capture_output=True, text=True)
        check(cli.returncode == 0, f"anna's address set by the CLI, another process ({cli.stderr.strip()})")
        subscribe(client, receiver, events=["alarm.due"])
        status, _, _ = client.request("MKCALENDAR", "/dav/calendars/anna/health/")
        check(status == 201, "a calendar made over CalDAV")
        status, listing = api(client, "GET", "/api/v1/calendars")
        calendar = listing["calendars"][0]["id"]
        status, _ = api(client, "PATCH", f"/api/v1/calendars/{calendar}", {"timeZone": "Europe/Berlin"})
        check(status == 200, "the calendar's zone is Europe/Berlin")
        due = int(time.time()) + 4
        body = calendar_file("dentist", due + 3600, [
            ["UID:show", "ACTION:DISPLAY", "DESCRIPTION:Leave now", f"TRIGGER;VALUE=DATE-TIME:{stamp(due)}"],
            ["UID:mail", "ACTION:EMAIL", "SUMMARY:Dentist", "DESCRIPTION:Bring the card",
             "ATTENDEE:mailto:stranger@elsewhere.example", f"TRIGGER;VALUE=DATE-TIME:{stamp(due)}"],
        ])
        status, _, _ = client.request("PUT", "/dav/calendars/anna/health/dentist.ics", body,
                                      {"Content-Type": "text/calendar"})
        check(status == 201, "an event with two alarms PUT over CalDAV")
        check(receiver.wait(lambda got: len([d for d in got if d["type"] == "alarm.due"]) >= 2, 60),
              "both alarms came due as webhooks")
        dues = alarm_dues(receiver)
        check(sorted(d["alarm"]["uid"] for d in dues) == ["mail", "show"], "one delivery per alarm")
        check(all(d["signed"] and d["alarm"]["trigger"] == iso(due) and not d["alarm"]["late"] for d in dues),
              "signed, at the trigger time, not late")
        deadline = time.time() + 60
        while time.time() < deadline and not sink.messages:
            time.sleep(0.1)
        with sink.lock:
            messages = list(sink.messages)
        check(len(messages) == 1, f"one reminder mail ({len(messages)})")
        sender, recipients, raw = messages[0]
        check(recipients == ["anna@example.com"], f"to the owner's address only, not the ATTENDEE ({recipients})")
        message = email.message_from_bytes(raw, policy=email.policy.default)
        text = message.get_body(preferencelist=("plain",)).get_content()
        local = datetime.datetime.fromtimestamp(due + 3600, datetime.timezone.utc).astimezone(
            datetime.timezone(datetime.timedelta(hours=1)))  # Berlin in winter (CET)
        check("Dentist" in message["Subject"] and "Bring the card" in text, f"title and description ({message['Subject']})")
        check(local.strftime("%H:%M") in text and "Europe/Berlin" in text, f"the time in the calendar's zone: {text!r}")
        check(f"Open it: {server.base}/calendar/event?id=" in text, "a link to the event where the server listens")

        # A repeating alarm dismissed through the API after its first firing stops.
        due = int(time.time()) + 3
        body = calendar_file("standup", due + 600, [
            ["UID:repeat", "ACTION:DISPLAY", "DESCRIPTION:Stand-up", f"TRIGGER;VALUE=DATE-TIME:{stamp(due)}",
             "REPEAT:3", "DURATION:PT3S"]], summary="Stand-up")
        status, _, _ = client.request("PUT", "/dav/calendars/anna/health/standup.ics", body,
                                      {"Content-Type": "text/calendar"})
        check(receiver.wait(lambda got: any(d["type"] == "alarm.due" and d["alarm"]["uid"] == "repeat"
                                            for d in got), 30), "the repeating alarm fired")
        first = next(d for d in alarm_dues(receiver) if d["alarm"]["uid"] == "repeat")
        status, answer = api(client, "POST", "/api/v1/alarms/acknowledge",
                             {"eventId": first["eventId"], "alarmUid": "repeat"})
        check(status == 200 and answer["alarms"][0]["acknowledged"], f"dismissed through the API ({status})")
        time.sleep(12)
        repeats = [d for d in alarm_dues(receiver) if d["alarm"]["uid"] == "repeat"]
        check(len(repeats) <= 2, f"its repetitions stopped ({len(repeats)} firings of 4)")
    finally:
        check(server.stop() == 0, "the server stopped cleanly")
        controller.stop()


def killed_and_restarted(almanac, data):
    server = AlmanacServer(almanac, data, "kill", extra=PRIVATE)
    password = server.password
    receiver = Receiver()
    client = BasicClient(server.port, "kill", password)
    subscribe(client, receiver, events=["alarm.due"])
    status, made = api(client, "PUT", "/api/v1/calendars/by-title/Alarms")
    calendar = made["id"]
    start = int(time.time()) + 5
    count = 40
    for index in range(count):
        status, _ = api(client, "POST", "/api/v1/events", {
            "calendarId": calendar, "title": f"alarm {index}", "start": iso(start + 600 + index),
            "alarms": [{"trigger": iso(start + index // 2)}]})
        check(status == 201, f"event {index} with an alarm") if index in (0, count - 1) else None
    wanted = {f"alarm {index}" for index in range(count)}
    check(receiver.wait(lambda got: len(got) >= 8, 60), "alarms are firing")
    server.process.kill()
    server.process.wait(timeout=30)
    killed_at = time.time()
    before = {d["alarm"]["summary"] for d in alarm_dues(receiver)}
    time.sleep(max(0, start + count // 2 + 2 - time.time()))  # down until every alarm is due
    server = AlmanacServer(almanac, data, "kill", password=password, extra=PRIVATE)
    try:
        check(receiver.wait(lambda got: wanted <= {d["alarm"]["summary"] for d in got if d["type"] == "alarm.due"},
                            90), f"every alarm was delivered ({len(before)} before kill -9 at +"
              f"{killed_at - start:.1f} s, the rest after the restart)")
        dues = alarm_dues(receiver)
        late = [d for d in dues if d["alarm"]["summary"] not in before]
        check(all(d["alarm"]["late"] for d in late if d["alarm"]["trigger"] < iso(int(killed_at) - 1)),
              "those due while it was down came marked late")
        firings = {}
        for d in dues:
            firings.setdefault((d["alarm"]["summary"], d["alarm"]["trigger"]), set()).add(d["id"])
        doubled = sum(1 for ids in firings.values() if len(ids) > 1)
        check(len(firings) == count, "one firing per alarm")
        redeliveries = len(dues) - len({d["id"] for d in dues})
        print(f"note: {doubled} alarms fired twice, {redeliveries} deliveries were sent again "
              f"(at least once; receivers dedupe by id)")
        check(doubled == 0, "no alarm fired twice (the firing commits with its deliveries)")
    finally:
        check(server.stop() == 0, "the restarted server stopped cleanly")


def two_servers_on_postgres(almanac, cluster):
    (a, b), clients = two_servers(almanac, cluster, "reminders")
    try:
        receiver = Receiver()
        subscribe(clients[0], receiver, events=["alarm.due"])
        calendar = api(clients[0], "PUT", "/api/v1/calendars/by-title/Many")[1]["id"]
        start = int(time.time()) + 6
        count = 120
        for index in range(count):
            status, _ = api(clients[index % 2], "POST", "/api/v1/events", {
                "calendarId": calendar, "title": f"pg {index}", "start": iso(start + 3600),
                "alarms": [{"trigger": iso(start + index % 3)}]})
            assert status == 201, status
        check(receiver.wait(lambda got: len(got) >= count, 90), f"{count} alarms due within 3 s came due")
        time.sleep(3)
        dues = alarm_dues(receiver)
        per_event = {}
        for d in dues:
            per_event.setdefault(d["eventId"], set()).add(d["id"])
        check(len(per_event) == count and all(len(ids) == 1 for ids in per_event.values()),
              f"two processes fired each exactly once ({len(dues)} deliveries for {len(per_event)} events)")
    finally:
        codes = [a.stop(), b.stop()]
    check(codes == [0, 0], "both servers stopped cleanly")


if __name__ == "__main__":
    main(mail_and_webhooks, "reminders", killed_and_restarted, postgres=two_servers_on_postgres)
