"""The Celery broker transport: kombu's Redis transport, made to survive Redis going away.

When a worker loses Redis, kombu gives up the connection (the transport lets go of its
connection details) and closes the channel, dropping its connection pools. Two things then
crash the whole worker in kombu 5.7 ("Unrecoverable error: AttributeError: 'NoneType' object
has no attribute ..."):
- putting the worker's unacknowledged tasks back on their queues ('hostname');
- acknowledging a task that finished after the channel closed ('client': bot tasks acknowledge
  when done).
Nothing is lost by skipping either step on a channel whose connection is gone: those tasks are
still in Redis's unacked set, Redis hands them out again after the visibility timeout (a bot
task already done then finds its version has moved on), and the sweeper wakes their tables long
before.

It also publishes and acknowledges through one Redis client per connection pool: kombu made a
new client for every publish and every acknowledgement, and a client's construction (a copy of
its two hundred response callbacks) was a twentieth of a worker's busy CPU under the load test.
A client is safe to share between threads: it takes a connection from the pool for each command,
and each pipeline is an object of its own.
"""

from contextlib import contextmanager

from kombu.transport import redis, virtual


class QoS(redis.QoS):
    def _connection_gone(self) -> bool:
        connection = self.channel.connection
        return connection is None or connection.client is None

    def restore_unacked_once(self, stderr=None):
        if self._connection_gone():
            return None
        return super().restore_unacked_once(stderr)

    def ack(self, delivery_tag):
        if self._connection_gone():
            virtual.QoS.ack(self, delivery_tag)  # forgotten here; Redis keeps it (see above)
            return
        super().ack(delivery_tag)

    def reject(self, delivery_tag, requeue=False):
        if self._connection_gone():
            virtual.QoS.ack(self, delivery_tag)
            return
        super().reject(delivery_tag, requeue)


class Channel(redis.Channel):
    QoS = QoS
    _shared_client = None

    @contextmanager
    def conn_or_acquire(self, client=None):
        if client:
            yield client
            return
        pool = self.pool  # a new pool after a lost connection: then a new client for it
        shared = self._shared_client
        if shared is None or shared.connection_pool is not pool:
            shared = self._shared_client = self._create_client()
        yield shared


class Transport(redis.Transport):
    Channel = Channel
