#!/usr/bin/env python3
"""Webhooks end to end, with real processes: `almanac serve` delivering to a receiver
on 127.0.0.1 (a Python http.server that checks each signature with Python's own hmac).

- Writes through CalDAV, the JSON API and the CLI (`almanac add`, another process on
  the same SQLite file) each produce exactly the deliveries expected, signed.
- kill -9 of the server during a burst of API writes on three calendars, then a
  restart: every acknowledged write was delivered at least once, and each calendar's
  deliveries first arrived in change order.
- With ALMANAC_TEST_POSTGRES (scripts/with-test-postgres): two server processes on one
  database deliver each change exactly once, each calendar in order.

    .build/client-venv/bin/python Tests/Interop/webhooks.py --almanac .build/debug/almanac
"""
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from almanac_server import AlmanacServer, BasicClient  # noqa: E402
from interop_support import check, main  # noqa: E402

PRIVATE = ["--allow-private-webhooks"]


class Receiver:
    """Keeps every delivery: (delivery id, type, calendar, sequence, event id, signed?)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.received = []
        self.secrets = set()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                header = self.headers.get("Almanac-Signature", "")
                parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
                with receiver.lock:
                    signed = any(
                        hmac.compare_digest(
                            parts.get("v1", ""),
                            hmac.new(s.encode(), parts.get("t", "").encode() + b"." + body, hashlib.sha256).hexdigest())
                        for s in receiver.secrets)
                    document = json.loads(body)
                    receiver.received.append({**document, "signed": signed,
                                              "header_id": self.headers.get("Almanac-Delivery")})
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def snapshot(self):
        with self.lock:
            return list(self.received)

    def first_arrivals(self):
        seen, first = set(), []
        for delivery in self.snapshot():
            if delivery["id"] not in seen:
                seen.add(delivery["id"])
                first.append(delivery)
        return first

    def wait(self, condition, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if condition(self.snapshot()):
                return True
            time.sleep(0.02)
        return condition(self.snapshot())


def api(client, method, path, body=None, extra=None):
    headers = {"Content-Type": "application/json", **(extra or {})}
    status, response_headers, data = client.request(method, path, json.dumps(body) if body is not None else None, headers)
    return status, (json.loads(data) if data else None)


def subscribe(client, receiver, **members):
    status, created = api(client, "POST", "/api/v1/webhooks", {"url": receiver.url, **members})
    check(status == 201, f"webhook registered ({status} {created})")
    with receiver.lock:
        receiver.secrets.add(created["secret"])
    return created["id"]


def settle(client, hook, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        status, state = api(client, "GET", f"/api/v1/webhooks/{hook}")
        if status == 200 and state["pending"] == 0:
            return state
        time.sleep(0.05)
    raise SystemExit(f"FAIL: deliveries still pending after {seconds} s: {state}")


def event(uid, summary):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//Webhooks//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261210T100000Z\r\nDURATION:PT1H\r\n"
            f"SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").encode()


def every_write(almanac, data):
    server = AlmanacServer(almanac, data, "interop", extra=PRIVATE)
    receiver = Receiver()
    client = BasicClient(server.port, "interop", server.password)
    try:
        hook = subscribe(client, receiver)
        status, _, _ = client.request("MKCALENDAR", "/dav/calendars/interop/work/")
        check(status == 201, "a calendar made over CalDAV")
        status, listing = api(client, "GET", "/api/v1/calendars")
        calendar = listing["calendars"][0]["id"]
        status, _, _ = client.request("PUT", "/dav/calendars/interop/work/phone.ics", event("phone", "From a phone"),
                                      {"Content-Type": "text/calendar"})
        check(status == 201, "an event PUT over CalDAV")
        status, made = api(client, "POST", "/api/v1/events",
                           {"calendarId": calendar, "title": "From the app", "start": "2026-12-11T09:00:00Z"})
        check(status == 201, "an event POSTed to the API")
        status, _ = api(client, "PATCH", f"/api/v1/events/{made['id']}", {"title": "Renamed"})
        check(status == 200, "the event PATCHed")
        cli = subprocess.run([almanac, "add", "--data", data, "--user", "interop", "--calendar", listing["calendars"][0]["title"],
                              "--title", "From the CLI", "--start", "2026-12-12T09:00:00Z", "--duration", "1h"],
                             capture_output=True, text=True)
        check(cli.returncode == 0, f"an event added by the CLI, another process ({cli.stderr.strip()})")
        status, _, _ = client.request("DELETE", "/dav/calendars/interop/work/phone.ics")
        check(status == 204, "the phone's event DELETEd over CalDAV")
        expected = ["calendar.created", "event.created", "event.created", "event.updated", "event.created",
                    "event.deleted"]
        settle(client, hook)
        check(receiver.wait(lambda got: len(got) >= len(expected)), "every delivery arrived")
        got = receiver.snapshot()
        check([d["type"] for d in got] == expected, f"exactly the expected deliveries, in order ({[d['type'] for d in got]})")
        check([d["sequence"] for d in got] == list(range(len(expected))), "their sequences are the calendar's changes")
        check(all(d["signed"] and d["header_id"] == d["id"] for d in got), "each is signed (checked with Python's hmac)")
        check(len({d["id"] for d in got}) == len(got), "each has its own delivery id")
    finally:
        check(server.stop() == 0, "the server stopped cleanly")
    return receiver


def killed_during_a_burst(almanac, data):
    server = AlmanacServer(almanac, data, "burst", extra=PRIVATE)
    password = server.password
    receiver = Receiver()
    client = BasicClient(server.port, "burst", password)
    hook = subscribe(client, receiver, events=["event.created"])
    calendars = []
    for title in ["A", "B", "C"]:
        status, made = api(client, "PUT", f"/api/v1/calendars/by-title/{title}")
        calendars.append(made["id"])
    acknowledged = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(calendar):
        local = BasicClient(server.port, "burst", password)
        number = 0
        while not stop.is_set():
            number += 1
            try:
                status, made = api(local, "POST", "/api/v1/events",
                                   {"calendarId": calendar, "title": f"burst {number}", "start": "2026-12-11T09:00:00Z"})
            except (ConnectionError, OSError, ValueError):
                return
            if status == 201:
                with lock:
                    acknowledged.append((calendar, made["id"]))

    writers = [threading.Thread(target=writer, args=(c,)) for c in calendars for _ in range(2)]
    for thread in writers:
        thread.start()
    time.sleep(1.5)
    server.process.kill()
    server.process.wait(timeout=30)
    stop.set()
    for thread in writers:
        thread.join()
    check(len(acknowledged) > 50, f"writes were acknowledged before kill -9 ({len(acknowledged)})")
    before_restart = len(receiver.first_arrivals())
    server = AlmanacServer(almanac, data, "burst", password=password, extra=PRIVATE)
    try:
        client = BasicClient(server.port, "burst", password)
        settle(client, hook, seconds=120)
        wanted = {event_id for _, event_id in acknowledged}
        check(receiver.wait(lambda got: wanted <= {d["eventId"] for d in got}, 60),
              f"every acknowledged write was delivered after the restart ({before_restart} before it, "
              f"{len(receiver.first_arrivals())} in all)")
        first = receiver.first_arrivals()
        for calendar in calendars:
            sequences = [d["sequence"] for d in first if d["calendarId"] == calendar]
            check(sequences == sorted(sequences), f"calendar {calendar[:8]}: deliveries first arrived in change order")
        check(all(d["signed"] for d in receiver.snapshot()), "all signed")
        duplicates = len(receiver.snapshot()) - len(first)
        print(f"note: {duplicates} deliveries were sent twice (at least once; receivers dedupe by id)")
    finally:
        check(server.stop() == 0, "the restarted server stopped cleanly")


def two_servers(almanac, cluster, prefix):
    """Creates a database on the test cluster with a user "pg" and starts two servers
    on it; returns both servers and a client of each."""
    name = prefix + "_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", cluster, "-c", f"CREATE DATABASE {name}"], check=True)
    database = cluster.rsplit("/", 1)[0] + "/" + name
    password = prefix + "-secret"
    subprocess.run([almanac, "user", "add", "pg", "--database", database], input=password + "\n", text=True, check=True,
                   stdout=subprocess.DEVNULL)
    servers = [AlmanacServer(almanac, None, "pg", database=database, password=password, extra=PRIVATE)
               for _ in range(2)]
    return servers, [BasicClient(server.port, "pg", password) for server in servers]


def two_servers_on_postgres(almanac, cluster):
    (a, b), clients = two_servers(almanac, cluster, "webhooks")
    try:
        receiver = Receiver()
        hook = subscribe(clients[0], receiver, events=["event.created"])
        calendars = [api(clients[0], "PUT", f"/api/v1/calendars/by-title/{t}")[1]["id"] for t in ["A", "B", "C"]]

        def writer(index):
            for number in range(40):
                client = clients[(index + number) % 2]
                status, _ = api(client, "POST", "/api/v1/events", {"calendarId": calendars[index % 3],
                                                                     "title": f"{index}-{number}", "start": "2026-12-11T09:00:00Z"})
                assert status == 201

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        settle(clients[1], hook, seconds=120)
        check(receiver.wait(lambda got: len(got) >= 120), "120 changes through two processes were delivered")
        got = receiver.snapshot()
        check(len(got) == 120 and len({d["id"] for d in got}) == 120, f"each exactly once ({len(got)} received)")
        for calendar in calendars:
            sequences = [d["sequence"] for d in got if d["calendarId"] == calendar]
            check(sequences == list(range(1, 41)), f"calendar {calendar[:8]}: in change order")
    finally:
        codes = [a.stop(), b.stop()]
    check(codes == [0, 0], "both servers stopped cleanly")


if __name__ == "__main__":
    main(every_write, "webhooks", killed_during_a_burst, postgres=two_servers_on_postgres)
