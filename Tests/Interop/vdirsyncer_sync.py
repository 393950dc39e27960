#!/usr/bin/env python3
"""Real-client interop: vdirsyncer syncing an Almanac calendar with a local
directory, both ways.

Starts `almanac serve` on a free loopback port, creates a calendar, writes an
event on the server and one in the local directory, syncs, edits and deletes on
each side, syncs again, and compares both sides after every step.

    .build/client-venv/bin/python Tests/Interop/vdirsyncer_sync.py --almanac .build/debug/almanac
"""
import argparse
import base64
import glob
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request

from almanac_server import AlmanacServer


def event(uid, summary, day):
    return (f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Interop//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n"
            f"DTSTAMP:20261101T000000Z\r\nDTSTART:202612{day:02d}T100000Z\r\nDURATION:PT1H\r\nSUMMARY:{summary}\r\n"
            "END:VEVENT\r\nEND:VCALENDAR\r\n")


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)
    print("ok:", message)


class Server:
    def __init__(self, base, password):
        self.base = base
        self.auth = "Basic " + base64.b64encode(f"sync:{password}".encode()).decode()

    def request(self, method, path, body=b"", headers=None):
        request = urllib.request.Request(self.base + path, data=body or None, method=method,
                                         headers={"Authorization": self.auth, **(headers or {})})
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def summaries(self):
        status, text = self.request("REPORT", "/dav/calendars/sync/work/",
                                    b'<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/></D:prop>'
                                    b'<C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>', {"Depth": "1"})
        assert status == 207, status
        return sorted(re.findall(r"SUMMARY:([^\r\n&]*)", text))


def local_summaries(directory):
    found = []
    for path in glob.glob(os.path.join(directory, "**", "*.ics"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            found += re.findall(r"SUMMARY:([^\r\n]*)", handle.read())
    return sorted(found)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    parser.add_argument("--vdirsyncer", default=shutil.which("vdirsyncer") or "vdirsyncer")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="almanac-vdirsyncer-")
    almanac = AlmanacServer(arguments.almanac, os.path.join(work, "data"), "sync")
    try:
        run(arguments.vdirsyncer, work, Server(almanac.base, almanac.password), almanac.password)
    finally:
        almanac.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("vdirsyncer interop: all checks passed")


def run(vdirsyncer, work, server, password):
    local = os.path.join(work, "local")
    os.makedirs(local)
    config = os.path.join(work, "config")
    with open(config, "w") as handle:
        handle.write(f"""[general]
status_path = "{work}/status/"

[pair almanac]
a = "local"
b = "remote"
collections = ["from b"]
conflict_resolution = "b wins"

[storage local]
type = "filesystem"
path = "{local}/"
fileext = ".ics"

[storage remote]
type = "caldav"
url = "{server.base}/"
username = "sync"
password = "{password}"
""")

    def sync(*commands):
        for command in commands:
            result = subprocess.run([vdirsyncer, "-c", config, *command], input="y\n" * 5, text=True, capture_output=True, timeout=120)
            if result.returncode != 0:
                raise SystemExit(f"FAIL: vdirsyncer {' '.join(command)}:\n{result.stdout}\n{result.stderr}")

    check(server.request("MKCALENDAR", "/dav/calendars/sync/work/")[0] == 201, "calendar created on the server")
    check(server.request("PUT", "/dav/calendars/sync/work/server-1.ics", event("server-1", "From server", 1).encode(),
                         {"Content-Type": "text/calendar"})[0] == 201, "event written on the server")
    sync(["discover", "almanac"], ["sync"])
    collection = os.path.join(local, "work")
    check(local_summaries(local) == ["From server"], "server event arrived locally")

    with open(os.path.join(collection, "local-1.ics"), "w", encoding="utf-8", newline="") as handle:
        handle.write(event("local-1", "From local", 2))
    sync(["sync"])
    check(server.summaries() == ["From local", "From server"], "local event arrived on the server")

    # Edit on each side.
    path = next(p for p in glob.glob(os.path.join(collection, "*.ics")) if "server-1" in open(p).read())
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(event("server-1", "From server (edited locally)", 1))
    status, _ = server.request("PUT", "/dav/calendars/sync/work/local-1.ics", event("local-1", "From local (edited on server)", 2).encode(),
                               {"Content-Type": "text/calendar"})
    check(status in (201, 204), "edited on the server")
    sync(["sync"])
    expected = ["From local (edited on server)", "From server (edited locally)"]
    check(server.summaries() == expected and local_summaries(local) == expected, "edits on both sides synced")

    # Delete on each side.
    os.remove(path)
    check(server.request("DELETE", "/dav/calendars/sync/work/local-1.ics")[0] == 204, "deleted on the server")
    sync(["sync"])
    check(server.summaries() == [] and local_summaries(local) == [], "deletions on both sides synced")


if __name__ == "__main__":
    main()
