"""A real SMTP server for tests (aiosmtpd, on a thread of its own): the site's mails reach it
through Django's SMTP backend, as they would reach a mail server in a deployment."""

import re
import socket
import threading
from dataclasses import dataclass
from email import message_from_bytes, policy

from aiosmtpd.controller import Controller


@dataclass(frozen=True)
class ReceivedMail:
    sender: str
    recipients: list
    subject: str
    body: str

    def link(self) -> str:
        """The first http(s) link in the body."""
        found = re.search(r"https?://\S+", self.body)
        assert found, f"no link in the mail:\n{self.body}"
        return found.group(0)


class Mailbox:
    def __init__(self):
        self.received: list[ReceivedMail] = []
        self._arrived = threading.Condition()
        self._controller = None

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        mail = ReceivedMail(
            sender=envelope.mail_from,
            recipients=list(envelope.rcpt_tos),
            subject=str(message["subject"]),
            body=message.get_body(preferencelist=("plain",)).get_content(),
        )
        with self._arrived:
            self.received.append(mail)
            self._arrived.notify_all()
        return "250 Message accepted for delivery"

    def start(self) -> "Mailbox":
        with socket.socket() as probe:  # a free port (aiosmtpd checks it is up by connecting)
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self._controller = Controller(self, hostname="127.0.0.1", port=port)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()

    @property
    def port(self) -> int:
        return self._controller.port

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}/"

    def wait_for(self, count: int = 1, timeout: float = 30.0) -> list[ReceivedMail]:
        """The mails received so far, once there are at least `count` of them."""
        with self._arrived:
            arrived = self._arrived.wait_for(lambda: len(self.received) >= count, timeout)
            assert arrived, f"{len(self.received)} mail(s) arrived within {timeout} s, not {count}"
            return list(self.received)

    def to(self, address: str) -> list[ReceivedMail]:
        with self._arrived:
            return [m for m in self.received if address in m.recipients]
