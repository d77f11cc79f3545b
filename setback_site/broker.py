"""The Celery broker transport: kombu's Redis transport, made to survive Redis going away.

When a worker loses Redis, kombu closes the channel and tries to put the worker's unacknowledged
tasks back on their queues. By then the transport has let go of its connection details, and
kombu 5.7 crashes the whole worker ("Unrecoverable error: AttributeError: 'NoneType' object has
no attribute 'hostname'"); the fault suite saw it in about one Redis restart in three. Those
tasks are still in Redis's unacked set, so nothing is lost by skipping that step: Redis hands
them out again after the visibility timeout, and the sweeper wakes their tables long before.
"""

from kombu.transport import redis


class QoS(redis.QoS):
    def restore_unacked_once(self, stderr=None):
        if self.channel.connection.client is None:
            return  # the connection is gone (see above); Redis keeps the tasks
        return super().restore_unacked_once(stderr)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
