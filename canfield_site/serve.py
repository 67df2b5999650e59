"""``python -m canfield_site.serve -b HOST -p PORT [more daphne options]``: Daphne serving the
site, with the options the settings give it.

Everything that starts a web process starts it so — ``make run``, the image (``Dockerfile``, run
by ``docker-compose.yml``), the tests and the benchmarks — so that each one serves within the same
limits. The options are Daphne's documented command-line options, built from the settings
(:func:`daphne_options`), then the ones given here, then the application; Daphne's own command
line (``daphne.cli.CommandLineInterface``) parses them and runs the server, and an option given
here wins over the settings' (argparse keeps the last). What they hold, with what the ASGI layer
adds (``core.socket_limits``):

- ``--websocket-max-frame-size``: ``SOCKET_MAX_MESSAGE``. A larger frame drops the connection
  as soon as its header announces its length, its payload unread.
- ``--websocket-max-message-size``: ``SOCKET_MAX_PENDING``. Autobahn, which Daphne's websockets
  run on, holds a client's message in frames until it is whole, and applies this limit to what
  the server sends as well: it must let the board's snapshot out (~33 KB for a full board), and no
  frame the server sends is worth more than what a client may leave unread. A message over
  ``SOCKET_MAX_MESSAGE`` that arrives in smaller frames reaches the ASGI layer, which closes the
  socket with 4009.
- ``--ping-interval``, ``--ping-timeout``: ``SOCKET_PING_INTERVAL``, ``SOCKET_PING_TIMEOUT``.
  Daphne pings a socket that sent nothing for the interval and drops it when the answer has not
  come within the timeout: a client that stopped reading never answers.

One thing no option or ASGI message reaches: the protocol pings a client sends, which never get to
the application. Autobahn (Daphne's websockets) answers each with a pong, and a client that sends
pings as fast as it can and reads nothing had those pongs wait in the process: +525 MB in the 52 s
until the ping time-out dropped it (docs/reliability.md). So the server this module runs is the
one adapter of the edge (:class:`Server`, listed in docs/architecture.md): through Daphne's
``ready_callable`` (a constructor argument of its server, called once its factories are made and
before it serves anything) its websocket factory's ``protocol`` (Twisted's attribute naming the
class a factory builds) is set to :class:`PingCountingProtocol`, Daphne's own protocol whose
``onPing`` (Autobahn's documented callback for a ping received) counts pings in a bucket as
``core.socket_limits`` counts messages: past it, the socket is closed with 4008
``too_many_messages`` and nothing more of it is read. ``tests/site/test_socket_limits.py`` tries
the flood.

What Daphne alone does not hold: its HTTP connections have Twisted's idle timeout (60 s), which
every byte received starts again, and no deadline for a request's headers or body; it reads a
whole request body before the application sees it. ``make run`` is the zero-setup shape for one
machine; the deployed shape has nginx in front (``deploy/nginx.conf``), which gives headers and
bodies their deadlines and caps bodies before they reach Daphne.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

log = logging.getLogger("canfield_site.serve")

#: The ASGI application Daphne serves.
APPLICATION = "canfield_site.asgi:application"


def daphne_options() -> list[str]:
    """Daphne's command-line options from the settings (the module's docstring)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")
    from django.conf import settings

    return [
        "--websocket-max-frame-size",
        str(settings.SOCKET_MAX_MESSAGE),
        "--websocket-max-message-size",
        str(settings.SOCKET_MAX_PENDING),
        "--ping-interval",
        str(settings.SOCKET_PING_INTERVAL),
        "--ping-timeout",
        str(settings.SOCKET_PING_TIMEOUT),
    ]


def ping_counting_server() -> type[Any]:
    """Daphne's server whose websockets count the pings their clients send (the module's
    docstring). Made when Daphne is run, so that importing this module imports no Twisted."""
    from daphne.server import Server as DaphneServer  # type: ignore[import-untyped]
    from daphne.ws_protocol import WebSocketProtocol  # type: ignore[import-untyped]
    from django.conf import settings

    from core.socket_limits import CLOSE_POLICY, Bucket

    class PingCountingProtocol(WebSocketProtocol):  # type: ignore[misc]
        """Daphne's websocket protocol, its client's pings counted (Autobahn's ``onPing``)."""

        pings: Bucket | None = None

        def onPing(self, payload: bytes) -> None:
            if self.pings is None:
                self.pings = Bucket(
                    float(settings.SOCKET_MESSAGES_PER_SECOND), int(settings.SOCKET_MESSAGE_BURST)
                )
            if self.state == self.STATE_OPEN and not self.pings.take():
                log.warning("websocket: %s sent pings past its limit; closed", self.client_addr)
                # Autobahn's sendClose (an application's code and reason); then read no more of
                # it: its close handshake's time-out drops the connection.
                self.sendClose(code=CLOSE_POLICY, reason="too_many_messages")
                self.transport.pauseProducing()
                return
            if self.state == self.STATE_OPEN:
                super().onPing(payload)

    class Server(DaphneServer):  # type: ignore[misc]
        """Daphne's server, its websocket factory building :class:`PingCountingProtocol`."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            given = kwargs.get("ready_callable")

            def ready() -> None:
                self.ws_factory.protocol = PingCountingProtocol
                if given is not None:
                    given()

            kwargs["ready_callable"] = ready
            super().__init__(*args, **kwargs)

    return Server


def main(argv: Sequence[str] | None = None) -> None:
    """Run Daphne with the settings' options, then ``argv``'s, on :data:`APPLICATION`."""
    from daphne.cli import CommandLineInterface  # type: ignore[import-untyped]

    given = list(sys.argv[1:] if argv is None else argv)
    options = daphne_options()  # (first: it names the settings module when none is)
    cli = CommandLineInterface()
    cli.server_class = ping_counting_server()  # (the class Daphne's command line runs)
    cli.run([*options, *given, APPLICATION])


if __name__ == "__main__":
    main()
