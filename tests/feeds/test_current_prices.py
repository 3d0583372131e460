"""A feed run writes prices through the import services: the stored current prices follow it
(platforms.models.CurrentPrice), a changed price moving them and a price seen again not."""

from __future__ import annotations

from decimal import Decimal

import pytest

from feeds.models import FeedRun
from feeds.tasks import run_feed
from platforms.models import CurrentPrice
from tests.platforms.test_current_prices import assert_current_prices_right

from .conftest import LAMBDA, make_feed, sample

pytestmark = pytest.mark.usefixtures("fast_feeds")


def test_feed_runs_keep_the_current_prices_right(feed_server, lambda_cloud):
    text = sample(LAMBDA)
    feed = make_feed(feed_server.serve("/vms.csv", text), lambda_cloud)
    run_feed.delay(feed_id=feed.pk, trigger="admin")
    assert_current_prices_right()
    before = CurrentPrice.objects.get(offering__external_id="gpu_1x_a10@us-east-1")

    feed_server.serve("/vms.csv", text.replace(",1.29,us-east-1,", ",1.49,us-east-1,"))
    run_feed.delay(feed_id=feed.pk)

    assert FeedRun.objects.filter(feed=feed, status="succeeded").count() == 2
    assert_current_prices_right()
    after = CurrentPrice.objects.get(offering__external_id="gpu_1x_a10@us-east-1")
    assert (before.amount, after.amount) == (Decimal("1.29"), Decimal("1.49"))
    assert after.observation_id != before.observation_id
