#!/usr/bin/env python3
"""Hostile requests against a running `almanac serve` (issue 15).

Starts the almanac binary on a free loopback port with its own temporary data
directory, stores a calendar with a recurring event through CalDAV (and one of
a second user, bob), then sends what an attacker would: XML bombs, a 100,000
property object, deep JSON, odd Depth headers, percent-encoding tricks,
numeric and date extremes on every numeric API parameter and the web calendar,
the known crash and hang inputs, a header flood and hundreds of idle
connections. For every case it checks

  1. the exact status (or, for what libmicrohttpd answers itself, the statuses
     the transport may give),
  2. that the process is still alive and answers `OPTIONS /` and a signed-in
     GET quickly,
  3. for refused requests, that nothing stored changed: PROPFIND Depth 1 of
     both users' calendars (getetag, sync-token, displayname) and
     GET /api/v1/calendars, before and after.

A case that kills or wedges the server is reported and the server restarted
on the same data, so the remaining cases still run. Prints one line per case
("ok CASE" / "FAIL CASE: why"), then "N passed, M failed"; exits 1 on any
failure.

    .build/client-venv/bin/python Tests/Interop/hostile_requests.py --almanac .build/debug/almanac
"""
import argparse
import base64
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree
from almanac_server import AlmanacServer  # noqa: E402

HOST = "127.0.0.1"
TIMEOUT = 5.0  # every socket operation
LIVENESS_SECONDS = 3.0  # "quickly": OPTIONS / and a signed-in GET each answer within this
MAX_ANSWER_BYTES = 64 << 20  # an answer larger than this is a failure (unbounded output)
DAV = 'xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"'
BOB_MARKER = "BOB-PRIVATE-7f3a"


# MARK: - HTTP


class NoAnswer(Exception):
    """The server did not answer (timeout, reset, closed, or an answer too large)."""


class Failure(Exception):
    """A case's expectation did not hold."""


class Answer:
    def __init__(self, status, headers, body, seconds):
        self.status = status
        self.headers = headers  # lower-case name -> list of values
        self.body = body
        self.seconds = seconds

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError as error:
            raise Failure(f"answer is not JSON ({error}): {self.text[:200]!r}")


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def request(port, method, target, body=b"", headers=None, timeout=TIMEOUT):
    """One request with http.client on a fresh connection; the answer is read with
    a deadline and a size cap, so an unbounded answer fails instead of hanging."""
    if isinstance(body, str):
        body = body.encode()
    started = time.monotonic()
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        all_headers = {"Connection": "close", **(headers or {})}
        if body:
            all_headers.setdefault("Content-Length", str(len(body)))
        connection.request(method, target, body=body or None, headers=all_headers)
        response = connection.getresponse()
        chunks = []
        size = 0
        deadline = started + 2 * timeout
        while True:
            chunk = response.read(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise NoAnswer(f"{method} {target[:80]}: the answer passed {MAX_ANSWER_BYTES >> 20} MiB")
            if time.monotonic() > deadline:
                raise NoAnswer(f"{method} {target[:80]}: the answer took over {2 * timeout:.0f} s ({size} bytes so far)")
        headers_out = {}
        for name, value in response.getheaders():
            headers_out.setdefault(name.lower(), []).append(value)
        return Answer(response.status, headers_out, b"".join(chunks), time.monotonic() - started)
    except (OSError, http.client.HTTPException) as error:
        raise NoAnswer(f"{method} {target[:80]}: {type(error).__name__} {error} after {time.monotonic() - started:.1f} s")
    finally:
        connection.close()


class RawHTTP:
    """HTTP/1.1 over a plain socket, for what http.client will not send or cannot
    survive: floods, early answers to large uploads, half-sent requests."""

    def __init__(self, port, timeout=TIMEOUT):
        self.socket = socket.create_connection((HOST, port), timeout=timeout)
        self.buffer = b""

    def send(self, data):
        """Sends bytes; False when the server already closed or reset the connection."""
        try:
            self.socket.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            return False

    def answered(self, within):
        """Whether the server has sent something (or closed) within `within` seconds."""
        self.socket.settimeout(within)
        try:
            self.socket.recv(1, socket.MSG_PEEK)  # data, or b"" for a close
            return True
        except socket.timeout:
            return False
        except OSError:
            return True
        finally:
            self.socket.settimeout(TIMEOUT)

    def read_answer(self):
        """The status, headers and body, or None when the connection closed before a status line."""
        started = time.monotonic()
        try:
            while b"\r\n\r\n" not in self.buffer:
                data = self.socket.recv(1 << 16)
                if not data:
                    return None
                self.buffer += data
                if len(self.buffer) > 1 << 20:
                    raise NoAnswer("the answer's head passed 1 MiB")
        except ConnectionResetError:
            return None
        except socket.timeout:
            raise NoAnswer(f"no answer within {TIMEOUT:.0f} s")
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise NoAnswer(f"not an HTTP status line: {lines[0][:80]!r}")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        length = int(headers.get("content-length", ["0"])[0] or 0)
        try:
            while len(rest) < length:
                data = self.socket.recv(1 << 16)
                if not data:
                    break
                rest += data
        except (socket.timeout, ConnectionResetError):
            pass
        return Answer(int(parts[1]), headers, rest[:length], time.monotonic() - started)

    def close(self):
        with contextlib.suppress(OSError):
            self.socket.close()


# MARK: - Calendar data


def vcalendar(*lines):
    return "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Hostile//EN", *lines, "END:VCALENDAR", ""])


def vevent(uid, *lines, start="20261201T090000Z"):
    return vcalendar("BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20261101T000000Z", f"DTSTART:{start}", *lines, "END:VEVENT")


BERLIN = (
    "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:DAYLIGHT", "DTSTART:19810329T020000", "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT", "BEGIN:STANDARD",
    "DTSTART:19961027T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD", "END:VTIMEZONE")

STANDUP = vcalendar(
    *BERLIN, "BEGIN:VEVENT", "UID:standup@hostile", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261201T093000", "DURATION:PT15M",
    "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR", "SUMMARY:Stand-up", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Stand-up", "TRIGGER:-PT5M",
    "END:VALARM", "END:VEVENT")

BOB_EVENT = vevent("secret@bob", "DURATION:PT1H", f"SUMMARY:{BOB_MARKER}")


def mkcalendar_body(title):
    return f'<C:mkcalendar {DAV}><D:set><D:prop><D:displayname>{title}</D:displayname></D:prop></D:set></C:mkcalendar>'


def calendar_query(start, end, component="VEVENT", expand=False):
    prop = "<D:getetag/>" + (f'<C:calendar-data><C:expand start="{start}" end="{end}"/></C:calendar-data>' if expand else "")
    return (f'<C:calendar-query {DAV}><D:prop>{prop}</D:prop><C:filter><C:comp-filter name="VCALENDAR">'
            f'<C:comp-filter name="{component}"><C:time-range start="{start}" end="{end}"/></C:comp-filter>'
            '</C:comp-filter></C:filter></C:calendar-query>')


def valarm_query(start, end):
    return (f'<C:calendar-query {DAV}><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR">'
            '<C:comp-filter name="VEVENT"><C:comp-filter name="VALARM">'
            f'<C:time-range start="{start}" end="{end}"/></C:comp-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>')


PROPFIND_ETAGS = f'<D:propfind {DAV}><D:prop><D:getetag/><D:sync-token/><D:displayname/></D:prop></D:propfind>'

LAUGHS_DOCTYPE = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + "".join(f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">' for n in range(1, 10))
                  + "]>")
XXE_DOCTYPE = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'


def query(**parameters):
    return urllib.parse.urlencode(parameters, quote_via=urllib.parse.quote)


# MARK: - The suite


class Suite:
    def __init__(self, almanac, data, log):
        self.almanac = almanac
        self.data = data
        self.log = log
        self.server = None
        self.log_offset = 0
        self.password = None
        self.passed = 0
        self.failed = []
        self.bob_password = "bobs secret"
        self.tokens = {}
        self.calendar_ids = {}
        self.cookie = None

    # Server lifecycle

    def start(self):
        # A trap ends the process at once (Swift's backtracer would keep it up, still
        # answering on other threads, while it symbolicates), so the case that caused it
        # is the one that fails.
        os.environ["SWIFT_BACKTRACE"] = "enable=no"
        # The server's standard error (crash reports) goes to the log, not between the case lines.
        with open(self.log, "a") as log:
            self.log_offset = log.tell()
            saved = os.dup(2)
            os.dup2(log.fileno(), 2)
            try:
                self.server = AlmanacServer(self.almanac, self.data, "anna", password=self.password)
            finally:
                os.dup2(saved, 2)
                os.close(saved)
        self.password = self.server.password

    def last_error(self):
        """The server log's crash message (a Swift fatal error), or its last line."""
        with open(self.log, errors="replace") as log:
            log.seek(self.log_offset)
            lines = [line.strip() for line in log if line.strip()]
        fatal = [line for line in lines if "Fatal error" in line or "fatal error" in line]
        return (fatal or lines or ["nothing in its log"])[-1][:300]

    def alive(self):
        return self.server.process.poll() is None

    def stop(self, grace=5.0):
        """SIGTERM, then SIGKILL after `grace` seconds; returns (exit status, seconds, killed)."""
        process = self.server.process
        started = time.monotonic()
        if process.poll() is not None:
            return process.returncode, 0.0, False
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=grace), time.monotonic() - started, False
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
            return process.returncode, time.monotonic() - started, True

    def restart(self):
        self.stop(grace=3.0)
        self.start()

    # Requests

    @property
    def port(self):
        return self.server.port

    @property
    def anna(self):
        return {"Authorization": basic("anna", self.password)}

    @property
    def bob(self):
        return {"Authorization": basic("bob", self.bob_password)}

    def bearer(self, scope):
        return {"Authorization": "Bearer " + self.tokens[scope]}

    def send(self, method, target, body=b"", headers=None, auth="anna", timeout=TIMEOUT):
        """A request signed in as `auth`: "anna", "bob", None (anonymous) or the headers to send."""
        if not isinstance(auth, dict):
            auth = {"anna": self.anna, "bob": self.bob, None: {}}[auth]
        return request(self.port, method, target, body, {**auth, **(headers or {})}, timeout=timeout)

    def web(self, target):
        return self.send("GET", target, headers={"Cookie": f"almanac_session={self.cookie}"}, auth=None)

    # Checks

    def liveness(self):
        """None when the server is alive and answers quickly, else why not."""
        died = lambda: f"the server process died (exit status {self.server.process.returncode}: {self.last_error()})"
        if not self.alive():
            return died()
        try:
            options = self.send("OPTIONS", "/", timeout=LIVENESS_SECONDS)
            get = self.send("GET", "/dav/calendars/anna/work/standup.ics", timeout=LIVENESS_SECONDS)
        except NoAnswer as error:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.server.process.wait(timeout=1)  # a crash closes the connections a moment before the process is gone
            return died() if not self.alive() else f"the server no longer answers: {error}"
        if options.status != 200:
            return f"OPTIONS / answered {options.status} afterwards"
        if get.status != 200:
            return f"a signed-in GET answered {get.status} afterwards"
        return None

    def snapshot(self):
        """What is stored, as text: both users' calendars (each object's ETag, the
        collection's sync token and name) and the API's calendar list."""
        parts = []
        for user, path in [("anna", "/dav/calendars/anna/work/"), ("bob", "/dav/calendars/bob/private/")]:
            answer = self.send("PROPFIND", path, PROPFIND_ETAGS, {"Depth": "1", "Content-Type": "application/xml"}, auth=user)
            responses = sorted(re.findall(r"<D:response>.*?</D:response>", answer.text, re.S))
            parts.append(f"{user} {answer.status}\n" + "\n".join(responses))
        calendars = self.send("GET", "/api/v1/calendars")
        parts.append(f"api {calendars.status}\n{json.dumps(calendars.json(), sort_keys=True)}")
        return parts

    def run(self, name, action, refused=True):
        """Runs one case: its own checks, then liveness, then (refused) the store unchanged."""
        problems = []
        before = None
        if refused:
            try:
                before = self.snapshot()
            except (NoAnswer, Failure) as error:
                problems.append(f"snapshot before failed: {error}")
        try:
            action()
        except (Failure, NoAnswer) as error:
            problems.append(str(error))
        trouble = self.liveness()
        if trouble:
            problems.append(trouble)
            self.restart()
        if before is not None:
            try:
                after = self.snapshot()
                if after != before:
                    changed = [part.split("\n", 1)[0] for part, old in zip(after, before) if part != old]
                    problems.append(f"the store changed ({', '.join(changed)})")
            except (NoAnswer, Failure) as error:
                problems.append(f"snapshot after failed: {error}")
        if problems:
            self.failed.append(name)
            print(f"FAIL {name}: " + "; ".join(problems), flush=True)
        else:
            self.passed += 1
            print(f"ok {name}", flush=True)

    # MARK: Setup

    def setup(self):
        self.start()

        def ensure(answer, status, what):
            if answer.status != status:
                sys.exit(f"setup: {what} answered {answer.status}: {answer.text[:300]}")

        for name, title in [("work", "Work"), ("big", "Big"), ("scratch", "Scratch")]:
            ensure(self.send("MKCALENDAR", f"/dav/calendars/anna/{name}/", mkcalendar_body(title)), 201, f"MKCALENDAR {name}")
        ensure(self.send("PUT", "/dav/calendars/anna/work/standup.ics", STANDUP, {"Content-Type": "text/calendar"}), 201, "PUT standup")
        environment = {**os.environ, "ALMANAC_DATA": self.data}
        added = subprocess.run([self.almanac, "user", "add", "bob"], input=self.bob_password + "\n", env=environment, capture_output=True,
                               text=True, timeout=30)
        if added.returncode != 0:
            sys.exit(f"setup: almanac user add bob: {added.stderr}")
        ensure(self.send("MKCALENDAR", "/dav/calendars/bob/private/", mkcalendar_body("Private"), auth="bob"), 201, "MKCALENDAR bob")
        ensure(self.send("PUT", "/dav/calendars/bob/private/secret.ics", BOB_EVENT, {"Content-Type": "text/calendar"}, auth="bob"), 201, "PUT bob")
        for scope in ["read", "read-write", "add-only"]:
            created = subprocess.run([self.almanac, "token", "create", f"hostile-{scope}", "--scope", scope, "--user", "anna"], env=environment,
                                     capture_output=True, text=True, timeout=30)
            found = re.search(r"alm_\S+", created.stdout)
            if created.returncode != 0 or not found:
                sys.exit(f"setup: almanac token create --scope {scope}: {created.stdout} {created.stderr}")
            self.tokens[scope] = found.group(0)
        self.calendar_ids = self.calendars()
        if "Work" not in self.calendar_ids:
            sys.exit(f"setup: no Work calendar in {self.calendar_ids}")
        form = query(user="anna", password=self.password)
        login = self.send("POST", "/login", form, {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://{HOST}:{self.port}"},
                          auth=None)
        cookie = re.search(r"almanac_session=([^;]+)", " ".join(login.headers.get("set-cookie", [])))
        if login.status != 303 or not cookie:
            sys.exit(f"setup: POST /login answered {login.status} without a session cookie")
        self.cookie = cookie.group(1)
        ensure(self.web("/calendar"), 200, "GET /calendar")

    # MARK: Helpers for cases

    def calendars(self):
        """Anna's calendars by title: their API ids."""
        listing = self.send("GET", "/api/v1/calendars", auth=self.bearer("read")).json()
        return {calendar["title"]: calendar["id"] for calendar in listing["calendars"]}

    @staticmethod
    def expect(answer, statuses, mentioning=None, absent=None):
        statuses = (statuses,) if isinstance(statuses, int) else tuple(statuses)
        wanted = " or ".join(map(str, statuses))
        if answer.status not in statuses:
            raise Failure(f"status {answer.status}, expected {wanted} ({answer.text[:160].strip()!r})")
        if mentioning and mentioning not in answer.text:
            raise Failure(f"status {answer.status} as expected, but the body does not mention {mentioning!r}: {answer.text[:200]!r}")
        if absent and absent in answer.text:
            raise Failure(f"the answer contains {absent!r}")

    def exchange(self, expected, method, target, body=b"", headers=None, auth="anna", mentioning=None, absent=BOB_MARKER):
        """A case of one request: its status, what its body must mention, and what it must not
        (by default bob's private event, which no request of anna's may reveal)."""
        def action():
            self.expect(self.send(method, target, body, headers, auth=auth), expected, mentioning, absent)
        return action

    # MARK: - Cases

    def xml_bombs(self):
        work = "/dav/calendars/anna/work/"
        xml = {"Content-Type": "application/xml"}
        laughs = LAUGHS_DOCTYPE + f'<D:propfind {DAV}><D:prop><D:displayname>&lol9;</D:displayname></D:prop></D:propfind>'
        self.run("xml.billion-laughs.propfind", self.exchange(400, "PROPFIND", work, laughs, {**xml, "Depth": "1"}))
        report = LAUGHS_DOCTYPE + calendar_query("20261201T000000Z", "20261208T000000Z").replace("VEVENT", "&lol9;")
        self.run("xml.billion-laughs.report", self.exchange(400, "REPORT", work, report, {**xml, "Depth": "1"}))
        self.run("xml.billion-laughs.mkcalendar",
                 self.exchange(400, "MKCALENDAR", "/dav/calendars/anna/lol/", LAUGHS_DOCTYPE + mkcalendar_body("&lol9;"), xml))
        utf16 = ('<?xml version="1.0" encoding="UTF-16"?>' + laughs[len('<?xml version="1.0"?>'):]).encode("utf-16")
        self.run("xml.billion-laughs.utf16-propfind", self.exchange(400, "PROPFIND", work, utf16, {**xml, "Depth": "1"}))
        external = XXE_DOCTYPE + f'<D:propfind {DAV}><D:prop><D:displayname>&xxe;</D:displayname></D:prop></D:propfind>'
        self.run("xml.external-entity.propfind", self.exchange(400, "PROPFIND", work, external, {**xml, "Depth": "1"}, absent="root:"))
        update = XXE_DOCTYPE + f'<D:propertyupdate {DAV}><D:set><D:prop><D:displayname>&xxe;</D:displayname></D:prop></D:set></D:propertyupdate>'
        self.run("xml.external-entity.proppatch", self.exchange(400, "PROPPATCH", work, update, xml, absent="root:"))
        external_report = XXE_DOCTYPE + calendar_query("20261201T000000Z", "20261208T000000Z").replace("<D:getetag/>", "<D:getetag/>&xxe;")
        self.run("xml.external-entity.report", self.exchange(400, "REPORT", work, external_report, {**xml, "Depth": "1"}, absent="root:"))
        deep = f'<D:propfind {DAV}>' + "<D:prop>" * 10_000 + "</D:prop>" * 10_000 + "</D:propfind>"
        self.run("xml.deep-nesting.propfind", self.exchange(400, "PROPFIND", work, deep, {**xml, "Depth": "1"}))
        deep_report = (f'<C:calendar-query {DAV}><C:filter>' + '<C:comp-filter name="VCALENDAR">' * 10_000 + "</C:comp-filter>" * 10_000
                       + "</C:filter></C:calendar-query>")
        self.run("xml.deep-nesting.report", self.exchange(400, "REPORT", work, deep_report, {**xml, "Depth": "1"}))
        wide = f'<D:propfind {DAV}><D:prop>' + "<D:getetag/>" * 100_001 + "</D:prop></D:propfind>"
        self.run("xml.100001-elements.propfind", self.exchange(400, "PROPFIND", work, wide, {**xml, "Depth": "1"}))
        # A name that is not UTF-8 once made FoundationXML trap (found by the xml fuzz target).
        invalid_name = b'<C:calendar-query xmln\xff\xffD="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop/></C:calendar-query>'
        self.run("xml.invalid-utf8-name.report", self.exchange(400, "REPORT", work, invalid_name, {**xml, "Depth": "1"}))
        # A processing instruction without data once made FoundationXML read past its end.
        self.run("xml.empty-processing-instruction.propfind", self.exchange(400, "PROPFIND", work, f'<?x?><D:propfind {DAV}/>', {**xml, "Depth": "1"}))

    def depth_headers(self):
        for depth in ["99999999999999999999", "-1", "infinity"]:
            self.run(f"depth.{depth}", self.exchange(403, "PROPFIND", "/dav/calendars/anna/work/", PROPFIND_ETAGS, {"Depth": depth},
                                                     mentioning="propfind-finite-depth"))

    def path_tricks(self):
        paths = {
            "dot-dot-to-bob": "/dav/calendars/anna/%2e%2e/bob/private/",
            "dot-dot-deep": "/dav/calendars/anna/work/%2e%2e/%2e%2e/%2e%2e/calendars/bob/private/",
            "dot-dot-upper": "/dav/calendars/anna/%2E%2E/bob/private/secret.ics",
            "encoded-slash": "/dav/calendars/anna/work%2F..%2F..%2Fbob%2Fprivate/",
            "encoded-slash-object": "/dav/calendars/anna/work/..%2F..%2Fbob%2Fprivate%2Fsecret.ics",
            "nul-object": "/dav/calendars/anna/work/standup.ics%00.txt",
            "overlong-slash": "/dav/calendars/anna/work%c0%af..%c0%af..%c0%afbob/",
            "overlong-dots": "/dav/calendars/anna/%c0%ae%c0%ae/bob/private/",
            "invalid-escape": "/dav/calendars/anna/work/%zz.ics",
            "truncated-escape": "/dav/calendars/anna/work/standup.ics%4",
            "bob-directly": "/dav/calendars/bob/private/secret.ics",
        }
        for name, path in paths.items():
            self.run(f"path.{name}.get", self.exchange(404, "GET", path))
            self.run(f"path.{name}.propfind", self.exchange(404, "PROPFIND", path, b"", {"Depth": "1"}))
        # GET of a path shaped like one of the user's own collections names no calendar (a NUL
        # is no name's): 404, as PROPFIND and DELETE say (RFC 9110 §15.5.5), nothing stored.
        self.run("path.nul-calendar.get", self.exchange(404, "GET", "/dav/calendars/anna/work%00/"))
        self.run("path.nul-calendar.propfind", self.exchange(404, "PROPFIND", "/dav/calendars/anna/work%00/", b"", {"Depth": "1"}))
        self.run("path.put-into-bob-via-dot-dot",
                 self.exchange(404, "PUT", "/dav/calendars/anna/%2e%2e/bob/private/planted.ics", STANDUP, {"Content-Type": "text/calendar"}))
        self.run("path.put-name-over-255-bytes",
                 self.exchange(400, "PUT", "/dav/calendars/anna/work/" + "n" * 300 + ".ics", STANDUP, {"Content-Type": "text/calendar"}))
        for name, path in {
            "api-dot-dot-event": "/api/v1/events/..%2F..%2Fcalendars",
            "api-dot-dot-calendar": "/api/v1/calendars/%2e%2e",
            "api-invalid-escape": "/api/v1/events/%zz",
            "api-nul": "/api/v1/events/%00",
            "feed-dot-dot": "/feeds/..%2F..%2Fetc%2Fpasswd.ics",
            "feed-invalid-escape": "/feeds/%zz.ics",
            "static-dot-dot": "/static/..%2f..%2f..%2fetc%2fpasswd",
            "static-raw-dot-dot": "/static/../../../etc/passwd",
        }.items():
            self.run(f"path.{name}", self.exchange(404, "GET", path, absent="root:"))

        def long_path(prefix):
            def action():
                # libmicrohttpd refuses a request line over its 32 KiB connection memory itself: 414.
                raw = RawHTTP(self.port)
                try:
                    raw.send(f"GET {prefix}{'a' * 65536} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: {self.anna['Authorization']}\r\n"
                             "Connection: close\r\n\r\n".encode())
                    answer = raw.read_answer()
                finally:
                    raw.close()
                if answer is None:
                    raise Failure("the connection closed without a status, expected 414")
                self.expect(answer, 414)
            return action

        self.run("path.64kb.dav", long_path("/dav/calendars/anna/work/"))
        self.run("path.64kb.api", long_path("/api/v1/events/"))

    def big_objects(self):
        lines = [f"X-HOSTILE-{index}:value {index}" for index in range(100_000)]
        body = vevent("many@hostile", "DURATION:PT1H", "SUMMARY:Many properties", *lines)

        def many_properties():
            put = self.send("PUT", "/dav/calendars/anna/big/many.ics", body, {"Content-Type": "text/calendar"})
            self.expect(put, 201)
            got = self.send("GET", "/dav/calendars/anna/big/many.ics")
            self.expect(got, 200)
            count = got.text.count("X-HOSTILE-")
            if count != 100_000:
                raise Failure(f"GET gave back {count} of the 100,000 properties")
        self.run(f"ical.100000-properties ({len(body) >> 10} KiB)", many_properties, refused=False)

        def over_body_limit():
            # 17 MiB against the default 16 MiB limit: the answer comes on the headers.
            size = 17 << 20
            raw = RawHTTP(self.port)
            try:
                raw.send(f"PUT /dav/calendars/anna/work/huge.ics HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: {self.anna['Authorization']}\r\n"
                         f"Content-Type: text/calendar\r\nContent-Length: {size}\r\n\r\n".encode())
                if not raw.answered(within=2.0):
                    chunk = b"X" * (1 << 20)
                    for _ in range(17):
                        if not raw.send(chunk):
                            break
                answer = raw.read_answer()
            finally:
                raw.close()
            if answer is None:
                raise Failure("the connection closed without a status, expected 413")
            self.expect(answer, 413)
        self.run("ical.over-16MiB-body", over_body_limit)

    def deep_json(self):
        json_headers = {"Content-Type": "application/json"}
        rw = self.bearer("read-write")
        self.run("json.100000-nested-arrays", self.exchange(400, "POST", "/api/v1/events", "[" * 100_000 + "]" * 100_000, json_headers, auth=rw))
        nested = '{"calendarId":"%s","title":%s}' % (self.calendar_ids["Scratch"], "[" * 100_000 + "]" * 100_000)
        self.run("json.100000-nested-member", self.exchange(400, "POST", "/api/v1/events", nested, json_headers, auth=rw))
        objects = '{"a":' * 100_000 + "1" + "}" * 100_000
        self.run("json.100000-nested-objects.add-only", self.exchange(400, "POST", "/api/v1/events", objects, json_headers,
                                                                      auth=self.bearer("add-only")))
        self.run("json.100000-nested-arrays.conflicts", self.exchange(400, "POST", "/api/v1/conflicts", "[" * 100_000, json_headers, auth=rw))

    EXTREMES = ["0", "-1", "2147483648", "9223372036854775807", "-9223372036854775808", "99999999999999999999"]

    def numeric_extremes(self):
        read = self.bearer("read")
        base = {"from": "2026-12-01", "to": "2026-12-08", "duration": "30"}
        # duration and step must be at least a minute, so 0 is refused too; the others accept 0.
        for parameter in ["duration", "step", "bufferBefore", "bufferAfter", "notice", "bookingWindowDays", "dailyLimit", "weeklyLimit"]:
            for value in self.EXTREMES:
                expected = 200 if value == "0" and parameter not in ("duration", "step") else 400
                target = "/api/v1/availability?" + query(**{**base, parameter: value})
                self.run(f"availability.{parameter}={value}", self.exchange(expected, "GET", target, auth=read))
        for value in self.EXTREMES:
            expected = 200 if value == "0" else 400
            self.run(f"summary.titles={value}", self.exchange(expected, "GET", "/api/v1/summary?" + query(month="2026-12", titles=value), auth=read))
        for member in ["bufferBefore", "bufferAfter"]:
            for value in self.EXTREMES:
                expected = 200 if value == "0" else 400
                body = '{"start":"2026-12-02T09:00:00Z","end":"2026-12-02T10:00:00Z","%s":%s}' % (member, value)
                self.run(f"conflicts.{member}={value}", self.exchange(expected, "POST", "/api/v1/conflicts", body,
                                                                       {"Content-Type": "application/json"}, auth=read))

    RANGES = [
        ("0000-01-01", "0000-01-02", 400),
        ("0001-01-01", "0001-01-02", 200),
        ("9999-12-30", "9999-12-31", 200),
        ("9999-12-31", "10000-01-01", 400),
        ("0001-01-01", "9999-12-31", 400),  # range-too-long
        ("0001-01-01T00:00:00+23:59", "0001-01-02", 400),  # before year 1 in UTC
        ("9999-12-31T00:00:00Z", "9999-12-31T23:59:59-23:59", 400),  # past year 9999 in UTC
        ("2026-01-01T00:00:00--9999999999999999:00", "2026-01-02", 400),  # audit A4
        ("1970-01-01T00:00:00--2562047788015215:-30", "2026-01-02", 400),  # audit A4c
    ]

    def date_extremes(self):
        read = self.bearer("read")
        work = self.calendar_ids["Work"]
        for start, end, expected in self.RANGES:
            label = f"{start}..{end}"
            self.run(f"availability.range {label}",
                     self.exchange(expected, "GET", "/api/v1/availability?" + query(**{"from": start, "to": end, "duration": "30"}), auth=read))
            self.run(f"alarms.range {label}", self.exchange(expected, "GET", "/api/v1/alarms?" + query(**{"from": start, "to": end}), auth=read))
            self.run(f"occurrences.range {label}",
                     self.exchange(expected, "GET", f"/api/v1/calendars/{work}/occurrences?" + query(**{"from": start, "to": end}), auth=read))
        for parameters, expected in [
            ({"month": "0000-01"}, 400), ({"month": "0001-01"}, 200), ({"month": "9999-12"}, 200), ({"month": "10000-01"}, 400),
            ({"month": "0001-01", "firstWeekday": "sunday"}, 200), ({"week": "0001-W01"}, 200), ({"week": "0001-W01", "firstWeekday": "sunday"}, 200),
            ({"week": "9999-W52"}, 200), ({"week": "2026-W53"}, 200), ({"week": "2025-W53"}, 400), ({"week": "10000-W01"}, 400),
        ]:
            label = "&".join(f"{key}={value}" for key, value in parameters.items())
            self.run(f"summary.{label}", self.exchange(expected, "GET", "/api/v1/summary?" + query(**parameters), auth=read))
        for date, expected in [("0000-01-01", 400), ("0001-01-01", 200), ("9999-12-31", 200), ("10000-01-01", 400), ("2024-02-29", 200),
                               ("2100-02-29", 400), ("+999-01-01", 400)]:
            for view in ["month", "week", "day"]:
                self.run(f"web.calendar?view={view}&date={date}", self.web_case(expected, query(view=view, date=date)))
        self.run("web.calendar?view=week&date=0001-01-01&firstWeekday=sunday",
                 self.web_case(200, query(view="week", date="0001-01-01", firstWeekday="sunday")))
        self.run("web.calendar?view=month&date=9999-12-31&firstWeekday=sunday",
                 self.web_case(200, query(view="month", date="9999-12-31", firstWeekday="sunday")))

    def web_case(self, expected, parameters):
        def action():
            self.expect(self.web("/calendar?" + parameters), expected)
        return action

    def issue_extras(self):
        """Other cases issue 15 names, with the statuses it asks for."""
        rw = self.bearer("read-write")
        scratch = self.calendar_ids["Scratch"]
        json_headers = {"Content-Type": "application/json"}
        event = {"calendarId": scratch, "title": "Injected", "start": "2026-12-05T10:00:00Z", "end": "2026-12-05T11:00:00Z"}
        self.run("issue.url-with-crlf", self.exchange(400, "POST", "/api/v1/events", json.dumps({**event, "url": "https://x\r\nRRULE:FREQ=DAILY"}),
                                                      json_headers, auth=rw, mentioning="url"))
        self.run("issue.uid-with-crlf", self.exchange(400, "POST", "/api/v1/events", json.dumps({**event, "uid": "a\r\nRRULE:FREQ=DAILY"}),
                                                      json_headers, auth=rw, mentioning="uid"))
        self.run("issue.json-without-content-type", self.exchange(415, "POST", "/api/v1/events", json.dumps(event), auth=rw))
        self.run("issue.json-as-text-plain", self.exchange(415, "POST", "/api/v1/events", json.dumps(event), {"Content-Type": "text/plain"}, auth=rw))

        def wrong_tokens():
            for index in range(6):
                answer = self.send("GET", "/api/v1/calendars", auth={"Authorization": f"Bearer alm_wrong{index}_{'x' * 32}"})
                self.expect(answer, (401, 429))
            self.expect(self.send("GET", "/api/v1/calendars", auth=self.bearer("read")), 200)
        self.run("issue.six-wrong-tokens-do-not-lock-out-a-valid-one", wrong_tokens)

        def unauthenticated_upload():
            # The 401 should come when the headers arrive, before any of the 15 MB is sent.
            raw = RawHTTP(self.port)
            try:
                raw.send(f"PUT /dav/calendars/anna/work/upload.ics HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: text/calendar\r\n"
                         f"Content-Length: {15 << 20}\r\n\r\n".encode())
                if not raw.answered(within=2.0):
                    raise Failure("no answer within 2 s of the headers: the server waits for (and buffers) the unauthenticated body")
                answer = raw.read_answer()
            finally:
                raw.close()
            if answer is None:
                raise Failure("the connection closed without a status, expected 401")
            self.expect(answer, 401)
        self.run("issue.unauthenticated-15MB-upload-refused-at-headers", unauthenticated_upload)

    def accounts(self):
        """Issue 38's account routes, tried by the other user, by a token and with hostile bodies."""
        json_headers = {"Content-Type": "application/json"}
        work = self.calendar_ids["Work"]
        for who, auth in [("bob", "bob"), ("read-write-token", self.bearer("read-write")), ("anonymous", None)]:
            expected = 401 if auth is None else 403
            self.run(f"admin.list-users-as-{who}", self.exchange(expected, "GET", "/api/v1/admin/users", auth=auth))
            self.run(f"admin.delete-anna-as-{who}", self.exchange(expected, "DELETE", "/api/v1/admin/users/anna", auth=auth))
            self.run(f"admin.mint-for-anna-as-{who}",
                     self.exchange(expected, "POST", "/api/v1/admin/users/anna/tokens", json.dumps({"name": "x", "scope": "read-write"}),
                                   json_headers, auth=auth))
        self.run("admin.make-bob-admin-as-bob",
                 self.exchange(403, "PATCH", "/api/v1/admin/users/bob", json.dumps({"role": "admin"}),
                               {"Content-Type": "application/merge-patch+json"}, auth="bob"))

        def token_body(**fields):
            return json.dumps({"name": "hostile", "scope": "read", **fields})
        bodies = {
            "101-calendars": token_body(calendars=[work] * 101),
            "calendar-of-another-user": None,  # bob names anna's calendar below
            "calendars-not-a-list": token_body(calendars=work),
            "calendar-id-of-200KB": token_body(calendars=["c" * 200_000]),
            "name-of-200KB": token_body(name="n" * 200_000),
            "name-with-crlf": token_body(name="a\r\nb"),
            "scope-admin-for-a-user": None,
            "app-password-with-add-scope": token_body(kind="app-password", scope="add-only"),
            "unknown-kind": token_body(kind="root"),
            "expiresIn-10^30": '{"name":"hostile","scope":"read","expiresIn":1000000000000000000000000000000}',
            "expiresIn-two-years": token_body(expiresIn=2 * 366 * 86400),
            "expiresIn-as-text": token_body(expiresIn="30d"),
            "unknown-field": token_body(user="bob"),
        }
        for name, body in bodies.items():
            if body is not None:
                self.run(f"tokens.{name}", self.exchange(400, "POST", "/api/v1/tokens", body, json_headers))
        self.run("tokens.calendar-of-another-user",
                 self.exchange(400, "POST", "/api/v1/tokens", token_body(calendars=[work]), json_headers, auth="bob"))
        self.run("tokens.scope-admin-for-a-user",
                 self.exchange(400, "POST", "/api/v1/tokens", token_body(scope="admin"), json_headers, auth="bob"))
        self.run("tokens.made-by-a-token",
                 self.exchange(403, "POST", "/api/v1/tokens", token_body(), json_headers, auth=self.bearer("read-write")))

        def revoke_as_bob():
            listed = self.send("GET", "/api/v1/tokens").json()["tokens"]
            for token in listed:
                self.expect(self.send("DELETE", f"/api/v1/tokens/{token['id']}", auth="bob"), 404)
            self.expect(self.send("GET", "/api/v1/calendars", auth=self.bearer("read")), 200)
        self.run("tokens.revoke-annas-as-bob", revoke_as_bob)

        def app_password(scope, calendars=None):
            body = {"name": f"phone {scope}", "kind": "app-password", "scope": scope, **({"calendars": calendars} if calendars else {})}
            answer = self.send("POST", "/api/v1/tokens", json.dumps(body), json_headers)
            self.expect(answer, 201)
            return answer.json()["token"]

        def app_passwords():
            read = app_password("read")
            as_read = {"Authorization": basic("anna", read)}
            self.expect(self.send("GET", "/dav/calendars/anna/work/standup.ics", auth=as_read), 200)
            self.expect(self.send("PUT", "/dav/calendars/anna/work/hostile.ics", vevent("app@hostile", "DURATION:PT1H"),
                                  {"Content-Type": "text/calendar"}, auth=as_read), 403)
            self.expect(self.send("DELETE", "/dav/calendars/anna/work/standup.ics", auth=as_read), 403)
            self.expect(self.send("GET", "/api/v1/calendars", auth={"Authorization": "Bearer " + read}), 401)
            self.expect(self.send("GET", "/dav/calendars/bob/private/secret.ics", auth={"Authorization": basic("bob", read)}), 401)
            limited = {"Authorization": basic("anna", app_password("read-write", [self.calendar_ids["Scratch"]]))}
            self.expect(self.send("GET", "/dav/calendars/anna/work/standup.ics", auth=limited), 404)
            self.expect(self.send("PROPFIND", "/dav/calendars/anna/", PROPFIND_ETAGS, {"Depth": "1"}, auth=limited), 207, absent="Work")
            self.expect(self.send("MKCALENDAR", "/dav/calendars/anna/more/", mkcalendar_body("More"), auth=limited), 403)
            form = query(user="anna", password=read)
            login = self.send("POST", "/login", form, {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://{HOST}:{self.port}"},
                              auth=None)
            if "almanac_session=" in " ".join(login.headers.get("set-cookie", [])):
                raise Failure(f"the web sign-in took an app password (status {login.status})")
        self.run("app-passwords.read-only-limited-and-never-a-bearer-or-web-sign-in", app_passwords)

        # A server without an OpenID Connect provider takes no JWT and has no provider pages
        # (Tests/Browser/oidc_signin.py tries the provider's own hostile cases).
        jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbm5hIiwicHJlZmVycmVkX3VzZXJuYW1lIjoiYW5uYSJ9."
        self.run("oidc.jwt-without-a-provider",
                 self.exchange(401, "GET", "/api/v1/calendars", auth={"Authorization": "Bearer " + jwt}))
        self.run("oidc.sign-in-without-a-provider", self.exchange(404, "GET", "/login/oidc", auth=None))
        self.run("oidc.callback-without-a-provider",
                 self.exchange(404, "GET", "/login/oidc/callback?" + query(code="c", state="s"), auth=None))

    def known_crashes(self):
        calendar = {"Content-Type": "text/calendar"}
        overflow = vevent("overflow@hostile", "DURATION:PT1H", "SUMMARY:Overflow", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x",
                          "TRIGGER:-PT15M", "DURATION:P999999999W", "REPEAT:2147483647", "END:VALARM")
        self.run("crash.valarm-P999999999W-repeat-2147483647.caldav",
                 self.exchange(403, "PUT", "/dav/calendars/anna/work/overflow.ics", overflow, calendar, mentioning="valid-calendar-data"))
        jcal = ["vevent", [["uid", {}, "text", "overflow-api@hostile"], ["dtstart", {}, "date-time", "2026-12-01T09:00:00Z"],
                           ["duration", {}, "duration", "PT1H"], ["summary", {}, "text", "Overflow"]],
                [["valarm", [["action", {}, "text", "DISPLAY"], ["description", {}, "text", "x"], ["trigger", {}, "duration", "-PT15M"],
                             ["duration", {}, "duration", "P999999999W"], ["repeat", {}, "integer", 2147483647]], []]]]
        body = json.dumps({"calendarId": self.calendar_ids["Scratch"], "jcal": jcal})
        # The API's problem kind for what the store refuses as calendar data: invalid-calendar-data, 422.
        self.run("crash.valarm-P999999999W-repeat-2147483647.api-add-only",
                 self.exchange(422, "POST", "/api/v1/events", body, {"Content-Type": "application/json"}, auth=self.bearer("add-only")))
        self.run("crash.availability-duration=999999999999999999",
                 self.exchange(400, "GET", "/api/v1/availability?" + query(**{"from": "2026-12-01", "to": "2026-12-08", "duration": "999999999999999999"}),
                               auth=self.bearer("read")))
        self.run("crash.availability-bufferBefore=-999999999999999999",
                 self.exchange(400, "GET", "/api/v1/availability?" + query(**{"from": "2026-12-01", "to": "2026-12-08", "duration": "30",
                                                                            "bufferBefore": "-999999999999999999"}), auth=self.bearer("read")))
        self.run("crash.web-calendar-date=0000-01-15", self.web_case(400, query(date="0000-01-15")))

        def alarm_flood():
            self.make_calendar("alarms", "Alarms")
            body = vevent("flood@hostile", "DURATION:PT1H", "SUMMARY:Flood", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:-PT15M",
                          "DURATION:PT1S", "REPEAT:2147483646", "END:VALARM")
            self.expect(self.send("PUT", "/dav/calendars/anna/alarms/flood.ics", body, calendar), 201)
            answer = self.send("GET", "/api/v1/alarms?" + query(**{"from": "2026-12-01", "to": "2027-01-01"}), auth=self.bearer("read"))
            self.expect(answer, 200)
            listing = answer.json()
            count = len(listing.get("alarms", []))
            if listing.get("truncated") is not True or count != 10_000:
                raise Failure(f"alarms answered {count} firings with truncated={listing.get('truncated')!r}, expected 10000 and true")
            report = self.send("REPORT", "/dav/calendars/anna/alarms/", valarm_query("20261201T000000Z", "20270101T000000Z"), {"Depth": "1"})
            self.expect(report, 207, mentioning="flood.ics")
        self.run("crash.valarm-PT1S-repeat-2147483646 (PUT 201, alarms truncated at 10000)", alarm_flood, refused=False)

        year = ("20260101T000000Z", "20270101T000000Z")
        self.stored_rule("hang.rrule-daily-exrule-daily", "exrule",
                         ["RRULE:FREQ=DAILY", "EXRULE:FREQ=DAILY"], put=201, query_body=calendar_query(*year), query_status=207)
        self.stored_rule("hang.rrule-secondly-bysetpos-2", "bysetpos",
                         ["RRULE:FREQ=SECONDLY;BYSETPOS=2"], put=201, query_body=calendar_query(*year), query_status=207)
        self.stored_rule("hang.rrule-secondly-expand-a-year (instances capped)", "secondly",
                         ["RRULE:FREQ=SECONDLY"], put=201, query_body=calendar_query(*year, expand=True), query_status=207,
                         mentioning="number-of-matches-within-limits")
        self.stored_rule("crash.rrule-daily-interval-2147483647-count-50000", "interval",
                         ["RRULE:FREQ=DAILY;INTERVAL=2147483647;COUNT=50000"], put=201, query_body=calendar_query(*year), query_status=207)

    def make_calendar(self, name, title):
        answer = self.send("MKCALENDAR", f"/dav/calendars/anna/{name}/", mkcalendar_body(title))
        if answer.status != 201:
            raise Failure(f"MKCALENDAR {name} answered {answer.status}, so the case could not run")

    def stored_rule(self, name, calendar_name, rule_lines, put, query_body, query_status, mentioning=None):
        """PUTs an event with these rule lines into a calendar of its own; when stored,
        a query over a year (and the occurrences API) must answer within the timeout."""
        def action():
            self.make_calendar(calendar_name, calendar_name.capitalize())
            body = vevent(f"{calendar_name}@hostile", "DURATION:PT1M", f"SUMMARY:{calendar_name}", *rule_lines, start="20260101T000000Z")
            answer = self.send("PUT", f"/dav/calendars/anna/{calendar_name}/rule.ics", body, {"Content-Type": "text/calendar"})
            self.expect(answer, put)
            if answer.status != 201:
                return
            report = self.send("REPORT", f"/dav/calendars/anna/{calendar_name}/", query_body, {"Depth": "1"})
            self.expect(report, query_status, mentioning)
            identifier = self.calendars()[calendar_name.capitalize()]
            occurrences = self.send("GET", f"/api/v1/calendars/{identifier}/occurrences?" + query(**{"from": "2026-01-01", "to": "2027-01-01"}),
                                    auth=self.bearer("read"))
            self.expect(occurrences, 200)
        self.run(name, action, refused=False)

    def header_flood(self):
        def action():
            raw = RawHTTP(self.port)
            try:
                raw.send(f"GET /api/v1/calendars HTTP/1.1\r\nHost: {HOST}\r\n".encode())
                value = "v" * 8192
                for index in range(1000):
                    if not raw.send(f"X-Flood-{index}: {value}\r\n".encode()):
                        break
                else:
                    raw.send(b"\r\n")
                answer = raw.read_answer()
            finally:
                raw.close()
            # libmicrohttpd answers 431 once the headers pass its connection memory; the
            # connection may also be reset before the answer is read, which is fine too.
            if answer is not None:
                self.expect(answer, 431)
        self.run("flood.1000-headers-of-8KB", action)

    def idle_connections(self):
        """Floods of idle or half-sent connections from one loopback address (the server
        holds at most 128 per address) leave room for a client at another address."""
        def open_many(count, source, first_bytes):
            sockets = []
            deadline = time.monotonic() + 20
            for _ in range(count):
                if time.monotonic() > deadline:
                    break
                try:
                    connection = socket.create_connection((HOST, self.port), timeout=TIMEOUT, source_address=(source, 0))
                except OSError:
                    continue
                if first_bytes:
                    with contextlib.suppress(OSError):
                        connection.sendall(first_bytes)
                sockets.append(connection)
            return sockets

        def still_open(sockets):
            """The connections the server kept: a closed one reads as end of file or a reset."""
            time.sleep(0.5)
            kept = 0
            for connection in sockets:
                connection.setblocking(False)
                try:
                    kept += 1 if connection.recv(1) else 0
                except BlockingIOError:
                    kept += 1
                except OSError:
                    pass
            return kept

        def with_open(count, source, first_bytes):
            def action():
                sockets = open_many(count, source, first_bytes)
                try:
                    kept = still_open(sockets)
                    if kept > 128:
                        raise Failure(f"{source} holds {kept} connections; the limit per address is 128")
                    try:
                        answer = self.send("OPTIONS", "/")
                    except NoAnswer as error:
                        raise Failure(f"with {count} connections from {source}, a client at {HOST} got no answer: {error}")
                    self.expect(answer, 200)
                finally:
                    for connection in sockets:
                        with contextlib.suppress(OSError):
                            connection.close()
            return action

        self.run("flood.1100-idle-connections-from-one-address", with_open(1100, "127.0.0.3", b""))
        self.run("flood.300-half-sent-requests-from-one-address", with_open(300, "127.0.0.4", f"GET / HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode()))

    def stop_while_busy(self):
        """The last case: SIGTERM while two slow requests run (a secondly rule expanded
        over a year). The server must finish them and exit with status 0 within 10 s."""
        name = "sigterm.stops-the-server-during-2-requests"
        statuses = []

        def busy():
            try:
                statuses.append(self.send("REPORT", "/dav/calendars/anna/secondly/", calendar_query("20260101T000000Z", "20270101T000000Z", expand=True),
                                          {"Depth": "1"}).status)
            except NoAnswer as error:
                statuses.append(f"no answer ({error})")

        workers = [threading.Thread(target=busy, daemon=True) for _ in range(2)]
        if self.alive():
            for worker in workers:
                worker.start()
            time.sleep(0.3)
        status, seconds, killed = self.stop(grace=10.0)
        for worker in workers:
            if worker.ident is not None:  # started
                worker.join(timeout=TIMEOUT)
        unanswered = [entry for entry in statuses if not isinstance(entry, int)]
        if killed or status != 0 or unanswered:
            self.failed.append(name)
            print(f"FAIL {name}: exit status {status} after {seconds:.1f} s{' (needed SIGKILL)' if killed else ''}"
                  + (f"; requests in progress: {unanswered}" if unanswered else ""), flush=True)
        else:
            self.passed += 1
            print(f"ok {name} ({seconds:.1f} s; the requests answered {statuses})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--almanac", required=True)
    parser.add_argument("--keep", action="store_true", help="keep the data directory and server log")
    arguments = parser.parse_args()
    started = time.monotonic()
    data = tempfile.mkdtemp(prefix="almanac-hostile-")
    suite = Suite(os.path.abspath(arguments.almanac), data, os.path.join(data, "server.log"))
    try:
        suite.setup()
        suite.xml_bombs()
        suite.depth_headers()
        suite.path_tricks()
        suite.deep_json()
        suite.numeric_extremes()
        suite.date_extremes()
        suite.issue_extras()
        suite.accounts()
        suite.big_objects()
        suite.known_crashes()
        suite.header_flood()
        suite.idle_connections()
    except (SystemExit, Exception) as error:  # setup, or a restart, could not go on: that is a failure too
        suite.failed.append("suite")
        print(f"FAIL suite: stopped early: {type(error).__name__}: {error}", flush=True)
    finally:
        if suite.server is not None:
            suite.stop_while_busy()
        if suite.failed and arguments.keep:
            print(f"# data and server log kept in {data} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
        else:
            shutil.rmtree(data, ignore_errors=True)
    print(f"{suite.passed} passed, {len(suite.failed)} failed")
    sys.exit(1 if suite.failed else 0)


if __name__ == "__main__":
    main()
