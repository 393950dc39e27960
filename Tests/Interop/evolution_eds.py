#!/usr/bin/env python3
"""Real-client interop: Evolution Data Server (3.46, the store behind Evolution and
GNOME Calendar) against `almanac serve`, driven through GObject introspection
(EDataServer 1.2, ECal 2.0, ICalGLib 3.0).

Everything EDS runs is private to the test: a dbus-daemon of its own (EDS's
evolution-source-registry and evolution-calendar-factory are activated on it), a
temporary HOME and XDG directories, GSETTINGS_BACKEND=memory. No password is
stored: when the CalDAV backend asks for credentials (the source's
"credentials-required" signal), the test answers with e_source_invoke_authenticate,
as Evolution's password prompt does.

  - Discovery from the bare server URL (e_webdav_discover_sources, Evolution's
    "Find Calendars"): the owner's calendars and their calendar-user address.
  - A CalDAV source (parent caldav-stub, backend "caldav", the WebDAV extension
    with the discovered URL) opened with ECalClient: writable, and what EDS
    expands (e_cal_client_generate_instances) from the server's events: a weekly
    Berlin series over the March DST change with an EXDATE and an override, an
    all-day event, an alarm, non-ASCII summary, location and description, and
    events made through the JSON API with "timeZone": "Europe/Berlin" (the
    server's own VTIMEZONE), one in winter and one in summer time.
  - Writes from EDS as Evolution makes them (the component names libical's
    builtin /freeassociation.sourceforge.net/Europe/Berlin; EDS sends it as
    TZID=Europe/Berlin with a VTIMEZONE cut from libical's, X-LIC-LOCATION
    included): a weekly series over the October DST change with an alarm, then a
    change to the whole series, one instance moved (ObjModType.THIS: an override),
    one instance removed (an EXDATE), and the event deleted; the server's
    expansion (JSON API occurrences) is checked after each.
  - Changes on the server reaching EDS on refresh: an edit and a deletion.
  - A read-only share (`almanac calendar share Team --with reader`, in effect at
    once): the sharee discovers it from the bare URL; the server's
    current-user-privilege-set gives read without write, so EDS opens it
    read-only, reads the owner's event, and refuses a create itself ("Permission
    denied": EDS never sends the PUT); nothing is stored.

    /usr/bin/python3 Tests/Interop/evolution_eds.py --almanac .build/debug/almanac

Needs the Debian packages evolution-data-server, gir1.2-ecal-2.0,
gir1.2-edataserver-1.2, python3-gi and dbus-daemon (dbus-bin / dbus). The
bindings exist only for Debian's python3: run with another interpreter, the script
starts itself again under /usr/bin/python3.
"""
import os
import sys

try:
    import gi
    gi.require_version("EDataServer", "1.2")
    gi.require_version("ECal", "2.0")
    gi.require_version("ICalGLib", "3.0")
except (ImportError, ValueError):
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__), *sys.argv[1:]])
    raise SystemExit("FAIL: needs python3-gi, gir1.2-ecal-2.0 and gir1.2-edataserver-1.2")

import calendar as calendars
import re
import signal
import subprocess
import time
import urllib.parse
import xml.etree.ElementTree as ET

from interop_support import check, main
from almanac_server import AlmanacServer
from desktop_scenario import ALARM, ALL_DAY, SERIES, TEAM, add_user, cli, Oracle

DAV = "{DAV:}"

# As Evolution writes a new event: libical's own zone and TZID; weekly over the change to winter time (31 October).
FROM_EDS = """BEGIN:VEVENT
UID:from-eds@interop
DTSTAMP:20261201T000000Z
DTSTART;TZID=/freeassociation.sourceforge.net/Europe/Berlin:20271018T090000
DTEND;TZID=/freeassociation.sourceforge.net/Europe/Berlin:20271018T100000
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:Neu aus Evolution – Ça va? ✓
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Neu
TRIGGER:-PT10M
END:VALARM
END:VEVENT
"""


def utc(year, month, day):
    return calendars.timegm((year, month, day, 0, 0, 0, 0, 0, 0))


class Server(Oracle):
    """The oracle, and what EDS is told of a collection's privileges."""

    def privileges(self, path):
        """The DAV:current-user-privilege-set of a collection, as local names."""
        status, _, body = self.http.request(
            "PROPFIND", path, b"<D:propfind xmlns:D='DAV:'><D:prop><D:current-user-privilege-set/></D:prop></D:propfind>",
            {"Depth": "0", "Content-Type": "application/xml"})
        assert status == 207, status
        found = ET.fromstring(body).find(f".//{DAV}current-user-privilege-set")
        return sorted(child.tag.split("}")[1] for privilege in found for child in privilege)


class PrivateBus:
    """A dbus-daemon of the test's own, its address in this process's environment; stop() ends every
    process connected to it (the EDS services it activated), then the daemon."""

    def __init__(self, env):
        self.process = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                        start_new_session=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            raise SystemExit("FAIL: dbus-daemon printed no address")
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = self.address

    def connection(self):
        """This process's connection to the bus (GLib's shared one, which EDS's client side uses too), told not
        to raise SIGTERM in this process when the bus goes away (GDBus's exit-on-close)."""
        from gi.repository import Gio
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        bus.set_exit_on_close(False)
        return bus

    def peers(self):
        from gi.repository import Gio, GLib
        bus = self.connection()
        names = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames",
                              None, GLib.VariantType("(as)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        pids = set()
        for name in names:
            if name.startswith(":"):
                try:
                    pids.add(bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                           "GetConnectionUnixProcessID", GLib.Variant("(s)", (name,)),
                                           GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()[0])
                except GLib.Error:
                    pass
        return pids - {os.getpid(), self.process.pid}

    def stop(self):
        try:
            pids = self.peers()
        except Exception as failure:  # the bus is gone already; its children notice by themselves
            print(f"note: could not list the bus's peers: {failure}")
            pids = set()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        # Wait (bounded) while the daemon, their parent, is still there to reap them; then end it.
        deadline = time.time() + 10
        for pid in pids:
            while time.time() < deadline and os.path.exists(f"/proc/{pid}"):
                time.sleep(0.05)
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.process.terminate()
        self.process.wait(timeout=10)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie whose parent (the bus) is gone is reaped by init; treat it as gone
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


class EDS:
    """The EDS client side: the source registry, discovery, and calendars opened as Evolution opens them."""

    def __init__(self):
        from gi.repository import ECal, EDataServer, GLib, ICalGLib
        self.E, self.ECal, self.GLib, self.ICal = EDataServer, ECal, GLib, ICalGLib
        self.context = GLib.MainContext.default()
        self.registry = EDataServer.SourceRegistry.new_sync(None)
        self.berlin = ICalGLib.Timezone.get_builtin_timezone("Europe/Berlin")

    def pump(self, condition, what, seconds=40, every=None):
        """Runs the main loop until condition() holds (bounded); every=(interval, action) repeats an action."""
        deadline = time.time() + seconds
        last = time.time()
        while time.time() < deadline:
            while self.context.pending():
                self.context.iteration(False)
            if condition():
                return
            if every and time.time() - last >= every[0]:
                every[1]()
                last = time.time()
            time.sleep(0.05)
        raise SystemExit("FAIL: timed out waiting for " + what)

    def credentials(self, user, password):
        credentials = self.E.NamedParameters.new()
        credentials.set(self.E.SOURCE_CREDENTIAL_USERNAME, user)
        credentials.set(self.E.SOURCE_CREDENTIAL_PASSWORD, password)
        return credentials

    def discover(self, url, user, password):
        """e_webdav_discover_sources from a URL: ([(display name, href, supports events)], calendar-user addresses)."""
        probe = self.E.Source.new(None, None)
        probe.get_extension(self.E.SOURCE_EXTENSION_AUTHENTICATION).set_user(user)
        answer = self.E.webdav_discover_sources_sync(probe, url, self.E.WebDAVDiscoverSupports.EVENTS,
                                                     self.credentials(user, password), None)
        found = [(s.display_name, s.href, bool(s.supports & self.E.WebDAVDiscoverSupports.EVENTS))
                 for s in answer.out_discovered_sources]
        return sorted(found), list(answer.out_calendar_user_addresses)

    def open(self, name, href, user, password):
        """A new CalDAV source committed to the registry and opened as an ECalClient; credentials are given
        when the backend asks for them (at most three times, so a refused password cannot loop)."""
        E = self.E
        source = E.Source.new(None, None)
        source.set_parent("caldav-stub")
        source.set_display_name(name)
        source.get_extension(E.SOURCE_EXTENSION_CALENDAR).set_backend_name("caldav")
        uri = self.GLib.Uri.parse(href, self.GLib.UriFlags.NONE)
        authentication = source.get_extension(E.SOURCE_EXTENSION_AUTHENTICATION)
        authentication.set_host(uri.get_host())
        authentication.set_port(uri.get_port())
        authentication.set_user(user)
        authentication.set_method("plain/password")
        authentication.set_remember_password(False)
        source.get_extension(E.SOURCE_EXTENSION_SECURITY).set_method("none")
        source.get_extension(E.SOURCE_EXTENSION_WEBDAV_BACKEND).set_uri(uri)
        source.get_extension(E.SOURCE_EXTENSION_OFFLINE).set_stay_synchronized(True)
        self.registry.commit_source_sync(source, None)
        self.pump(lambda: self.registry.ref_source(source.get_uid()) is not None, f"the registry to list {name}", 20)
        live = self.registry.ref_source(source.get_uid())
        credentials = self.credentials(user, password)
        asked = []

        def required(source, reason, certificate, errors, error):
            asked.append(reason)
            if len(asked) <= 3:
                source.invoke_authenticate(credentials, None, None, None)

        live.connect("credentials-required", required)
        # Asynchronously, with this main loop running: the credentials-required signal is delivered here, so
        # connect_sync would wait out its whole timeout before the credentials could be given.
        # The calendar factory keeps its own copy of the registry: a source just committed here can be
        # unknown to it for a moment ("No such source for UID"). That answer is retried, a few times.
        connected, refused = [], []

        def finished(_, result):
            try:
                connected.append(self.ECal.Client.connect_finish(result))
            except self.GLib.Error as error:
                refused.append(error)

        for attempt in range(5):
            refused.clear()
            self.ECal.Client.connect(live, self.ECal.ClientSourceType.EVENTS, 30, None, finished)
            self.pump(lambda: connected or refused, f"ECalClient to open {name}", 40)
            if connected or "No such source" not in refused[0].message:
                break
            settle = time.time() + 0.5 * (attempt + 1)
            while time.time() < settle:
                while self.context.pending():
                    self.context.iteration(False)
                time.sleep(0.05)
        if not connected:
            raise SystemExit(f"FAIL: ECalClient could not open {name}: {refused[0].message}")
        client = connected[0]
        client.set_default_timezone(self.berlin)
        self.pump(lambda: live.get_connection_status() == E.SourceConnectionStatus.CONNECTED,
                  f"{name} to connect (asked for credentials {len(asked)} times)", 30)
        return client, live, asked

    def components(self, client):
        """UID (with ;RECURRENCE-ID for an override) → ECalComponent, as the cache has them."""
        ok, found = client.get_object_list_as_comps_sync("#t", None)
        return {c.get_uid() + (";" + c.get_recurid_as_string() if c.get_recurid_as_string() else ""): c for c in found}

    def instances(self, client, start, end):
        """What EDS expands in [start, end): 'YYYY-MM-DDTHH:MM:SSZ summary' for timed instances (via their own
        zone), 'YYYY-MM-DD all-day summary' for all-day ones."""
        found = []

        def each(component, start, end, *rest):
            summary = component.get_summary()
            if start.is_date():
                found.append(f"{start.get_year():04d}-{start.get_month():02d}-{start.get_day():02d} all-day {summary}")
            else:
                instant = start.as_timet_with_zone(start.get_timezone() or self.berlin)
                found.append(time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime(instant)) + summary)
            return True

        client.generate_instances_sync(start, end, None, each)
        return sorted(found)

    def refresh_until(self, client, condition, what):
        """refresh_sync only schedules a refresh: ask, then wait (bounded), asking again every 5 seconds."""
        client.refresh_sync(None)
        self.pump(condition, what, 40, every=(5, lambda: client.refresh_sync(None)))

    def component(self, text):
        return self.ICal.Component.new_from_string(text)


def private_environment(root):
    home = os.path.join(root, "home")
    env = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_RUNTIME_DIR": os.path.join(root, "run"),
           "GSETTINGS_BACKEND": "memory", "GIO_USE_VFS": "local", "LC_ALL": "C.UTF-8", "TZ": "Europe/Berlin"}
    for key in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"]:
        os.makedirs(env[key], exist_ok=True)
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    os.environ.update(env)
    os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
    time.tzset()
    return dict(os.environ)


def run(almanac, data):
    store = os.path.join(data, "store")
    owner_password = add_user(almanac, store, "owner", "owner@example.com")
    reader_password = add_user(almanac, store, "reader", "reader@example.com")
    for title in ["Work", "Team"]:
        cli(almanac, store, "calendar", "create", title, "--tz", "Europe/Berlin", "--user", "owner")
    cli(almanac, store, "calendar", "share", "Team", "--with", "reader", "--access", "read", "--user", "owner")
    work_id = re.search(r"Identifier:\s+(\S+)", cli(almanac, store, "calendar", "show", "Work", "--user", "owner")).group(1)

    server = AlmanacServer(almanac, store, "owner", password=owner_password)
    bus = None
    try:
        owner = Server(server, "owner", owner_password)
        url = server.base + "/"

        # Everything EDS runs from here on sees only the temporary directory and the private bus.
        bus = PrivateBus(private_environment(data))
        bus.connection()
        eds = EDS()

        calendars_found, addresses = eds.discover(url, "owner", owner_password)
        check([(name, events) for name, _, events in calendars_found] == [("Team", True), ("Work", True)],
              f"EDS discovers the owner's calendars from the bare server URL: {calendars_found}")
        check(addresses == ["owner@example.com"], f"and the calendar-user address: {addresses}")
        hrefs = {name: href for name, href, _ in calendars_found}
        work_path = urllib.parse.urlsplit(hrefs["Work"]).path
        team_path = urllib.parse.urlsplit(hrefs["Team"]).path

        for name, text in [("weekly", SERIES), ("allday", ALL_DAY), ("alarm", ALARM)]:
            check(owner.put(f"{work_path}{name}.ics", text) == 201, f"{name} written on the server with CalDAV")
        winter = owner.event({"calendarId": work_id, "title": "API Winter", "start": "2027-03-11T14:30:00",
                              "end": "2027-03-11T15:30:00", "timeZone": "Europe/Berlin"})
        summer = owner.event({"calendarId": work_id, "title": "API Sommer", "start": "2027-07-15T14:30:00",
                              "end": "2027-07-15T15:30:00", "timeZone": "Europe/Berlin"})
        check(owner.put(f"{team_path}team.ics", TEAM) == 201, "an event in the calendar to be shared")

        client, source, asked = eds.open("Work", hrefs["Work"], "owner", owner_password)
        check(len(asked) == 1, f"EDS asked for credentials once and took them: {asked}")
        eds.pump(lambda: not client.is_readonly(), "the owner's calendar to be writable", 10)
        check(not client.is_readonly(), "EDS opens the owner's calendar writable (current-user-privilege-set)")
        eds.refresh_until(client, lambda: len(eds.components(client)) == 6, "the first sync")
        uids = sorted(eds.components(client))
        check(uids == sorted(["alarm@interop", "allday@interop", "weekly@interop", "weekly@interop;20270401T143000",
                              winter["uid"], summer["uid"]]), f"EDS's first sync has every object and the override: {uids}")

        seen = eds.instances(client, utc(2027, 3, 1), utc(2027, 8, 1))
        check(seen == ["2027-03-11T13:30:00Z API Winter",
                       "2027-03-11T13:30:00Z Chorprobe",
                       "2027-03-12T08:00:00Z Café ☕ Zürich – Grüße",
                       "2027-03-25T13:30:00Z Chorprobe",
                       "2027-03-29 all-day Ostermontag",
                       "2027-04-01T15:00:00Z Chorprobe (verlegt)",   # the override, 17:00 summer time
                       "2027-04-08T12:30:00Z Chorprobe",             # 14:30 summer time
                       "2027-07-15T12:30:00Z API Sommer"],           # the server's own VTIMEZONE, summer time
              "EDS expands the series over the DST change with its EXDATE and override, the all-day event, and "
              f"the API's Europe/Berlin events in winter and summer: {seen}")
        alarm = eds.components(client)["alarm@interop"]
        triggers = [a.get_trigger().get_duration().as_ical_string() for a in alarm.get_all_alarms()]
        check(triggers == ["-PT15M"], f"EDS reads the alarm: {triggers}")
        check(alarm.get_location() == "Bahnhofstraße 1, Zürich", f"non-ASCII location: {alarm.get_location()}")
        description = [d.get_value() for d in alarm.get_descriptions()]
        check(description == ["Zeile eins\nZeile zwei: ½ € 日本"], f"non-ASCII two-line description: {description}")

        # Writes from EDS, with libical's Europe/Berlin as Evolution sends it.
        client.add_timezone_sync(eds.berlin, None)
        ok, uid = client.create_object_sync(eds.component(FROM_EDS), eds.ECal.OperationFlags.NONE, None)
        check(ok and uid == "from-eds@interop", f"EDS created an event: {uid}")
        stored = owner.objects(work_path).get("from-eds@interop", "")
        # EDS sends libical's zone under its location's name, cut to the observances the event needs.
        check("DTSTART;TZID=Europe/Berlin:20271018T090000" in stored and "TZID:Europe/Berlin" in stored
              and "X-LIC-LOCATION:Europe/Berlin" in stored and "TRIGGER:-PT10M" in stored
              and "SUMMARY:Neu aus Evolution – Ça va? ✓" in stored,
              "the server stored EDS's event with its VTIMEZONE and alarm" + ("" if "TRIGGER" in stored else f":\n{stored}"))
        expected = [("2027-10-18T07:00:00Z", "Neu aus Evolution – Ça va? ✓"), ("2027-10-25T07:00:00Z", "Neu aus Evolution – Ça va? ✓"),
                    ("2027-11-01T08:00:00Z", "Neu aus Evolution – Ça va? ✓")]
        check(owner.occurrences(work_id, "Neu aus Evolution") == expected,
              "the server expands it in libical's zone over the change to winter time: "
              f"{owner.occurrences(work_id, 'Neu aus Evolution')}")

        created = eds.components(client)["from-eds@interop"]
        changed = eds.component(created.get_as_string().replace("Neu aus Evolution – Ça va? ✓", "Geändert in Evolution"))
        client.modify_object_sync(changed, eds.ECal.ObjModType.ALL, eds.ECal.OperationFlags.NONE, None)
        check([t for _, t in owner.occurrences(work_id, "Evolution")] == ["Geändert in Evolution"] * 3,
              "a change to the whole series reached the server")

        # Move the 25 October instance to 11:00 (an override), as Evolution's "this instance only".
        instance = created.get_as_string().replace("Neu aus Evolution – Ça va? ✓", "Geändert in Evolution (verschoben)")
        zone = re.search(r"DTSTART;TZID=([^:;]+):20271018T090000", instance).group(1)
        instance = re.sub(r"RRULE:[^\r\n]*\r?\n", "", instance)
        instance = instance.replace(f"DTSTART;TZID={zone}:20271018T090000", f"RECURRENCE-ID;TZID={zone}:20271025T090000\r\n"
                                    f"DTSTART;TZID={zone}:20271025T110000")
        instance = instance.replace(f"DTEND;TZID={zone}:20271018T100000", f"DTEND;TZID={zone}:20271025T120000")
        client.modify_object_sync(eds.component(instance), eds.ECal.ObjModType.THIS, eds.ECal.OperationFlags.NONE, None)
        stored = owner.objects(work_path)["from-eds@interop"]
        check("RECURRENCE-ID;TZID=Europe/Berlin:20271025T090000" in stored,
              "the moved instance is an override on the server")
        check(owner.occurrences(work_id, "Evolution") == [("2027-10-18T07:00:00Z", "Geändert in Evolution"),
                                                          ("2027-10-25T09:00:00Z", "Geändert in Evolution (verschoben)"),
                                                          ("2027-11-01T08:00:00Z", "Geändert in Evolution")],
              f"the server places it at 11:00 summer time: {owner.occurrences(work_id, 'Evolution')}")

        client.remove_object_sync("from-eds@interop", "20271101T090000", eds.ECal.ObjModType.THIS,
                                  eds.ECal.OperationFlags.NONE, None)
        stored = owner.objects(work_path)["from-eds@interop"]
        check("EXDATE" in stored and [s for s, _ in owner.occurrences(work_id, "Evolution")] ==
              ["2027-10-18T07:00:00Z", "2027-10-25T09:00:00Z"],
              f"removing one instance in EDS is an EXDATE on the server: {owner.occurrences(work_id, 'Evolution')}")

        client.remove_object_sync("from-eds@interop", None, eds.ECal.ObjModType.ALL, eds.ECal.OperationFlags.NONE, None)
        check("from-eds@interop" not in owner.objects(work_path), "deleting the event in EDS deleted it on the server")

        # Changes on the server reach EDS.
        check(owner.put(f"{work_path}alarm.ics", ALARM.replace("Café ☕ Zürich – Grüße", "Café ☕ Zürich (abgesagt)")) == 204,
              "the alarm event changed on the server")
        check(owner.http.request("DELETE", f"{work_path}allday.ics")[0] == 204, "the all-day event deleted on the server")
        def server_changes_seen():
            now = eds.components(client)
            return "allday@interop" not in now and now["alarm@interop"].get_summary().get_value() == "Café ☕ Zürich (abgesagt)"
        eds.refresh_until(client, server_changes_seen, "EDS to see the server's changes")
        check(server_changes_seen(), "EDS's refresh brought the server's edit and deletion")

        # The read-only share, as its sharee sees it.
        shared, addresses = eds.discover(url, "reader", reader_password)
        check([name for name, _, _ in shared] == ["Team"] and addresses == ["reader@example.com"],
              f"the sharee discovers the shared calendar: {shared} {addresses}")
        team_client, _, _ = eds.open("Team (shared)", shared[0][1], "reader", reader_password)
        eds.refresh_until(team_client, lambda: "team@interop" in eds.components(team_client), "the shared calendar's sync")
        reader = Server(server, "reader", reader_password)
        privileges = reader.privileges(urllib.parse.urlsplit(shared[0][1]).path)
        check("read" in privileges and not {"write", "write-content", "bind", "all"} & set(privileges),
              f"the server gives the sharee read without write: {privileges}")
        check(team_client.is_readonly(), "EDS opens the shared calendar read-only (from that privilege set)")
        check(eds.instances(team_client, utc(2027, 4, 1), utc(2027, 5, 1)) == ["2027-04-06T08:00:00Z Teamrunde"],
              "the sharee reads the owner's event")
        refused = None
        try:
            team_client.create_object_sync(eds.component(
                "BEGIN:VEVENT\r\nUID:sharee@interop\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20270407T080000Z\r\n"
                "DTEND:20270407T090000Z\r\nSUMMARY:Sharee's own\r\nEND:VEVENT\r\n"), eds.ECal.OperationFlags.NONE, None)
        except eds.GLib.Error as failure:
            refused = failure
        # EDS refuses it itself (the backend is not writable), so no PUT reaches the server.
        check(refused is not None and "Permission denied" in refused.message,
              f"EDS refuses a create in the read-only calendar: {refused and refused.message}")
        check(sorted(owner.objects(team_path)) == ["team@interop"], "and nothing was stored")
    finally:
        if bus:
            bus.stop()
        server.stop()


if __name__ == "__main__":
    main(run, "evolution-data-server interop")
