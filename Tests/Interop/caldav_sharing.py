#!/usr/bin/env python3
"""Real-client interop for sharing: three users of `almanac serve`, each with the python
`caldav` library. The owner shares a calendar with one user read-write and another
read-only by the CalendarServer protocol (a CS:share POST, as iOS and macOS send it,
through the library's own client); each sharee finds the invitation in their
notification collection and accepts with CS:invite-reply; then the library's own
calls: the shared calendar among the sharee's calendars, a recurring event with an
override read through it, writes obeying the access (the read-write sharee's save
reaches the owner, the read-only sharee's is refused), sync tokens telling each side of
the other's changes, and unsharing taking the calendar from the sharee's list.

    .build/client-venv/bin/python Tests/Interop/caldav_sharing.py --almanac .build/debug/almanac
"""
import datetime as dt
import subprocess
import xml.etree.ElementTree as ET

import caldav
from caldav.lib import error

from interop_support import check, main
from almanac_server import AlmanacServer

CS = "http://calendarserver.org/ns/"
DAV = "DAV:"
PASSWORD = "sharing interop password"

SERIES = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Interop//EN
BEGIN:VEVENT
UID:team-weekly@interop
DTSTAMP:20261101T000000Z
DTSTART:20261201T090000Z
DTEND:20261201T100000Z
RRULE:FREQ=WEEKLY;COUNT=4
SUMMARY:Team stand-up
END:VEVENT
BEGIN:VEVENT
UID:team-weekly@interop
DTSTAMP:20261101T000000Z
RECURRENCE-ID:20261208T090000Z
DTSTART:20261208T150000Z
DTEND:20261208T160000Z
SUMMARY:Team stand-up (moved)
END:VEVENT
END:VCALENDAR
"""


def event(uid, start, summary):
    return (f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Interop//EN\nBEGIN:VEVENT\nUID:{uid}\nDTSTAMP:20261101T000000Z\n"
            f"DTSTART:{start}\nDURATION:PT1H\nSUMMARY:{summary}\nEND:VEVENT\nEND:VCALENDAR\n")




def client(server, user):
    return caldav.DAVClient(url=server.base + "/dav/", username=user, password=PASSWORD)


XML = {"Content-Type": "application/xml; charset=utf-8"}


def post(dav, path, body):
    """A POST through the library's client (its URL joined with `path`); the response."""
    return dav.request(dav.url.join(path), "POST", body, XML)


def invitation(dav, user):
    """The newest invitation in the user's notification collection: (uid, hosturl)."""
    listing = dav.propfind(dav.url.join(f"/dav/notifications/{user}/"),
                           "<D:propfind xmlns:D='DAV:'><D:prop><D:resourcetype/></D:prop></D:propfind>", depth=1)
    hrefs = [r.findtext(f"{{{DAV}}}href") for r in ET.fromstring(listing.raw).findall(f"{{{DAV}}}response")]
    notes = [href for href in hrefs if href and href.endswith(".xml")]
    check(bool(notes), f"{user} has an invitation in their notification collection")
    body = ET.fromstring(dav.request(dav.url.join(notes[-1]), "GET").raw)
    invite = body.find(f"{{{CS}}}invite-notification")
    return invite.findtext(f"{{{CS}}}uid"), invite.find(f"{{{CS}}}hosturl").findtext(f"{{{DAV}}}href")


def share_body(sets=(), removes=()):
    parts = "".join(f"<CS:set><D:href>{href}</D:href><CS:summary>Team</CS:summary>"
                    f"{'<CS:read-write/>' if write else '<CS:read/>'}</CS:set>" for href, write in sets)
    parts += "".join(f"<CS:remove><D:href>{href}</D:href></CS:remove>" for href in removes)
    return f"<?xml version='1.0' encoding='utf-8'?><CS:share xmlns:D='DAV:' xmlns:CS='{CS}'>{parts}</CS:share>"


def reply_body(uid, host, accept=True):
    answer = "<CS:invite-accepted/>" if accept else "<CS:invite-declined/>"
    return (f"<?xml version='1.0' encoding='utf-8'?><CS:invite-reply xmlns:D='DAV:' xmlns:CS='{CS}'>"
            f"<D:href>/dav/principals/x/</D:href>{answer}<CS:hosturl><D:href>{host}</D:href></CS:hosturl>"
            f"<CS:in-reply-to>{uid}</CS:in-reply-to></CS:invite-reply>")


def run(almanac, data):
    for user in ["owner", "writer", "reader"]:
        subprocess.run([almanac, "user", "add", user, "--data", data, "--email", f"{user}@example.com"],
                       input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    server = AlmanacServer(almanac, data, "owner", password=PASSWORD)
    try:
        owner, writer, reader = (client(server, user) for user in ["owner", "writer", "reader"])
        team = owner.principal().make_calendar(name="Team", cal_id="team")
        team.save_event(SERIES)
        check(any("calendarserver-sharing" in value for key, value in owner.request(owner.url, "OPTIONS").headers.items()
                  if key.lower() == "dav"), "the server advertises calendarserver-sharing")

        # The owner invites both by e-mail address, as Calendar.app does.
        status = post(owner, team.url.path, share_body([("mailto:writer@example.com", True),
                                                        ("mailto:reader@example.com", False)])).status
        check(status == 200, f"CS:share answered {status}")
        check([c.get_display_name() for c in writer.principal().calendars()] == [], "nothing in the writer's home before answering")

        shared = {}
        for dav, user in [(writer, "writer"), (reader, "reader")]:
            uid, host = invitation(dav, user)
            response = post(dav, f"/dav/calendars/{user}/", reply_body(uid, host))
            check(response.status == 200, f"{user}'s invite-reply answered {response.status}")
            href = ET.fromstring(response.raw).findtext(f"{{{DAV}}}href")
            check(href == f"/dav/calendars/{user}/owner-team/", f"{user}'s calendar is shared as {href}")
            calendars = dav.principal().calendars()
            check([c.get_display_name() for c in calendars] == ["Team"], f"the library lists the shared calendar for {user}")
            shared[user] = calendars[0]

        # Every instance through the sharee's copy, the override included.
        for user, calendar in shared.items():
            found = calendar.search(start=dt.datetime(2026, 12, 1), end=dt.datetime(2027, 1, 1), event=True, expand=True)
            summaries = sorted(str(e.vobject_instance.vevent.summary.value) for e in found)
            check(summaries == ["Team stand-up"] * 3 + ["Team stand-up (moved)"],
                  f"{user} reads all four instances with the moved one: {summaries}")

        # Sync tokens on each side.
        owner_sync = team.objects_by_sync_token(load_objects=False)
        writer_sync = shared["writer"].objects_by_sync_token(load_objects=False)
        shared["writer"].save_event(event("writer@interop", "20261203T120000Z", "Writer's session"))
        check("Writer's session" in team.event_by_uid("writer@interop").data, "the owner reads the writer's event")
        refused = None
        try:
            shared["reader"].save_event(event("reader@interop", "20261204T120000Z", "Reader's session"))
        except error.DAVError as failure:
            refused = failure
        check(isinstance(refused, error.AuthorizationError), f"the reader's write is refused: {refused!r}")
        check(not any("reader@interop" in str(o.url) for o in team.objects()), "and stored nothing")
        team.save_event(event("owner@interop", "20261205T120000Z", "Owner's session"))
        changed = shared["writer"].objects_by_sync_token(sync_token=writer_sync.sync_token, load_objects=False)
        names = sorted(str(o.url).rsplit("/", 1)[-1] for o in changed)
        check(len(names) == 2 and all(str(o.url).startswith(f"{server.base}/dav/calendars/writer/owner-team/") for o in changed),
              f"the writer's next sync has both new events under its own path: {names}")
        owner_changed = team.objects_by_sync_token(sync_token=owner_sync.sync_token, load_objects=False)
        check(len(list(owner_changed)) == 2, "the owner's next sync has both too")

        # Unsharing: gone from the reader's list on the next look; the writer keeps it.
        status = post(owner, team.url.path, share_body(removes=["mailto:reader@example.com"])).status
        check(status == 200, "CS:remove answered 200")
        check([c.get_display_name() for c in reader.principal().calendars()] == [], "the reader no longer lists it")
        check([c.get_display_name() for c in writer.principal().calendars()] == ["Team"], "the writer still does")
        gone = None
        try:
            shared["reader"].objects_by_sync_token(sync_token=owner_sync.sync_token, load_objects=False)
        except error.DAVError as failure:
            gone = failure
        check(isinstance(gone, error.NotFoundError), f"the reader's old calendar URL is gone: {gone!r}")
    finally:
        server.stop()


if __name__ == "__main__":
    main(run, "caldav sharing")
