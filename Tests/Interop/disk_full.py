#!/usr/bin/env python3
"""A full disk under a running `almanac serve`, for real: the store lives on a small
tmpfs this test mounts (and unmounts). Writes that cannot be made durable answer 507
(CalDAV) and 507 (JSON API) with nothing half-written; reads keep working while the
disk is full; once space returns, writes work again; and `almanac db check` finds the
file intact afterwards.

Needs root (to mount); without it the test says so and exits 0 having checked nothing
(make test runs as root in CI).

    .build/client-venv/bin/python Tests/Interop/disk_full.py --almanac .build/debug/almanac
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from almanac_server import AlmanacServer, BasicClient


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)
    print("ok:", message)


def event(uid, size):
    filler = "x" * 70
    description = "\r\n ".join(filler for _ in range(size // 72))
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//Disk full//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261201T100000Z\r\nDURATION:PT1H\r\n"
            f"SUMMARY:{uid}\r\nDESCRIPTION:{description}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").encode()


def fill(path, keep_free):
    """Fills the file system holding `path` with one file, then frees `keep_free` bytes of it."""
    # Unbuffered: a buffered file would keep the bytes the full disk refused and raise
    # again when it is closed, depending on how the free space happened to align.
    with open(path, "wb", buffering=0) as filler:
        block = b"\0" * 65536
        try:
            while True:
                filler.write(block)
        except OSError:
            pass
    size = os.path.getsize(path)
    os.truncate(path, max(0, size - keep_free))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        print("disk full: needs root to mount a tmpfs; skipped (CI runs it as root)")
        return
    almanac = os.path.abspath(arguments.almanac)
    mount = tempfile.mkdtemp(prefix="almanac-disk-full-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount], check=True)
    server = None
    try:
        data = os.path.join(mount, "data")
        server = AlmanacServer(almanac, data, "anna")
        client = BasicClient(server.port, server.user, server.password)
        collection = "/dav/calendars/anna/work/"
        check(client.request("MKCALENDAR", collection)[0] == 201, "calendar created")
        status, headers, _ = client.request("PUT", collection + "before.ics", event("before", 2000), {"Content-Type": "text/calendar"})
        check(status == 201, "a write before the disk fills")
        kept = {collection + "before.ics": headers["ETag"]}

        filler = os.path.join(mount, "filler")
        fill(filler, 600_000)
        statuses = []
        for number in range(200):
            name = f"big-{number}.ics"
            status, headers, body = client.request("PUT", collection + name, event(f"big-{number}", 60_000), {"Content-Type": "text/calendar"})
            statuses.append(status)
            if status == 201:
                kept[collection + name] = headers["ETag"]
            else:
                refused = (name, status, headers, body.decode(errors="replace"))
                break
        check(statuses[-1] == 507, f"writes answer 507 once the disk is full (statuses {statuses})")
        check(set(statuses[:-1]) <= {201}, "until then they were stored")
        name, status, headers, text = refused
        check("quota-not-exceeded" in text and "sqlite" not in text.lower(), f"the 507 names the DAV precondition and says what happened: {text[:160]}")
        check(client.request("GET", collection + name)[0] == 404, "the refused object was not half-written")

        # Reads go on while the disk is full.
        for href, etag in kept.items():
            status, headers, _ = client.request("GET", href)
            check(status == 200 and headers.get("ETag") == etag, f"{href} still reads while the disk is full")
        status, _, _ = client.request("PROPFIND", collection, headers={"Depth": "1"})
        check(status == 207, "PROPFIND answers while the disk is full")
        status, _, body = client.request("GET", "/api/v1/calendars")
        check(status == 200, "the JSON API reads while the disk is full")
        calendar_id = json.loads(body)["calendars"][0]["id"]
        payload = json.dumps({"calendarId": calendar_id, "title": "y" * 60, "notes": "z" * 400_000, "start": "2026-12-02T09:00:00Z"})
        status, _, body = client.request("POST", "/api/v1/events", payload, {"Content-Type": "application/json"})
        check(status == 507 and json.loads(body)["type"] == "urn:almanac:problem:insufficient-storage", f"the API answers 507 too ({status})")
        check(server.process.poll() is None, "the server kept running")

        # Space comes back: writes work again, without a restart.
        os.remove(filler)
        status, headers, _ = client.request("PUT", collection + "after.ics", event("after", 2000), {"Content-Type": "text/calendar"})
        check(status == 201, "writes work again once there is room")
        kept[collection + "after.ics"] = headers["ETag"]
        check(server.stop() == 0, "the server stopped cleanly")
        server = None
        result = subprocess.run([almanac, "db", "check", "--data", data], capture_output=True, text=True)
        check(result.returncode == 0, f"almanac db check finds the store intact: {result.stdout.strip()} {result.stderr.strip()}")
        print(f"disk full: all checks passed ({len(kept)} objects kept)")
    finally:
        if server is not None:
            server.process.kill()
            server.process.wait()
        subprocess.run(["umount", mount], check=False)
        os.rmdir(mount)


if __name__ == "__main__":
    sys.exit(main())
