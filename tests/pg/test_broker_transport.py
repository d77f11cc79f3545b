"""A worker keeps going when Redis drops its connection while a task is running
(`setback_site/broker.py`)."""

import uuid

import pytest
from django.conf import settings
from kombu import Connection

pytestmark = pytest.mark.services


@pytest.fixture
def broker():
    """A connection to the site's broker, its channel, and a queue of the test's own."""
    queue = f"test-transport-{uuid.uuid4().hex}"
    with Connection(
        settings.CELERY_BROKER_URL, transport=settings.CELERY_BROKER_TRANSPORT
    ) as connection:
        channel = connection.channel()
        channel.queue_declare(queue=queue)
        yield connection, channel, queue


def test_a_task_finished_after_its_connection_was_given_up_neither_crashes_nor_is_lost(broker):
    connection, channel, queue = broker
    channel.basic_publish(channel.prepare_message("a bot's turn"), exchange="", routing_key=queue)
    message = channel.basic_get(queue, no_ack=False)
    assert message.body == b"a bot's turn"
    unacked = channel.qos.unacked_key
    client = channel.client

    # What kombu does when the worker loses Redis: it lets go of the connection's details,
    # then closes the channel (its pools dropped).
    connection.transport.client = None
    channel.close()
    # The task ends afterwards (bot tasks acknowledge when done). This raised
    # AttributeError in kombu and took the whole worker down.
    message.ack()

    # Not acknowledged, so not lost: Redis still holds it and hands it out again after the
    # visibility timeout.
    try:
        assert client.hexists(unacked, message.delivery_tag)
    finally:
        client.delete(queue)
        client.hdel(unacked, message.delivery_tag)
        client.zrem(channel.qos.unacked_index_key, message.delivery_tag)


def test_publishing_reuses_one_client_until_the_connection_pool_is_replaced(broker):
    _, channel, queue = broker
    clients = []
    for body in ("first", "second"):
        channel.basic_publish(channel.prepare_message(body), exchange="", routing_key=queue)
        with channel.conn_or_acquire() as client:
            clients.append(client)
    assert clients[0] is clients[1]
    channel._disconnect_pools()  # what a lost connection does
    channel.basic_publish(channel.prepare_message("third"), exchange="", routing_key=queue)
    with channel.conn_or_acquire() as client:
        assert client is not clients[0] and client.connection_pool is channel.pool
    try:
        assert [channel.basic_get(queue, no_ack=True).body for _ in range(3)] == [
            b"first",
            b"second",
            b"third",
        ]
    finally:
        client.delete(queue)
