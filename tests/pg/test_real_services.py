"""CI's second run must really use PostgreSQL, the Redis channel layer and a worker process."""

import os

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection

from games.web.tasks import WorkerReport, report_worker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_postgres_redis_and_a_separate_worker_are_in_use(celery_worker_process):
    assert connection.vendor == "postgresql"
    layer = get_channel_layer()
    assert type(layer).__name__ == "RedisChannelLayer"

    reply_channel = async_to_sync(layer.new_channel)()
    where = report_worker.delay(reply_channel).get(timeout=30)
    assert where["pid"] != os.getpid()
    assert where["pid"] == celery_worker_process["process"].pid
    assert where["database_vendor"] == "postgresql"
    assert where["database_name"] == connection.settings_dict["NAME"]

    # The worker's message crossed processes through Redis to this process's channel.
    message = WorkerReport.read(async_to_sync(layer.receive)(reply_channel))
    assert message.pid == where["pid"]
