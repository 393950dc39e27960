#!/usr/bin/env python3
"""iMIP (RFC 6047) end to end: an SMTP sink started here on 127.0.0.1 (aiosmtpd, never a
real mail server) and `almanac serve --smtp smtp://127.0.0.1:PORT`.

- An organizer's CalDAV PUT invites a local user and one outside the server: the local
  one gets their copy; the outside one a mail (multipart/alternative, a readable text
  part and text/calendar; method=REQUEST) through libcurl's SMTP; the organizer's copy
  says SCHEDULE-STATUS 1.1 (sent) for them, 1.2 for the local one.
- The outside attendee's answer (a REPLY mail, written here with Python's email package)
  through `almanac imip receive` on standard input: applied to the organizer's copy.
  A forged one (From someone else) is refused and changes nothing. A second answer
  through POST /api/v1/imip (message/rfc822) declines one week.
- A local attendee's answer to an organizer outside the server goes out by mail.
- The outside attendee asks for the current version (REFRESH): it comes back as a REQUEST.
  They propose another time for one week (COUNTER, by mail): the organizer lists it
  through the API and declines it (a DECLINECOUNTER mail with her comment); a second
  proposal, for the series, she accepts (the guest gets the new REQUEST, Sam's copy moves).
- A local attendee proposes a time to an organizer outside the server: a COUNTER mail;
  that organizer's DECLINECOUNTER comes back through `almanac imip receive`.
- The organizer deletes the event: the outside attendee gets METHOD:CANCEL.

    .build/client-venv/bin/python Tests/Interop/imip.py --almanac .build/debug/almanac
"""
import base64
import email
import email.policy
import json
import subprocess
import urllib.request
from email.message import EmailMessage

from interop_support import check, main, wait_for
from almanac_server import AlmanacServer, BasicClient
from mail_sink import start_sink

PASSWORD = "imip interop password"

MEETING = "\r\n".join([
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Interop//EN", "BEGIN:VEVENT", "UID:review@interop",
    "DTSTAMP:20261101T000000Z", "DTSTART:20261208T140000Z", "DTEND:20261208T150000Z", "RRULE:FREQ=WEEKLY;COUNT=3",
    "SUMMARY:Design review", "LOCATION:Room 2", "ORGANIZER;CN=Rita:mailto:rita@example.com",
    "ATTENDEE;PARTSTAT=ACCEPTED:mailto:rita@example.com",
    "ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:sam@example.com",
    "ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:guest@elsewhere.example",
    "END:VEVENT", "END:VCALENDAR", ""])

EXTERNAL = "\r\n".join([
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Interop//EN", "BEGIN:VEVENT", "UID:offsite@elsewhere.example",
    "DTSTAMP:20261101T000000Z", "DTSTART:20261210T100000Z", "DTEND:20261210T110000Z", "SUMMARY:Offsite",
    "ORGANIZER:mailto:boss@elsewhere.example", "ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:sam@example.com",
    "END:VEVENT", "END:VCALENDAR", ""])


def calendar_part(raw):
    message = email.message_from_bytes(raw, policy=email.policy.default)
    parts = {part.get_content_type(): part for part in message.walk()}
    return message, parts


def reply_mail(sender, partstat, recurrence=None):
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Guest//EN", "METHOD:REPLY", "BEGIN:VEVENT",
             "UID:review@interop", "DTSTAMP:20261102T000000Z"]
    if recurrence:
        lines.append(f"RECURRENCE-ID:{recurrence}")
    lines += ["ORGANIZER:mailto:rita@example.com", f"ATTENDEE;PARTSTAT={partstat}:mailto:guest@elsewhere.example",
              "END:VEVENT", "END:VCALENDAR", ""]
    message = EmailMessage()
    message["From"] = f"Guest <{sender}>"
    message["To"] = "rita@example.com"
    message["Subject"] = f"{partstat.capitalize()}: Design review"
    message.set_content("See the attached answer.")
    message.add_attachment("\r\n".join(lines).encode(), maintype="text", subtype="calendar",
                           params={"method": "REPLY", "charset": "utf-8"})
    return message.as_bytes()


def itip_mail(sender, method, lines, to="rita@example.com"):
    """A mail carrying an iTIP message written here (one VEVENT of `lines`)."""
    body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Guest//EN", f"METHOD:{method}", "BEGIN:VEVENT",
            *lines, "END:VEVENT", "END:VCALENDAR", ""]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = method
    message.set_content("See the attachment.")
    message.add_attachment("\r\n".join(body).encode(), maintype="text", subtype="calendar",
                           params={"method": method, "charset": "utf-8"})
    return message.as_bytes()


def itip_of(raw):
    """The METHOD and text of a captured mail's calendar part."""
    _, parts = calendar_part(raw)
    text = parts["text/calendar"].get_content()
    text = text if isinstance(text, str) else text.decode()
    return parts["text/calendar"].get_param("method"), text.replace("\r\n ", "")


def run(almanac, data):
    sink, controller, port = start_sink()
    for user in ["rita", "sam"]:
        subprocess.run([almanac, "user", "add", user, "--data", data, "--email", f"{user}@example.com"],
                       input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    server = AlmanacServer(almanac, data, "rita", password=PASSWORD, extra=["--smtp", f"smtp://127.0.0.1:{port}"])
    try:
        rita = BasicClient(server.port, "rita", PASSWORD)
        sam = BasicClient(server.port, "sam", PASSWORD)
        dav = rita.request("OPTIONS", "/dav/")[1].get("DAV", "")
        check("calendar-auto-schedule" in dav, f"with a relay, the server advertises implicit scheduling ({dav})")
        check(rita.request("MKCALENDAR", "/dav/calendars/rita/work/")[0] == 201, "Rita's calendar")
        status, _, _ = rita.request("PUT", "/dav/calendars/rita/work/review.ics", MEETING.encode(),
                                    {"Content-Type": "text/calendar"})
        check(status == 201, f"Rita's invitation stored ({status})")
        wait_for(lambda: len(sink.messages) == 1, "the invitation mail")
        mail_from, recipients, raw = sink.messages[0]
        check(mail_from == "rita@example.com" and recipients == ["guest@elsewhere.example"],
              f"one mail, from Rita to the guest only ({mail_from} → {recipients})")
        message, parts = calendar_part(raw)
        check(message.get_content_type() == "multipart/alternative", "multipart/alternative")
        check("Design review" in message["Subject"], f"subject: {message['Subject']}")
        check("text/plain" in parts and "Room 2" in parts["text/plain"].get_content(), "a readable text part")
        calendar = parts["text/calendar"]
        check(calendar.get_param("method") == "REQUEST", "text/calendar; method=REQUEST")
        itip = calendar.get_content() if isinstance(calendar.get_content(), str) else calendar.get_content().decode()
        check("METHOD:REQUEST" in itip and "UID:review@interop" in itip and "RRULE:FREQ=WEEKLY;COUNT=3" in itip,
              "the REQUEST carries the series")
        stored = rita.request("GET", "/dav/calendars/rita/work/review.ics")[2].decode().replace("\r\n ", "")
        check("SCHEDULE-STATUS=1.1:mailto:guest@elsewhere.example" in stored, "the guest's status: sent (1.1)")
        check("SCHEDULE-STATUS=1.2:mailto:sam@example.com" in stored, "Sam's: delivered (1.2)")

        # The guest accepts by mail, through the MTA pipe.
        received = subprocess.run([almanac, "imip", "receive", "--data", data],
                                  input=reply_mail("guest@elsewhere.example", "ACCEPTED"), capture_output=True)
        check(received.returncode == 0 and b"guest@elsewhere.example answered review@interop" in received.stdout,
              f"almanac imip receive applied it: {received.stdout!r} {received.stderr!r}")
        stored = rita.request("GET", "/dav/calendars/rita/work/review.ics")[2].decode().replace("\r\n ", "")
        check("PARTSTAT=ACCEPTED" in stored.split("mailto:guest@elsewhere.example")[0].rsplit("ATTENDEE", 1)[1],
              "Rita's copy has the guest's acceptance")
        forged = subprocess.run([almanac, "imip", "receive", "--data", data],
                                input=reply_mail("mallory@evil.example", "DECLINED"), capture_output=True)
        check(forged.returncode == 1 and b"not the attendee" in forged.stderr, f"a forged answer is refused: {forged.stderr!r}")
        after = rita.request("GET", "/dav/calendars/rita/work/review.ics")[2].decode().replace("\r\n ", "")
        check(after == stored, "and changed nothing")

        # The guest declines the second week through the API (a mail service's webhook).
        request = urllib.request.Request(server.base + "/api/v1/imip", method="POST",
                                         data=reply_mail("guest@elsewhere.example", "DECLINED", "20261215T140000Z"))
        request.add_header("Authorization", "Basic " + base64.b64encode(f"rita:{PASSWORD}".encode()).decode())
        request.add_header("Content-Type", "message/rfc822")
        with urllib.request.urlopen(request) as response:
            applied = json.loads(response.read())["applied"]
        check("20261215T140000Z DECLINED" in applied, f"POST /api/v1/imip applied it: {applied}")
        stored = rita.request("GET", "/dav/calendars/rita/work/review.ics")[2].decode().replace("\r\n ", "")
        check("RECURRENCE-ID:20261215T140000Z" in stored, "the declined week is an override in Rita's copy")
        stray = subprocess.run([almanac, "imip", "receive", "--data", data],
                               input=reply_mail("guest@elsewhere.example", "DECLINED", "20261216T140000Z"),
                               capture_output=True)
        check(stray.returncode == 1 and b"no occurrence" in stray.stderr
              and rita.request("GET", "/dav/calendars/rita/work/review.ics")[2].decode().replace("\r\n ", "") == stored,
              f"an answer for a time the series does not have is refused and adds nothing: {stray.stderr!r}")

        # Sam answers an organizer outside the server: by mail.
        check(sam.request("MKCALENDAR", "/dav/calendars/sam/personal/")[0] == 201, "Sam's calendar")
        sam.request("PUT", "/dav/calendars/sam/personal/offsite.ics", EXTERNAL.encode(), {"Content-Type": "text/calendar"})
        accepted = EXTERNAL.replace("PARTSTAT=NEEDS-ACTION:mailto:sam", "PARTSTAT=ACCEPTED:mailto:sam")
        sam.request("PUT", "/dav/calendars/sam/personal/offsite.ics", accepted.encode(), {"Content-Type": "text/calendar"})
        wait_for(lambda: len(sink.messages) == 2, "Sam's reply mail")
        mail_from, recipients, raw = sink.messages[1]
        _, parts = calendar_part(raw)
        reply = parts["text/calendar"].get_content()
        reply = reply if isinstance(reply, str) else reply.decode()
        check(mail_from == "sam@example.com" and recipients == ["boss@elsewhere.example"]
              and "METHOD:REPLY" in reply and "PARTSTAT=ACCEPTED:mailto:sam@example.com" in reply,
              "Sam's acceptance went to the outside organizer as a REPLY")

        def post_json(client, path, body):
            return client.request("POST", path, json.dumps(body).encode(), {"Content-Type": "application/json"})

        def mail(number, what):
            """The number-th mail the relay was given (from 1), once it is there: sender, recipients, METHOD, text."""
            wait_for(lambda: len(sink.messages) >= number, what)
            sender, recipients, raw = sink.messages[number - 1]
            return (sender, recipients, *itip_of(raw))

        def receive(message):
            # As an MTA pipe runs it: with the relay, to answer a REFRESH by mail.
            return subprocess.run([almanac, "imip", "receive", "--data", data, "--smtp", f"smtp://127.0.0.1:{port}"],
                                  input=message, capture_output=True)

        guest_lines = ["UID:review@interop", "DTSTAMP:20261103T000000Z", "ORGANIZER:mailto:rita@example.com"]
        # The guest lost the invitation and asks for it again.
        refreshed = receive(itip_mail("guest@elsewhere.example", "REFRESH",
                                      guest_lines + ["ATTENDEE:mailto:guest@elsewhere.example"]))
        check(refreshed.returncode == 0 and b"current version" in refreshed.stdout,
              f"a REFRESH is taken: {refreshed.stdout!r} {refreshed.stderr!r}")
        _, recipients, method, text = mail(3, "the refreshed invitation")
        check(recipients == ["guest@elsewhere.example"] and method == "REQUEST" and "RRULE:FREQ=WEEKLY" in text
              and "RECURRENCE-ID:20261215T140000Z" in text, "the REFRESH is answered with the current REQUEST")
        stranger = receive(itip_mail("mallory@evil.example", "REFRESH",
                                     guest_lines + ["ATTENDEE:mailto:mallory@evil.example"]))
        check(stranger.returncode == 1 and len(sink.messages) == 3, "someone not invited gets nothing")

        # The guest proposes 16:00 for the third week; Rita declines with a word.
        def counter(recurrence, start, end, comment):
            lines = guest_lines + ([f"RECURRENCE-ID:{recurrence}"] if recurrence else []) + [
                f"DTSTART:{start}", f"DTEND:{end}", "SUMMARY:Design review", f"COMMENT:{comment}",
                "ATTENDEE;PARTSTAT=TENTATIVE:mailto:guest@elsewhere.example"]
            return receive(itip_mail("guest@elsewhere.example", "COUNTER", lines))

        before = rita.request("GET", "/dav/calendars/rita/work/review.ics")[2]
        proposed = counter("20261222T140000Z", "20261222T160000Z", "20261222T170000Z", "Afternoons suit me")
        check(proposed.returncode == 0 and b"proposed" in proposed.stdout, f"a COUNTER is taken: {proposed.stdout!r}")
        check(rita.request("GET", "/dav/calendars/rita/work/review.ics")[2] == before, "and moves nothing yet")
        calendars = json.loads(rita.request("GET", "/api/v1/calendars")[2])["calendars"]
        work = next(c["id"] for c in calendars if c["title"] == "work" or c.get("name") == "work")
        event = json.loads(rita.request("GET", f"/api/v1/calendars/{work}/events")[2])["events"][0]["id"]
        listed = json.loads(rita.request("GET", f"/api/v1/events/{event}/proposals")[2])["proposals"]
        check(len(listed) == 1 and listed[0]["from"] == "mailto:guest@elsewhere.example"
              and listed[0]["start"] == "2026-12-22T16:00:00Z" and listed[0]["comment"] == "Afternoons suit me",
              f"Rita sees the proposal: {listed}")
        status, _, body = post_json(rita, f"/api/v1/events/{event}/proposals/{listed[0]['id']}",
                                    {"answer": "decline", "comment": "The room is taken"})
        check(status == 200, f"declined ({status} {body[:200]!r})")
        _, recipients, method, text = mail(4, "the DECLINECOUNTER mail")
        check(recipients == ["guest@elsewhere.example"] and method == "DECLINECOUNTER"
              and "RECURRENCE-ID:20261222T140000Z" in text and "COMMENT:The room is taken" in text,
              "the guest got a DECLINECOUNTER for that week with Rita's comment")
        check("Design review" in email.message_from_bytes(sink.messages[3][2], policy=email.policy.default)["Subject"],
              "its subject names the event")

        # A proposal for the whole series, accepted: every attendee gets the new time.
        counter(None, "20261208T150000Z", "20261208T160000Z", "One hour later?")
        listed = json.loads(rita.request("GET", f"/api/v1/events/{event}/proposals")[2])["proposals"]
        status, _, _ = post_json(rita, f"/api/v1/events/{event}/proposals/{listed[0]['id']}", {"answer": "accept"})
        check(status == 200, f"accepted ({status})")
        _, recipients, method, text = mail(5, "the new invitation")
        check(recipients == ["guest@elsewhere.example"] and method == "REQUEST"
              and "DTSTART:20261208T150000Z" in text, "the guest got the REQUEST at the new time")
        stored = rita.request("GET", "/dav/calendars/rita/work/review.ics")[2].decode().replace("\r\n ", "")
        check("DTSTART:20261208T150000Z" in stored and "SEQUENCE:1" in stored, "Rita's copy moved (SEQUENCE 1)")
        check("RECURRENCE-ID:20261215T150000Z" in stored and "RECURRENCE-ID:20261215T140000Z" not in stored,
              "the week the guest declined moved with the series (its RECURRENCE-ID names the new instance)")
        sam_events = json.loads(sam.request("GET", "/api/v1/calendars")[2])["calendars"]
        moved = False
        for calendar in sam_events:
            for item in json.loads(sam.request("GET", f"/api/v1/calendars/{calendar['id']}/events")[2])["events"]:
                if item.get("uid") == "review@interop":
                    moved = item["start"] == "2026-12-08T15:00:00Z"
        check(moved, "Sam's copy moved too")

        # Sam proposes another time to the organizer outside; she declines by mail.
        offsite = next(item for calendar in sam_events
                       for item in json.loads(sam.request("GET", f"/api/v1/calendars/{calendar['id']}/events")[2])["events"]
                       if item.get("uid") == "offsite@elsewhere.example")
        status, _, body = post_json(sam, f"/api/v1/events/{offsite['id']}/proposals",
                                    {"start": "2026-12-10T13:00:00Z", "end": "2026-12-10T14:00:00Z"})
        check(status == 202, f"Sam's proposal sent ({status} {body[:200]!r})")
        mail_from, recipients, method, text = mail(6, "Sam's COUNTER mail")
        check(mail_from == "sam@example.com" and recipients == ["boss@elsewhere.example"] and method == "COUNTER"
              and "DTSTART:20261210T130000Z" in text, "a COUNTER mail to the outside organizer")
        declined = receive(itip_mail("boss@elsewhere.example", "DECLINECOUNTER", [
            "UID:offsite@elsewhere.example", "DTSTAMP:20261104T000000Z", "SEQUENCE:0",
            "ORGANIZER:mailto:boss@elsewhere.example", "ATTENDEE:mailto:sam@example.com"], to="sam@example.com"))
        check(declined.returncode == 0 and b"declined sam's proposal" in declined.stdout,
              f"her DECLINECOUNTER reaches Sam's inbox: {declined.stdout!r} {declined.stderr!r}")
        forged = receive(itip_mail("mallory@evil.example", "DECLINECOUNTER", [
            "UID:offsite@elsewhere.example", "DTSTAMP:20261104T000000Z",
            "ORGANIZER:mailto:boss@elsewhere.example", "ATTENDEE:mailto:sam@example.com"], to="sam@example.com"))
        check(forged.returncode == 1, "one not from the organizer is refused")

        # Rita cancels: the guest is told.
        check(rita.request("DELETE", "/dav/calendars/rita/work/review.ics")[0] == 204, "Rita deletes the review")
        wait_for(lambda: len(sink.messages) == 7, "the cancellation mail")
        _, recipients, raw = sink.messages[6]
        _, parts = calendar_part(raw)
        check(recipients == ["guest@elsewhere.example"] and parts["text/calendar"].get_param("method") == "CANCEL",
              "the guest got METHOD:CANCEL")

        # Display names that try to add a mailbox or a header stay one display name, as
        # Python's strict RFC 5322 parser reads the From header.
        hostile = ['"IT Support <it@victim.example>, Helpdesk"', '"a^\'b\\c <x@y.example>, d"',
                   '"Zoë <boss@victim.example>, Ärger"', '=?UTF-8?B?Ym9zc0B2aWN0aW0uZXhhbXBsZQ==?=']
        for index, name in enumerate(hostile):
            event = MEETING.replace("ORGANIZER;CN=Rita:", f"ORGANIZER;CN={name}:").replace(
                "UID:review@interop", f"UID:hostile-{index}@interop")
            count = len(sink.messages)
            status, _, _ = rita.request("PUT", f"/dav/calendars/rita/work/hostile-{index}.ics", event.encode(),
                                        {"Content-Type": "text/calendar"})
            check(status == 201, f"an invitation with the organizer's name {name} ({status})")
            wait_for(lambda: len(sink.messages) == count + 1, "its mail")
            mail_from, _, raw = sink.messages[count]
            message = email.message_from_bytes(raw, policy=email.policy.default)
            addresses = message["From"].addresses
            check(len(addresses) == 1 and addresses[0].addr_spec == "rita@example.com" and mail_from == "rita@example.com",
                  f"From is one mailbox, Rita's, named {addresses[0].display_name!r} ({message['From']!r})")
            check(not message.defects and all(not part.defects for part in message.walk()),
                  f"the message has no defects: {message.defects}")

        # With the server's own address, the envelope and Sender: are the server's; From stays Rita's.
        server.stop()
        server = AlmanacServer(almanac, data, "rita", password=PASSWORD,
                               extra=["--smtp", f"smtp://127.0.0.1:{port}", "--smtp-from", "calendar@server.example"])
        rita = BasicClient(server.port, "rita", PASSWORD)
        count = len(sink.messages)
        event = MEETING.replace("UID:review@interop", "UID:enveloped@interop")
        check(rita.request("PUT", "/dav/calendars/rita/work/enveloped.ics", event.encode(),
                           {"Content-Type": "text/calendar"})[0] == 201, "an invitation sent with --smtp-from")
        wait_for(lambda: len(sink.messages) == count + 1, "its mail")
        mail_from, _, raw = sink.messages[count]
        message = email.message_from_bytes(raw, policy=email.policy.default)
        check(mail_from == "calendar@server.example" and message["Sender"].addresses[0].addr_spec
              == "calendar@server.example" and message["From"].addresses[0].addr_spec == "rita@example.com",
              f"envelope {mail_from}, Sender {message['Sender']}, From {message['From']}")
    finally:
        server.stop()
        controller.stop()


if __name__ == "__main__":
    main(run, "imip")
