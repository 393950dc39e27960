"""What the desktop-client interop tests (Thunderbird, Evolution Data Server, calcurse)
share: the objects they put on the server before the client's first sync (the same
scenario for each, so their results compare) and the oracle they check the server with."""
import json
import re
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET

from almanac_server import BasicClient

DAV = "{DAV:}"
CALDAV = "{urn:ietf:params:xml:ns:caldav}"

BERLIN = """BEGIN:VTIMEZONE
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
"""


def ics(body, zone=True):
    return ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Interop//EN\n" + (BERLIN if zone else "") + body
            + "END:VCALENDAR\n").replace("\n", "\r\n")


# Weekly from 11 March 2027 over the change to summer time (28 March): 18 March excluded, 1 April moved to 17:00.
SERIES = ics("""BEGIN:VEVENT
UID:weekly@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270311T143000
DTEND;TZID=Europe/Berlin:20270311T153000
RRULE:FREQ=WEEKLY;COUNT=5
EXDATE;TZID=Europe/Berlin:20270318T143000
SUMMARY:Chorprobe
END:VEVENT
BEGIN:VEVENT
UID:weekly@interop
DTSTAMP:20261101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20270401T143000
DTSTART;TZID=Europe/Berlin:20270401T170000
DTEND;TZID=Europe/Berlin:20270401T180000
SUMMARY:Chorprobe (verlegt)
END:VEVENT
""")

ALL_DAY = ics("""BEGIN:VEVENT
UID:allday@interop
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20270329
DTEND;VALUE=DATE:20270330
SUMMARY:Ostermontag
END:VEVENT
""", zone=False)

ALARM = ics("""BEGIN:VEVENT
UID:alarm@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270312T090000
DTEND;TZID=Europe/Berlin:20270312T100000
SUMMARY:Café ☕ Zürich – Grüße
LOCATION:Bahnhofstraße 1, Zürich
DESCRIPTION:Zeile eins\\nZeile zwei: ½ € 日本
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Café
TRIGGER:-PT15M
END:VALARM
END:VEVENT
""")

TEAM = ics("""BEGIN:VEVENT
UID:team@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270406T100000
DTEND;TZID=Europe/Berlin:20270406T110000
SUMMARY:Teamrunde
END:VEVENT
""")


def add_user(almanac, data, name, email=None):
    """Adds a user (with an e-mail address, when given); returns the generated password."""
    result = subprocess.run([almanac, "user", "add", name, "--generate", "--data", data,
                             *(["--email", email] if email else [])], capture_output=True, text=True, check=True)
    return re.search(r"Password: (\S+)", result.stdout).group(1)


def cli(almanac, data, *arguments):
    """Runs an almanac command on the test's data directory; its output, or FAIL."""
    result = subprocess.run([almanac, *arguments, "--data", data], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: almanac {' '.join(arguments)}: {result.stdout}{result.stderr}")
    return result.stdout


class Oracle:
    """The server through plain CalDAV and the JSON API: each test's own oracle."""

    def __init__(self, server, user, password):
        self.http = BasicClient(server.port, user, password)
        self.user = user

    def put(self, path, text):
        return self.http.request("PUT", path, text.encode(), {"Content-Type": "text/calendar; charset=utf-8"})[0]

    def stored(self, path):
        """href → unfolded calendar data of every object in the calendar."""
        status, _, body = self.http.request(
            "REPORT", path,
            b'<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/></D:prop>'
            b'<C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>',
            {"Depth": "1", "Content-Type": "application/xml"})
        assert status == 207, status
        return {urllib.parse.unquote(r.findtext(DAV + "href")):
                re.sub(r"\r?\n[ \t]", "", r.findtext(f".//{CALDAV}calendar-data")).replace("\r\n", "\n")
                for r in ET.fromstring(body).iter(DAV + "response")}

    def objects(self, path):
        """UID → unfolded calendar data of every object in the calendar."""
        return {re.search(r"^UID:(.*)$", text, re.M).group(1): text for text in self.stored(path).values()}

    def event(self, body):
        status, _, answer = self.http.request("POST", "/api/v1/events", json.dumps(body).encode(),
                                              {"Content-Type": "application/json"})
        assert status == 201, (status, answer)
        return json.loads(answer)

    def occurrences(self, calendar_id, title, start="2027-01-01T00:00:00Z", end="2028-01-01T00:00:00Z"):
        """(start, title) of each instance titled `title` in the window, by the server's expansion."""
        status, _, body = self.http.request(
            "GET", f"/api/v1/calendars/{calendar_id}/occurrences?from={start}&to={end}&title={urllib.parse.quote(title)}")
        assert status == 200, status
        return [(o["start"], o["title"]) for o in json.loads(body)["occurrences"]]
