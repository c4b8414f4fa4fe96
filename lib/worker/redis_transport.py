"""kombu's Redis transport, patched so a worker outlives a broker restart.

Celery 5.7 / kombu 5.7 / redis-py 8.1: a worker with a free pool slot has a
BRPOP in flight. When Redis goes away, the consumer's clean-up closes the
channel twice: first through `Connection.collect()`, where reading the
pending BRPOP raises ConnectionError before the channel is marked closed
(kombu swallows it), then through `Connection.close()`, after `collect()` has
detached the transport (`transport.client = None`). The second close tries to
give back the unacknowledged messages, builds a new connection pool from the
detached transport and raises AttributeError ("'NoneType' object has no
attribute 'hostname'"), which is not a connection error: the worker stops
for good ("Unrecoverable error"; the family of kombu#582 and celery#10205).

Two changes, each enough on its own:
- a pending BRPOP whose connection is gone has nothing to deliver: it is
  read like an empty reply, so the first close completes;
- giving messages back through a transport that is already detached is
  skipped (there is no broker to give them to). They stay in the broker's
  unacked index, which puts them back after the visibility timeout, or, if
  the broker lost its data, the sweeps queue their rows again.

`docuiq.celery` registers this module for `redis://` and `rediss://` URLs.
docuiq/tests/test_recovery.py restarts a real Redis under a busy worker.
"""

from __future__ import annotations

import logging
from queue import Empty
from typing import Any

from kombu.transport import redis as kombu_redis

logger = logging.getLogger(__name__)


class QoS(kombu_redis.QoS):
    def restore_unacked(self, client: Any = None) -> None:
        if client is None and self.channel.connection.client is None:
            logger.warning(
                "broker connection already closed: %d unacknowledged message(s) "
                "are left to the broker's visibility timeout",
                len(self._delivered),
            )
            self._delivered.clear()
            return
        super().restore_unacked(client)


class Channel(kombu_redis.Channel):
    QoS = QoS

    def close(self) -> None:
        if self._in_poll:
            try:
                self._brpop_read()
            except Empty:
                pass
            except self.connection_errors:
                # The reply will never come; _brpop_read has cleared _in_poll.
                pass
        super().close()


class Transport(kombu_redis.Transport):
    Channel = Channel


def install() -> None:
    """Make `redis://` and `rediss://` broker URLs use this transport."""
    from kombu.transport import TRANSPORT_ALIASES

    TRANSPORT_ALIASES["redis"] = f"{__name__}:Transport"
    TRANSPORT_ALIASES["rediss"] = f"{__name__}:Transport"
