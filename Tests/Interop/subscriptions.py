#!/usr/bin/env python3
"""Subscribed calendars against a real publisher: a static HTTP server started here on
127.0.0.1 (Python's http.server) serves a feed with an ETag and Last-Modified and counts
every GET and every conditional one. `almanac serve --allow-private-feeds` fetches it.

- `almanac subscribe` (another process on the same SQLite file) subscribes one user and
  fetches at once; a second user subscribes to the same URL through the API and is
  filled from the server's copy with no fetch of its own.
- python `caldav` lists the subscribed calendar, expands its recurring event (with a
  moved instance), and is refused a write.
- A refresh asked through the API makes a conditional GET answered 304; the feed grows
  (a new ETag) and the next refresh brings the new event to CalDAV's next sync; a broken
  feed (HTTP 500) leaves the last good copy and is reported in GET /api/v1/subscriptions.

    .build/client-venv/bin/python Tests/Interop/subscriptions.py --almanac .build/debug/almanac
"""
import base64
import datetime as dt
import http.server
import json
import subprocess
import threading
import urllib.request

import caldav
from caldav.lib import error

from interop_support import check, main, wait_for
from almanac_server import AlmanacServer

PASSWORD = "subscription interop password"

CLASS = """BEGIN:VEVENT
UID:class@school
DTSTAMP:20261101T000000Z
DTSTART:20261207T090000Z
DTEND:20261207T100000Z
RRULE:FREQ=WEEKLY;COUNT=4
SUMMARY:Class
END:VEVENT
BEGIN:VEVENT
UID:class@school
DTSTAMP:20261101T000000Z
RECURRENCE-ID:20261214T090000Z
DTSTART:20261214T130000Z
DTEND:20261214T140000Z
SUMMARY:Class (moved)
END:VEVENT
"""
FAIR = """BEGIN:VEVENT
UID:fair@school
DTSTAMP:20261101T000000Z
DTSTART:20261210T150000Z
DTEND:20261210T170000Z
SUMMARY:School fair
END:VEVENT
"""


def feed(*events):
    return ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//School//EN\nREFRESH-INTERVAL;VALUE=DURATION:P1D\n"
            + "".join(events) + "END:VCALENDAR\n").replace("\n", "\r\n").encode()


class Publisher:
    """The feed, its version, and what was asked of it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.body = feed(CLASS)
        self.version = 1
        self.failing = False
        self.gets = 0
        self.conditional = []  # the status of each conditional GET

    def publish(self, body):
        with self.lock:
            self.body, self.version, self.failing = body, self.version + 1, False


def serve(publisher):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with publisher.lock:
                publisher.gets += 1
                etag = f'"v{publisher.version}"'
                conditional = self.headers.get("If-None-Match") is not None
                if publisher.failing:
                    status, body, headers = 500, b"broken", {}
                elif self.headers.get("If-None-Match") == etag:
                    status, body, headers = 304, b"", {"ETag": etag}
                else:
                    status, body = 200, publisher.body
                    headers = {"ETag": etag, "Content-Type": "text/calendar; charset=utf-8",
                               "Last-Modified": f"Tue, 01 Dec 2026 {publisher.version:02d}:00:00 GMT"}
                if conditional:
                    publisher.conditional.append(status)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server





def api(server, user, method, path, body=None):
    request = urllib.request.Request(server.base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{PASSWORD}".encode()).decode())
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as failure:
        return failure.code, json.loads(failure.read() or b"null")


def run(almanac, data):
    publisher = Publisher()
    http_server = serve(publisher)
    url = f"http://127.0.0.1:{http_server.server_address[1]}/school.ics"
    for user in ["parent", "teacher"]:
        subprocess.run([almanac, "user", "add", user, "--data", data], input=PASSWORD + "\n", text=True, check=True,
                       capture_output=True)
    server = AlmanacServer(almanac, data, "parent", password=PASSWORD, extra=["--allow-private-feeds", "--feed-check", "1"])
    try:
        # The CLI subscribes and fetches at once; the API's subscriber is filled from that copy.
        cli = subprocess.run([almanac, "subscribe", url, "--title", "School", "--data", data, "--user", "parent",
                              "--allow-private"], capture_output=True, text=True)
        check(cli.returncode == 0 and "Fetched 1 object" in cli.stdout, f"almanac subscribe fetched the feed: {cli.stdout}{cli.stderr}")
        check(publisher.gets == 1, "one GET so far")
        status, made = api(server, "teacher", "POST", "/api/v1/subscriptions", {"url": url, "title": "School"})
        check(status == 201, f"the API subscribed the second user ({status})")
        teacher_calendar = made["calendar"]["id"]
        status, events = api(server, "teacher", "GET", f"/api/v1/calendars/{teacher_calendar}/events")
        check([e["title"] for e in events["events"]] == ["Class"], "the second subscriber has the feed without a fetch")
        check(publisher.gets == 1, "still one GET for two subscribers")

        # A real client sees a read-only calendar with every instance.
        client = caldav.DAVClient(url=server.base + "/dav/", username="parent", password=PASSWORD)
        calendars = [c for c in client.principal().calendars() if c.get_display_name() == "School"]
        check(len(calendars) == 1, "python caldav lists the subscribed calendar")
        school = calendars[0]
        found = school.search(start=dt.datetime(2026, 12, 1), end=dt.datetime(2027, 1, 1), event=True, expand=True)
        summaries = sorted(str(e.vobject_instance.vevent.summary.value) for e in found)
        check(summaries == ["Class"] * 3 + ["Class (moved)"], f"all four instances, the moved one included: {summaries}")
        refused = None
        try:
            school.save_event("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\nBEGIN:VEVENT\nUID:mine@x\n"
                              "DTSTAMP:20261101T000000Z\nDTSTART:20261208T100000Z\nSUMMARY:Mine\nEND:VEVENT\nEND:VCALENDAR\n")
        except error.DAVError as failure:
            refused = failure
        check(isinstance(refused, error.AuthorizationError), f"a write is refused: {refused!r}")
        token = school.objects_by_sync_token(load_objects=False).sync_token

        # Refresh: a conditional GET, answered 304.
        status, parent_subscriptions = api(server, "parent", "GET", "/api/v1/subscriptions")
        parent_calendar = parent_subscriptions["subscriptions"][0]["calendar"]["id"]
        check(api(server, "parent", "POST", f"/api/v1/calendars/{parent_calendar}/refresh")[0] == 202, "refresh asked")
        wait_for(lambda: publisher.conditional == [304], "a conditional GET answered 304")
        check(publisher.gets == 2, f"the refresh was one conditional GET, answered 304 ({publisher.gets} GETs in all)")

        # The feed grows: the next refresh brings the new event to the next sync.
        publisher.publish(feed(CLASS, FAIR))
        check(api(server, "parent", "POST", f"/api/v1/calendars/{parent_calendar}/refresh")[0] == 202, "refresh asked again")
        wait_for(lambda: len(publisher.conditional) == 2, "the second conditional GET")
        wait_for(lambda: len(list(school.objects_by_sync_token(sync_token=token, load_objects=False))) == 1,
                 "the new event in the next sync")
        check(publisher.conditional[1] == 200, "the changed feed was sent whole")
        status, events = api(server, "teacher", "GET", f"/api/v1/calendars/{teacher_calendar}/events")
        check(sorted(e["title"] for e in events["events"]) == ["Class", "School fair"], "both subscribers have it")

        # Broken: the last good copy stays, and the failure is reported.
        with publisher.lock:
            publisher.failing = True
        check(api(server, "parent", "POST", f"/api/v1/calendars/{parent_calendar}/refresh")[0] == 202, "refresh asked once more")
        def failed():
            state = api(server, "parent", "GET", "/api/v1/subscriptions")[1]["subscriptions"][0]
            return state["failures"] == 1 and state
        wait_for(failed, "the failure to be recorded")
        state = failed()
        check(state["lastStatus"] == 500 and "500" in (state["lastError"] or ""), f"reported: {state['lastError']}")
        status, events = api(server, "parent", "GET", f"/api/v1/calendars/{parent_calendar}/events")
        check(sorted(e["title"] for e in events["events"]) == ["Class", "School fair"], "the last good copy stays")
    finally:
        server.stop()
        http_server.shutdown()


if __name__ == "__main__":
    main(run, "subscriptions")
