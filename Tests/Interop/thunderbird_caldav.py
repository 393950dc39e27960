#!/usr/bin/env python3
"""Real-client interop: Thunderbird (153 ESR) against `almanac serve`, headless, with a
fresh profile, driven through Marionette in its chrome context (the protocol is
spoken here directly: JSON over TCP, no marionette_driver needed).

Thunderbird's own calendar code does the work, as its "New Calendar" dialog does:

  - Discovery from the bare server URL with cal.provider.detection.detect (the
    dialog's "Find Calendars"): the owner's CalDAV calendars.
  - The password is in the login manager before the calendar is registered
    (origin http://127.0.0.1:PORT, the realm from the server's WWW-Authenticate),
    so no prompt appears; a prompt would fail the next Marionette command
    ("unexpected alert open").
  - The calendar registered with cal.manager.registerCalendar, offline cache on
    (the dialog's default); the first sync waited for (bounded) by polling
    getItemsAsArray with occurrences expanded.
  - What Thunderbird computes (start in UTC and its zone) for the server's events:
    a weekly Berlin series over the March DST change with an EXDATE and an override,
    an all-day event, an alarm, non-ASCII text, all with a VTIMEZONE written by
    the client that PUT them.
  - Writes from Thunderbird (addItem of a weekly Europe/Berlin series over the
    October DST change with an alarm; modifyItem of the whole series, of one
    instance (an override) and removing one instance (an EXDATE); deleteItem),
    each checked on the server through its JSON API's expansion.
  - A change and a deletion on the server reaching Thunderbird on refresh.
  - A read-only share (`almanac calendar share Team --with reader`, in effect at
    once): the sharee discovers it from the bare URL, Thunderbird marks it
    read-only (from DAV:current-user-privilege-set) and reads it; an addItem through
    the API still sends the PUT, the server answers 403 ("Server Replied with
    403"), and neither the server nor Thunderbird's cache keeps the event.
  - Events made through the JSON API with "timeZone": "Europe/Berlin" (whose VTIMEZONE
    the server writes) start where the same wall times PUT with a client-written
    VTIMEZONE start, in winter and in summer. Before issue 34 Thunderbird placed
    2027-03-11 14:30 Berlin at 14:30Z: the server wrote each observance as DTSTART plus
    RDATEs of the later onsets, and ical.js (Timezone._expandComponent) takes an
    observance's DTSTART as an onset only when it has neither RRULE nor RDATE.
    Thunderbird uses the object's VTIMEZONE even for a known IANA TZID.

    .build/client-venv/bin/python Tests/Interop/thunderbird_caldav.py --almanac .build/debug/almanac

Needs the Debian package thunderbird (153 ESR: -remote-allow-system-access is
required for the chrome context). No X server: --headless.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse

from interop_support import check, main
from almanac_server import AlmanacServer, BasicClient
from desktop_scenario import ALARM, ALL_DAY, SERIES, TEAM, add_user, cli, Oracle as Server, ics

DAV = "{DAV:}"

# The API events' wall times, PUT with a client's VTIMEZONE: where they should land.
CLIENT_WINTER = ics("""BEGIN:VEVENT
UID:client-winter@interop
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270311T143000
DTEND;TZID=Europe/Berlin:20270311T153000
SUMMARY:Client Winter
END:VEVENT
""")
CLIENT_SUMMER = CLIENT_WINTER.replace("client-winter", "client-summer").replace("Client Winter", "Client Sommer") \
                             .replace("20270311T", "20270715T")

# What the test asks Thunderbird to create (TZID resolved by its own time zone service).
FROM_THUNDERBIRD = """BEGIN:VEVENT
UID:from-thunderbird@interop
DTSTAMP:20261201T000000Z
DTSTART;TZID=Europe/Berlin:20271018T090000
DTEND;TZID=Europe/Berlin:20271018T100000
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:Neu aus Thunderbird – Ça va? ✓
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Neu
TRIGGER:-PT10M
END:VALARM
END:VEVENT
"""

# Chrome-context JavaScript: every script gets `cal`, the calendar ES modules and a helper
# that lists a calendar's occurrences in a range as plain data.
PRELUDE = """
const resolve = arguments[arguments.length - 1];
const args = Array.from(arguments).slice(0, -1);
const { cal } = ChromeUtils.importESModule("resource:///modules/calendar/calUtils.sys.mjs");
const { CalEvent } = ChromeUtils.importESModule("resource:///modules/CalEvent.sys.mjs");
function calendarNamed(name) {
  const found = cal.manager.getCalendars().filter(c => c.name == name);
  if (found.length != 1) throw new Error(`${found.length} calendars named ${name}`);
  return found[0];
}
async function occurrences(name, from, to) {
  const calendar = calendarNamed(name);
  const items = await calendar.getItemsAsArray(
    Ci.calICalendar.ITEM_FILTER_TYPE_EVENT | Ci.calICalendar.ITEM_FILTER_CLASS_OCCURRENCES, 0,
    cal.createDateTime(from), cal.createDateTime(to));
  return items.map(item => ({
    id: item.id, title: item.title,
    start: item.startDate.isDate ? item.startDate.icalString
                                 : item.startDate.getInTimezone(cal.dtz.UTC).icalString,
    wall: item.startDate.icalString, zone: item.startDate.timezone.tzid, allDay: item.startDate.isDate,
    recurrenceId: item.recurrenceId ? item.recurrenceId.icalString : null,
    alarms: item.getAlarms().map(a => a.offset ? a.offset.icalString : null),
    location: item.getProperty("LOCATION"), description: item.getProperty("DESCRIPTION"),
  })).sort((a, b) => (a.start + a.title).localeCompare(b.start + b.title));
}
"""


class Marionette:
    """The Marionette protocol: length-prefixed JSON; commands [0, id, name, params], answers [1, id, error, result]."""

    def __init__(self, port, process, seconds=90):
        deadline = time.time() + seconds
        while True:
            if process.poll() is not None:
                raise SystemExit(f"FAIL: Thunderbird exited ({process.returncode}) before Marionette answered")
            try:
                self.socket = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if time.time() > deadline:
                    raise SystemExit("FAIL: Marionette did not listen within 90 seconds")
                time.sleep(0.3)
        self.socket.settimeout(120)
        self.buffer = b""
        self.next_id = 0
        hello = self.read()
        if hello.get("marionetteProtocol") != 3:
            raise SystemExit(f"FAIL: unexpected Marionette greeting {hello}")

    def read(self):
        while b":" not in self.buffer:
            self.receive()
        length, rest = self.buffer.split(b":", 1)
        self.buffer = rest
        while len(self.buffer) < int(length):
            self.receive()
        message, self.buffer = self.buffer[:int(length)], self.buffer[int(length):]
        return json.loads(message)

    def receive(self):
        chunk = self.socket.recv(65536)
        if not chunk:
            raise SystemExit("FAIL: Marionette closed the connection")
        self.buffer += chunk

    def call(self, name, params=None):
        self.next_id += 1
        data = json.dumps([0, self.next_id, name, params or {}]).encode()
        self.socket.sendall(str(len(data)).encode() + b":" + data)
        while True:
            answer = self.read()
            if answer[0] == 1 and answer[1] == self.next_id:
                if answer[2]:
                    raise SystemExit(f"FAIL: Marionette {name}: {answer[2].get('error')}: {answer[2].get('message')}")
                return answer[3]

    def js(self, body, *args):
        """Runs an async chrome-context function body; its return value (JSON), or FAIL with the exception."""
        script = PRELUDE + "(async () => {\n" + body + "\n})().then(value => resolve({value}), " \
                 "error => resolve({error: String(error) + '\\n' + (error && error.stack)}));"
        answer = self.call("WebDriver:ExecuteAsyncScript", {"script": script, "args": list(args)})["value"]
        if "error" in answer:
            raise SystemExit(f"FAIL: Thunderbird's JavaScript threw: {answer['error']}")
        return answer.get("value")


class Thunderbird:
    """A headless Thunderbird with a fresh profile in `root`, Marionette on a free loopback port."""

    def __init__(self, root):
        binary = shutil.which("thunderbird")
        if not binary:
            raise SystemExit("FAIL: thunderbird is not installed (apt-get install thunderbird)")
        profile = os.path.join(root, "profile")
        os.makedirs(profile)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with open(os.path.join(profile, "user.js"), "w") as handle:
            for name, value in [("marionette.port", port), ("mail.shell.checkDefaultClient", False),
                                ("mail.provider.suppress_dialog_on_startup", True),
                                ("datareporting.policy.dataSubmissionEnabled", False), ("app.update.auto", False),
                                ("toolkit.telemetry.reportingpolicy.firstRun", False),
                                ("calendar.timezone.useSystemTimezone", False),
                                ("calendar.timezone.local", "Europe/Berlin"),
                                ("network.proxy.type", 0)]:
                handle.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        home = os.path.join(root, "home")
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
               "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
               "TZ": "Europe/Berlin", "MOZ_HEADLESS": "1", "LC_ALL": "C.UTF-8"}
        env.pop("DISPLAY", None)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        self.log = open(os.path.join(root, "thunderbird.log"), "w")
        # A session of its own, so that stop() can end Thunderbird and every content process it started.
        self.process = subprocess.Popen([binary, "--headless", "--marionette", "-remote-allow-system-access",
                                         "--no-remote", "--profile", profile],
                                        env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.marionette = Marionette(port, self.process)
        session = self.marionette.call("WebDriver:NewSession", {"capabilities": {}})
        self.version = session["capabilities"]["browserVersion"]
        self.marionette.call("Marionette:SetContext", {"value": "chrome"})
        self.marionette.call("WebDriver:SetTimeouts", {"script": 90000})

    def js(self, body, *args):
        return self.marionette.js(body, *args)

    def stop(self):
        try:
            self.marionette.call("Marionette:Quit", {"flags": ["eForceQuit"]})
        except (SystemExit, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        try:  # whatever is left of the session it started (content processes)
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.process.poll() is None:
            self.process.wait(timeout=10)
        self.log.close()


def brief(occurrences):
    return [f"{o['start']} {o['title']}" for o in occurrences]


def run(almanac, data):
    store = os.path.join(data, "store")
    owner_password = add_user(almanac, store, "owner", "owner@example.com")
    reader_password = add_user(almanac, store, "reader", "reader@example.com")
    for title in ["Work", "Team"]:
        cli(almanac, store, "calendar", "create", title, "--tz", "Europe/Berlin", "--user", "owner")
    cli(almanac, store, "calendar", "share", "Team", "--with", "reader", "--access", "read", "--user", "owner")
    work_id = re.search(r"Identifier:\s+(\S+)", cli(almanac, store, "calendar", "show", "Work", "--user", "owner")).group(1)

    server = AlmanacServer(almanac, store, "owner", password=owner_password)
    thunderbird = None
    try:
        owner = Server(server, "owner", owner_password)
        url = server.base + "/"
        _, headers, _ = BasicClient(server.port, "nobody", "wrong").request("PROPFIND", "/dav/")
        realm = re.search(r'realm="([^"]*)"', headers.get("WWW-Authenticate", "")).group(1)

        thunderbird = Thunderbird(os.path.join(data, "thunderbird"))
        check(thunderbird.version.startswith("153."), f"Thunderbird {thunderbird.version}, headless, Marionette in chrome context")

        # Discovery from the bare URL, as the New Calendar dialog's "Find Calendars".
        discover = """
const [url, user, password] = args;
const found = await cal.provider.detection.detect(user, password, url, false, [], {});
const out = [];
for (const [provider, calendars] of found) {
  for (const calendar of calendars) out.push([provider.type, calendar.name, calendar.uri.spec]);
}
return out.sort();
"""
        found = thunderbird.js(discover, url, "owner", owner_password)
        check([(kind, name) for kind, name, _ in found] == [("caldav", "Team"), ("caldav", "Work")],
              f"Thunderbird discovers the owner's calendars from the bare server URL: {found}")
        paths = {name: urllib.parse.urlsplit(uri).path for _, name, uri in found}

        for name, text in [("weekly", SERIES), ("allday", ALL_DAY), ("alarm", ALARM),
                           ("client-winter", CLIENT_WINTER), ("client-summer", CLIENT_SUMMER)]:
            check(owner.put(f"{paths['Work']}{name}.ics", text) == 201, f"{name} written on the server with CalDAV")
        api = [owner.event({"calendarId": work_id, "title": title, "start": start, "end": end, "timeZone": "Europe/Berlin"})
               for title, start, end in [("API Winter", "2027-03-11T14:30:00", "2027-03-11T15:30:00"),
                                         ("API Sommer", "2027-07-15T14:30:00", "2027-07-15T15:30:00")]]
        check(owner.put(f"{paths['Team']}team.ics", TEAM) == 201, "an event in the calendar to be shared")

        # The password in the login manager first, so the CalDAV requests find it and nothing prompts.
        subscribe = """
const [url, user, password, realm, name] = args;
const login = Cc["@mozilla.org/login-manager/loginInfo;1"].createInstance(Ci.nsILoginInfo);
login.init(url.replace(/\\/$/, ""), null, realm, user, password, "", "");
await Services.logins.addLoginAsync(login);
const found = await cal.provider.detection.detect(user, password, url, false, [], {});
const calendar = [...found.values()].flat().find(c => c.name == name);
if (!calendar.getProperty("cache.always")) {
  calendar.setProperty("cache.enabled", calendar.getProperty("cache.supported") !== false);
}
cal.manager.registerCalendar(calendar);
return [calendar.type, calendar.getProperty("username"), calendar.getProperty("cache.enabled")];
"""
        registered = thunderbird.js(subscribe, url, "owner", owner_password, realm, "Work")
        check(registered == ["caldav", "owner", True], f"the Work calendar registered with its login and offline cache: {registered}")

        def wait_for_items(name, count, what, start="20270101T000000Z", end="20280101T000000Z", until=None):
            """Polls (bounded) until Thunderbird has `count` occurrences and, when given,
            `until(occurrences)` holds: a refresh applies its changes one item at a time."""
            deadline = time.time() + 60
            last = time.time()
            while time.time() < deadline:
                seen = thunderbird.js("return await occurrences(...args);", name, start, end)
                if len(seen) == count and (until is None or until(seen)):
                    return seen
                if time.time() - last > 5:  # ask for a sync again now and then
                    thunderbird.js("calendarNamed(args[0]).refresh(); return null;", name)
                    last = time.time()
                time.sleep(0.5)
            raise SystemExit(f"FAIL: timed out waiting for {what}: {brief(seen)}")

        seen = wait_for_items("Work", 10, "Thunderbird's first sync")
        check(thunderbird.js("return calendarNamed('Work').readOnly;") is False,
              "Thunderbird keeps the owner's calendar writable")
        mine = [o for o in seen if not o["title"].startswith("API ")]
        check(brief(mine) == ["20270311T133000Z Chorprobe",
                              "20270311T133000Z Client Winter",
                              "20270312T080000Z Café ☕ Zürich – Grüße",
                              "20270325T133000Z Chorprobe",
                              "20270329 Ostermontag",
                              "20270401T150000Z Chorprobe (verlegt)",   # the override, 17:00 summer time
                              "20270408T123000Z Chorprobe",             # 14:30 summer time
                              "20270715T123000Z Client Sommer"],
              "Thunderbird's occurrences (UTC) of the series over the DST change with its EXDATE and override, the "
              f"all-day event and the client-zoned events: {brief(mine)}")
        check({o["zone"] for o in mine if not o["allDay"]} == {"Europe/Berlin"} and
              [o["allDay"] for o in mine if o["title"] == "Ostermontag"] == [True], "in Europe/Berlin; the all-day one a date")
        cafe = next(o for o in mine if o["title"].startswith("Café"))
        check(cafe["alarms"] == ["-PT15M"], f"Thunderbird reads the alarm: {cafe['alarms']}")
        check(cafe["location"] == "Bahnhofstraße 1, Zürich" and cafe["description"] == "Zeile eins\nZeile zwei: ½ € 日本",
              f"non-ASCII location and two-line description: {cafe['location']!r} {cafe['description']!r}")
        api_seen = [o for o in seen if o["title"].startswith("API ")]
        print("info: Thunderbird places the API's events at "
              + ", ".join(f"{o['title']}: {o['wall']} {o['zone']} = {o['start']}" for o in api_seen), flush=True)

        # Writes from Thunderbird.
        create = """
const [name, text] = args;
const item = new CalEvent(text);
const added = await calendarNamed(name).addItem(item);
return [added.id, added.startDate.timezone.tzid];
"""
        created = thunderbird.js(create, "Work", FROM_THUNDERBIRD)
        check(created == ["from-thunderbird@interop", "Europe/Berlin"], f"Thunderbird added an event: {created}")
        stored = owner.objects(paths["Work"]).get("from-thunderbird@interop", "")
        check("DTSTART;TZID=Europe/Berlin:20271018T090000" in stored and "TZID:Europe/Berlin" in stored
              and "TRIGGER:-PT10M" in stored and "SUMMARY:Neu aus Thunderbird – Ça va? ✓" in stored,
              "the server stored Thunderbird's event with its VTIMEZONE and alarm" + ("" if stored else " (nothing stored)"))
        check(owner.occurrences(work_id, "Neu aus Thunderbird") ==
              [("2027-10-18T07:00:00Z", "Neu aus Thunderbird – Ça va? ✓"), ("2027-10-25T07:00:00Z", "Neu aus Thunderbird – Ça va? ✓"),
               ("2027-11-01T08:00:00Z", "Neu aus Thunderbird – Ça va? ✓")],
              "the server expands it in Thunderbird's zone over the change to winter time: "
              f"{owner.occurrences(work_id, 'Neu aus Thunderbird')}")

        modify = """
const [name, id, change] = args;
const calendar = calendarNamed(name);
const old = await calendar.getItem(id);
const item = old.clone();
if (change == "title") {
  item.title = "Geändert in Thunderbird";
} else if (change == "move") {           // 25 October to 11:00: an exception (override)
  const rid = cal.createDateTime("20271025T090000");
  rid.timezone = item.startDate.timezone;
  const occurrence = item.recurrenceInfo.getOccurrenceFor(rid).clone();
  occurrence.title = "Geändert in Thunderbird (verschoben)";
  const start = occurrence.startDate.clone(); start.hour = 11; occurrence.startDate = start;
  const end = occurrence.endDate.clone(); end.hour = 12; occurrence.endDate = end;
  item.recurrenceInfo.modifyException(occurrence, true);
} else if (change == "exclude") {        // 1 November removed: an EXDATE
  const rid = cal.createDateTime("20271101T090000");
  rid.timezone = item.startDate.timezone;
  item.recurrenceInfo.removeOccurrenceAt(rid);
}
await calendar.modifyItem(item, old);
return true;
"""
        thunderbird.js(modify, "Work", "from-thunderbird@interop", "title")
        check([t for _, t in owner.occurrences(work_id, "in Thunderbird")] == ["Geändert in Thunderbird"] * 3,
              "a change to the whole series reached the server")
        thunderbird.js(modify, "Work", "from-thunderbird@interop", "move")
        stored = owner.objects(paths["Work"])["from-thunderbird@interop"]
        check("RECURRENCE-ID;TZID=Europe/Berlin:20271025T090000" in stored, "the moved instance is an override on the server")
        check(owner.occurrences(work_id, "in Thunderbird") == [("2027-10-18T07:00:00Z", "Geändert in Thunderbird"),
                                                               ("2027-10-25T09:00:00Z", "Geändert in Thunderbird (verschoben)"),
                                                               ("2027-11-01T08:00:00Z", "Geändert in Thunderbird")],
              f"the server places it at 11:00 summer time: {owner.occurrences(work_id, 'in Thunderbird')}")
        thunderbird.js(modify, "Work", "from-thunderbird@interop", "exclude")
        stored = owner.objects(paths["Work"])["from-thunderbird@interop"]
        check("EXDATE" in stored and [s for s, _ in owner.occurrences(work_id, "in Thunderbird")] ==
              ["2027-10-18T07:00:00Z", "2027-10-25T09:00:00Z"],
              f"removing one instance in Thunderbird is an EXDATE on the server: {owner.occurrences(work_id, 'in Thunderbird')}")
        thunderbird.js("""const calendar = calendarNamed(args[0]);
await calendar.deleteItem(await calendar.getItem(args[1])); return true;""", "Work", "from-thunderbird@interop")
        check("from-thunderbird@interop" not in owner.objects(paths["Work"]), "deleting it in Thunderbird deleted it on the server")

        # Changes on the server reach Thunderbird.
        check(owner.put(f"{paths['Work']}alarm.ics", ALARM.replace("Café ☕ Zürich – Grüße", "Café ☕ Zürich (abgesagt)")) == 204,
              "the alarm event changed on the server")
        check(owner.http.request("DELETE", f"{paths['Work']}allday.ics")[0] == 204, "the all-day event deleted on the server")
        thunderbird.js("calendarNamed('Work').refresh(); return null;")
        seen = wait_for_items("Work", 9, "the server's changes in Thunderbird",
                              until=lambda seen: any(o["title"] == "Café ☕ Zürich (abgesagt)" for o in seen))
        titles = [o["title"] for o in seen]
        check("Café ☕ Zürich (abgesagt)" in titles and "Ostermontag" not in titles and "Café ☕ Zürich – Grüße" not in titles,
              f"Thunderbird's refresh brought the server's edit and deletion: {titles}")

        # An app password limited to Work: Thunderbird's discovery finds Work alone.
        made = cli(almanac, store, "token", "create", "thunderbird", "--app-password", "--scope", "read-write",
                   "--calendar", "Work", "--user", "owner")
        limited = thunderbird.js(discover, url, "owner", re.search(r"alm_\S+", made).group(0))
        check([(kind, name) for kind, name, _ in limited] == [("caldav", "Work")],
              f"with an app password limited to Work, Thunderbird discovers Work alone: {limited}")

        # The read-only share, as its sharee sees it, signed in with a read-only app password.
        made = cli(almanac, store, "token", "create", "thunderbird", "--app-password", "--scope", "read", "--user", "reader")
        reader_password = re.search(r"alm_\S+", made).group(0)
        shared = thunderbird.js(discover, url, "reader", reader_password)
        check([(kind, name) for kind, name, _ in shared] == [("caldav", "Team")],
              f"the sharee discovers the shared calendar from the bare URL: {shared}")
        registered = thunderbird.js(subscribe, url, "reader", reader_password, realm, "Team")
        check(registered[1] == "reader", f"the shared calendar registered with the sharee's login: {registered}")
        seen = wait_for_items("Team", 1, "the shared calendar's first sync", "20270401T000000Z", "20270501T000000Z")
        check(brief(seen) == ["20270406T080000Z Teamrunde"], f"the sharee reads the owner's event: {brief(seen)}")
        check(thunderbird.js("return calendarNamed('Team').readOnly;") is True,
              "Thunderbird marks the shared calendar read-only (DAV:current-user-privilege-set without write)")
        refused = thunderbird.js("""
try {
  await calendarNamed('Team').addItem(new CalEvent(args[0]));
  return null;
} catch (error) {
  return String(error && (error.message || error.result || error));
}""", "BEGIN:VEVENT\r\nUID:sharee@interop\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20270407T080000Z\r\n"
       "DTEND:20270407T090000Z\r\nSUMMARY:Sharee's own\r\nEND:VEVENT\r\n")
        check(refused is not None, f"Thunderbird refuses a write to the read-only calendar: {refused}")
        check(sorted(owner.objects(paths["Team"])) == ["team@interop"], "and nothing was stored")
        after = thunderbird.js("return await occurrences(...args);", "Team", "20270401T000000Z", "20270501T000000Z")
        check(brief(after) == ["20270406T080000Z Teamrunde"], f"and Thunderbird keeps no local copy of it: {brief(after)}")

        # The JSON API's Europe/Berlin events (the server's own VTIMEZONE) against the same wall times PUT
        # with a client's VTIMEZONE.
        seen = thunderbird.js("return await occurrences(...args);", "Work", "20270101T000000Z", "20280101T000000Z")
        starts = {o["title"]: o["start"] for o in seen}
        stored = owner.objects(paths["Work"])[api[0]["uid"]]
        zone = stored[stored.index("BEGIN:VTIMEZONE"):stored.index("END:VTIMEZONE")].replace("\n", " | ")
        pairs = [("API Winter", "Client Winter"), ("API Sommer", "Client Sommer")]
        check(all(starts.get(a) == starts.get(c) for a, c in pairs),
              "Thunderbird starts the JSON API's Europe/Berlin events where the same wall times PUT with a client "
              "VTIMEZONE start: " + "; ".join(f"{a} {starts.get(a)} vs {c} {starts.get(c)}" for a, c in pairs)
              + f"; the server's VTIMEZONE: {zone}")
    finally:
        if thunderbird:
            thunderbird.stop()
        server.stop()


if __name__ == "__main__":
    main(run, "thunderbird interop")
