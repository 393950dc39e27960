"""An SMTP sink on 127.0.0.1 for the mail tests (aiosmtpd, never a real mail server):
it keeps every message the server's relay is given."""
import asyncio
import socket
import threading

from aiosmtpd.controller import Controller


class Sink:
    """Keeps (envelope sender, recipients, bytes) of each message; while `held` is
    cleared it keeps the relay waiting for its answer to DATA."""

    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []
        self.held = threading.Event()
        self.held.set()

    async def handle_DATA(self, server, session, envelope):
        while not self.held.is_set():
            await asyncio.sleep(0.05)
        with self.lock:
            self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


def start_sink():
    """A started sink: (sink, its controller to stop, its port)."""
    sink = Sink()
    # aiosmtpd wants its port named: a free one, found by binding 0.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    return sink, controller, port
