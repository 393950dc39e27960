#!/usr/bin/env python3
"""Load test: 64 concurrent keep-alive connections against `almanac serve` on
loopback, for a number of seconds, with a mix of PROPFIND, REPORT
(calendar-query over a week) and PUT. Every response must have the expected
status; prints requests/s and latency percentiles as one JSON line.

    .build/client-venv/bin/python Tests/Interop/load_test.py --almanac .build/debug/almanac [--seconds 60] [--connections 64]
"""
import argparse
import asyncio
import base64
import json
import random
import shutil
import tempfile
import time

from almanac_server import AlmanacServer

QUERY = ('<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>'
         '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">'
         '<C:time-range start="{start}" end="{end}"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>')
PROPFIND = '<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><D:displayname/></D:prop></D:propfind>'


def event(uid, day, hour):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Load//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:202612{day:02d}T{hour:02d}0000Z\r\n"
            f"DURATION:PT1H\r\nSUMMARY:Load {uid}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")


class Connection:
    def __init__(self, port, auth):
        self.port = port
        self.auth = auth
        self.reader = None
        self.writer = None

    async def request(self, method, path, body="", headers=None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        data = body.encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: {self.auth}", f"Content-Length: {len(data)}"]
        for key, value in (headers or {}).items():
            head.append(f"{key}: {value}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length = 0
        close = False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
            if name.lower() == "connection" and value.strip().lower() == "close":
                close = True
        if length:
            await self.reader.readexactly(length)
        if close:
            self.writer.close()
            self.writer = None
        return status


async def client(number, port, auth, deadline, results):
    connection = Connection(port, auth)
    rng = random.Random(number)
    while time.monotonic() < deadline:
        kind = rng.random()
        started = time.perf_counter()
        if kind < 0.4:
            status = await connection.request("PROPFIND", "/dav/calendars/load/work/", PROPFIND, {"Depth": "1"})
            expected = {207}
        elif kind < 0.8:
            day = rng.randint(1, 24)
            body = QUERY.format(start=f"202612{day:02d}T000000Z", end=f"202612{day + 7:02d}T000000Z")
            status = await connection.request("REPORT", "/dav/calendars/load/work/", body, {"Depth": "1"})
            expected = {207}
        else:
            uid = f"c{number}-{rng.randint(0, 50)}"
            status = await connection.request("PUT", f"/dav/calendars/load/work/{uid}.ics", event(uid, rng.randint(1, 28), rng.randint(6, 20)),
                                              {"Content-Type": "text/calendar"})
            expected = {201, 204}
        results.append((kind, time.perf_counter() - started, status in expected, status))


async def run(port, auth, seconds, connections):
    setup = Connection(port, auth)
    assert await setup.request("MKCALENDAR", "/dav/calendars/load/work/") == 201
    for index in range(200):
        assert await setup.request("PUT", f"/dav/calendars/load/work/seed{index}.ics", event(f"seed{index}", index % 28 + 1, index % 12 + 7)) == 201
    results = []
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    await asyncio.gather(*(client(number, port, auth, deadline, results) for number in range(connections)))
    return results, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--connections", type=int, default=64)
    arguments = parser.parse_args()
    data = tempfile.mkdtemp(prefix="almanac-load-")
    server = AlmanacServer(arguments.almanac, data, "load")
    try:
        auth = "Basic " + base64.b64encode(f"load:{server.password}".encode()).decode()
        results, elapsed = asyncio.run(run(server.port, auth, arguments.seconds, arguments.connections))
    finally:
        code = server.stop()
        shutil.rmtree(data, ignore_errors=True)
    latencies = sorted(duration for _, duration, _, _ in results)
    errors = [(status) for _, _, ok, status in results if not ok]

    def percentile(fraction):
        return round(latencies[min(len(latencies) - 1, int(len(latencies) * fraction))] * 1000, 2)

    print(json.dumps({"benchmark": "server.load", "connections": arguments.connections, "seconds": round(elapsed, 1),
                      "requests": len(results), "requests_per_second": round(len(results) / elapsed, 1),
                      "p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "errors": len(errors)}))
    if errors or code != 0 or not results:
        raise SystemExit(f"FAIL: {len(errors)} errors (statuses {sorted(set(errors))[:5]}), server exit {code}")


if __name__ == "__main__":
    main()
