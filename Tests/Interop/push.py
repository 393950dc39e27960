"""WebDAV-Push end to end against a Web Push receiver on loopback, written with
well-kept libraries from PyPI: `http-ece` decrypts each message (RFC 8291, aes128gcm)
with the user agent's private key, `pyjwt` verifies its VAPID JWT (RFC 8292, ES256)
against the key the server advertises.

A user registers push subscriptions on a calendar as DAVx⁵ does (PROPFIND for
transports, topic and supported-triggers; POST push-register with the subscription's
push resource, p256dh key and auth secret, triggers and expiry), then changes it by
CalDAV, by the API and by an import in another process; each change arrives as one
encrypted message with the topic and the new sync token, the TTL, Urgency and Topic
headers. An import of many events arrives as one message. A second user cannot
register on the first user's calendar nor remove their registration; a push service
answering 410 loses its subscription; an unregistered subscription gets nothing; a
server without --allow-private-push refuses a loopback push resource."""
import base64
import email.utils
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from almanac_server import AlmanacServer, BasicClient  # noqa: E402
from interop_support import check, main, wait_for  # noqa: E402

PUSH = "https://bitfire.at/webdav-push"
DAV = "DAV:"
NS = {"P": PUSH, "D": DAV}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Receiver:
    """A push service stand-in: keeps every message POSTed to /push/NAME with its
    headers, answering 201, or the status set for NAME (410 for a gone subscription)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []
        self.statuses = {}
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                name = self.path.rsplit("/", 1)[-1]
                with receiver.lock:
                    receiver.messages.append((name, dict(self.headers), body))
                    status = receiver.statuses.get(name, 201)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def to(self, name):
        with self.lock:
            return [(headers, body) for n, headers, body in self.messages if n == name]


class Device:
    """A user agent's subscription: its push resource at the receiver and its RFC 8291 keys."""

    def __init__(self, receiver, name):
        self.name = name
        self.resource = f"{receiver.origin}/push/{name}"
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                         serialization.PublicFormat.UncompressedPoint)
        self.auth = os.urandom(16)

    def register_body(self, expires=None, triggers=None):
        triggers = triggers if triggers is not None else (
            "<P:content-update><D:depth>1</D:depth></P:content-update>"
            "<P:property-update><D:depth>0</D:depth></P:property-update>")
        expiry = f"<P:expires>{expires}</P:expires>" if expires else ""
        return (f'<?xml version="1.0" encoding="utf-8"?><P:push-register xmlns:P="{PUSH}" xmlns:D="DAV:">'
                f"<P:subscription><P:web-push-subscription><P:push-resource>{self.resource}</P:push-resource>"
                f"<P:content-encoding>aes128gcm</P:content-encoding>"
                f'<P:subscription-public-key type="p256dh">{b64url(self.public)}</P:subscription-public-key>'
                f"<P:auth-secret>{b64url(self.auth)}</P:auth-secret></P:web-push-subscription></P:subscription>"
                f"<P:trigger>{triggers}</P:trigger>{expiry}</P:push-register>").encode()

    def decrypt(self, body):
        return http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")


def http_date(seconds):
    return email.utils.formatdate(seconds, usegmt=True)


def propfind(client, path, names):
    body = (f'<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:P="{PUSH}"><D:prop>{names}</D:prop></D:propfind>')
    status, _, data = client.request("PROPFIND", path, body.encode(), {"Depth": "0", "Content-Type": "application/xml"})
    check(status == 207, f"PROPFIND {path} answers 207 ({status})")
    return ET.fromstring(data)


def sync_token(client, path):
    return propfind(client, path, "<D:sync-token/>").find(".//D:sync-token", NS).text


def event(uid, day, summary="Training"):
    return (f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//Push//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n"
            f"DTSTAMP:20261201T000000Z\r\nDTSTART:202612{day:02d}T100000Z\r\nDURATION:PT1H\r\nSUMMARY:{summary}\r\n"
            "END:VEVENT\r\nEND:VCALENDAR\r\n").encode()


def verify(device, headers, body, topic, vapid_key, receiver):
    """Checks one message as a user agent and push service would; returns its XML."""
    check(headers.get("Content-Encoding") == "aes128gcm", "the message is aes128gcm-encoded")
    check(headers.get("TTL") == "86400", f"TTL is a day ({headers.get('TTL')})")
    check(headers.get("Urgency") == "normal", "Urgency: normal")
    check(headers.get("Topic", "").startswith(topic) and len(headers["Topic"]) <= 32
          and re.fullmatch(r"[A-Za-z0-9_-]+", headers["Topic"]) is not None,
          f"the Topic header is the collection's topic, RFC 8030's alphabet, at most 32 characters ({headers.get('Topic')})")
    scheme, _, parameters = headers.get("Authorization", "").partition(" ")
    fields = dict(part.strip().split("=", 1) for part in parameters.split(","))
    check(scheme == "vapid" and fields.get("k") == vapid_key, "VAPID authorization with the advertised key")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(vapid_key))
    claims = jwt.decode(fields["t"], public, algorithms=["ES256"], audience=receiver.origin)
    check(0 < claims["exp"] - time.time() <= 24 * 3600, "the VAPID JWT expires within 24 hours (RFC 8292 §2)")
    message = ET.fromstring(device.decrypt(body))
    check(message.tag == f"{{{PUSH}}}push-message", "the decrypted body is a push-message")
    check(message.find("P:topic", NS).text == topic, "it names the collection's topic")
    return message


def scenario(almanac, data):
    receiver = Receiver()
    server = AlmanacServer(almanac, data, "anna", extra=["--allow-private-push"])
    anna = BasicClient(server.port, "anna", server.password)
    subprocess.run([almanac, "user", "add", "bob", "--data", data], input="bob-secret\n", text=True, check=True,
                   stdout=subprocess.DEVNULL)
    bob = BasicClient(server.port, "bob", "bob-secret")
    calendar = "/dav/calendars/anna/work/"
    try:
        status, _, _ = anna.request("MKCALENDAR", calendar)
        check(status == 201, f"anna makes a calendar ({status})")

        # Service detection, as DAVx⁵ does it.
        found = propfind(anna, calendar, "<P:transports/><P:topic/><P:supported-triggers/>")
        key = found.find(".//P:transports/P:web-push/P:vapid-public-key", NS)
        check(key is not None and key.get("type") == "p256ecdsa", "Web Push is advertised with a p256ecdsa VAPID key")
        vapid_key = key.text
        check(len(unb64url(vapid_key)) == 65 and unb64url(vapid_key)[0] == 4, "the VAPID key is an uncompressed P-256 point")
        topic = found.find(".//P:topic", NS).text
        check(re.fullmatch(r"[A-Za-z0-9_-]{22}", topic) is not None, f"the topic is 22 base64url characters ({topic})")
        triggers = found.find(".//P:supported-triggers", NS)
        check(triggers.find("P:content-update", NS) is not None and triggers.find("P:property-update", NS) is not None,
              "content and property updates are supported triggers")

        phone = Device(receiver, "phone")
        requested = int(time.time()) + 4 * 86400
        status, headers, _ = anna.request("POST", calendar, phone.register_body(http_date(requested)),
                                          {"Content-Type": "application/xml; charset=utf-8"})
        check(status == 201, f"push-register answers 201 ({status})")
        location = headers.get("Location", "")
        check(re.fullmatch(r"/dav/push/anna/[^/]+", location) is not None, f"Location is the registration URL ({location})")
        granted = email.utils.parsedate_to_datetime(headers["Expires"]).timestamp()
        check(abs(granted - requested) <= 1, "the requested expiry (four days) is granted")
        status, headers, _ = anna.request("POST", calendar, phone.register_body(http_date(int(time.time()) + 90 * 86400)),
                                          {"Content-Type": "application/xml"})
        later = email.utils.parsedate_to_datetime(headers["Expires"]).timestamp()
        check(status == 201 and headers["Location"] == location and later <= time.time() + 7 * 86400 + 5,
              "registering the same push resource again renews it, capped at seven days")
        status, _, _ = anna.request("POST", calendar, phone.register_body("Sun, 06 Nov 1994 08:49:37 GMT"),
                                    {"Content-Type": "application/xml"})
        check(status == 400, f"an expiry in the past is refused ({status})")

        # A CalDAV write: one message with the new sync token.
        status, _, _ = anna.request("PUT", calendar + "one.ics", event("push-1", 10), {"Content-Type": "text/calendar"})
        check(status == 201, "an event is PUT")
        wait_for(lambda: len(receiver.to("phone")) >= 1, "the first push message")
        message = verify(phone, *receiver.to("phone")[0], topic, vapid_key, receiver)
        token = message.find("P:content-update/D:sync-token", NS)
        check(token is not None and token.text == sync_token(anna, calendar),
              "a content update carries the calendar's sync token after the change")

        # An API write, then a property change (PROPPATCH): each is pushed.
        status, _, calendars = anna.request("GET", "/api/v1/calendars")
        work = next(c for c in json.loads(calendars)["calendars"] if c["title"] in ("work", "Work"))
        status, _, _ = anna.request("POST", "/api/v1/events", json.dumps({
            "calendarId": work["id"], "title": "From the API", "start": "2026-12-11T09:00:00Z",
            "end": "2026-12-11T10:00:00Z"}).encode(), {"Content-Type": "application/json"})
        check(status == 201, f"an event is created through the API ({status})")
        wait_for(lambda: len(receiver.to("phone")) >= 2, "the API write's message")
        message = verify(phone, *receiver.to("phone")[1], topic, vapid_key, receiver)
        check(message.find("P:content-update/D:sync-token", NS).text == sync_token(anna, calendar),
              "the API write's message has the new sync token")
        body = (f'<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop>'
                f"<D:displayname>Work (renamed)</D:displayname></D:prop></D:set></D:propertyupdate>")
        status, _, _ = anna.request("PROPPATCH", calendar, body.encode(), {"Content-Type": "application/xml"})
        check(status == 207, "the calendar is renamed")
        wait_for(lambda: len(receiver.to("phone")) >= 3, "the property change's message")
        message = verify(phone, *receiver.to("phone")[2], topic, vapid_key, receiver)
        check(message.find("P:property-update", NS) is not None and message.find("P:content-update", NS) is None,
              "a property change is pushed as a property-update")

        # Another process imports 25 events in one transaction: one message.
        lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Push//EN"]
        for n in range(25):
            lines += ["BEGIN:VEVENT", f"UID:bulk-{n}", "DTSTAMP:20261201T000000Z", f"DTSTART:20261215T{n % 10:02d}0000Z",
                      "DURATION:PT30M", f"SUMMARY:Bulk {n}", "END:VEVENT"]
        lines.append("END:VCALENDAR")
        path = os.path.join(data, "bulk.ics")
        with open(path, "w") as file:
            file.write("\r\n".join(lines) + "\r\n")
        subprocess.run([almanac, "import", path, "--calendar", "Work (renamed)", "--user", "anna", "--data", data],
                       check=True, stdout=subprocess.DEVNULL)
        wait_for(lambda: len(receiver.to("phone")) >= 4, "the import's message")
        final = sync_token(anna, calendar)
        time.sleep(2)  # a second message for the import would arrive meanwhile
        check(len(receiver.to("phone")) == 4, f"25 events imported at once are one message ({len(receiver.to('phone')) - 3})")
        message = verify(phone, *receiver.to("phone")[3], topic, vapid_key, receiver)
        check(message.find("P:content-update/D:sync-token", NS).text == final, "with the sync token after the import")

        # Another user: no registration on anna's calendar, no removing anna's.
        stranger = Device(receiver, "stranger")
        status, _, _ = bob.request("POST", calendar, stranger.register_body(), {"Content-Type": "application/xml"})
        check(status in (403, 404), f"bob cannot register on anna's calendar ({status})")
        status, _, _ = bob.request("DELETE", location)
        check(status == 404, f"bob cannot remove anna's registration ({status})")
        status, _, _ = bob.request("MKCALENDAR", "/dav/calendars/bob/own/")
        check(status == 201, "bob makes a calendar of his own")
        status, _, _ = bob.request("POST", "/dav/calendars/bob/own/", stranger.register_body(),
                                   {"Content-Type": "application/xml"})
        check(status == 201, "bob registers on his own calendar")
        anna.request("PUT", calendar + "two.ics", event("push-2", 12), {"Content-Type": "text/calendar"})
        wait_for(lambda: len(receiver.to("phone")) >= 5, "anna's next message")
        check(receiver.to("stranger") == [], "bob's subscription hears nothing of anna's calendar")

        # A push service answering 410: the subscription is removed.
        gone = Device(receiver, "gone")
        receiver.statuses["gone"] = 410
        status, headers, _ = anna.request("POST", calendar, gone.register_body(), {"Content-Type": "application/xml"})
        check(status == 201, "a second device registers")
        gone_location = headers["Location"]
        anna.request("PUT", calendar + "three.ics", event("push-3", 13), {"Content-Type": "text/calendar"})
        wait_for(lambda: len(receiver.to("gone")) >= 1 and len(receiver.to("phone")) >= 6, "both devices' messages")
        for n, uid in enumerate(["push-4", "push-5"]):
            anna.request("PUT", calendar + f"{uid}.ics", event(uid, 14 + n), {"Content-Type": "text/calendar"})
            wait_for(lambda: len(receiver.to("phone")) >= 7 + n, "the phone's message")
        check(len(receiver.to("gone")) == 1, "after 410 the subscription gets no more messages")
        status, _, _ = anna.request("DELETE", gone_location)
        check(status == 404, f"and its registration is gone ({status})")

        # Unregistering: no more messages.
        status, _, _ = anna.request("DELETE", location)
        check(status == 204, f"anna unregisters the phone ({status})")
        count = len(receiver.to("phone"))
        second = Device(receiver, "tablet")
        anna.request("POST", calendar, second.register_body(), {"Content-Type": "application/xml"})
        anna.request("PUT", calendar + "six.ics", event("push-6", 20), {"Content-Type": "text/calendar"})
        wait_for(lambda: len(receiver.to("tablet")) >= 1, "the tablet's message")
        check(len(receiver.to("phone")) == count, "the unregistered phone gets nothing")
        verify(second, *receiver.to("tablet")[0], topic, vapid_key, receiver)
    finally:
        check(server.stop() == 0, "the server stopped cleanly")

    # Without --allow-private-push a loopback push resource is refused at registration.
    plain = AlmanacServer(almanac, data, "anna", password=server.password)
    try:
        client = BasicClient(plain.port, "anna", server.password)
        status, _, body = client.request("POST", calendar, Device(receiver, "private").register_body(),
                                         {"Content-Type": "application/xml"})
        check(status == 403 and b"--allow-private-push" in body,
              f"a loopback push resource is refused without --allow-private-push ({status})")
    finally:
        check(plain.stop() == 0, "the second server stopped cleanly")


if __name__ == "__main__":
    main(scenario, "push")
