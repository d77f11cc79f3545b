"""The coach: ranked advice with figures at a person's every decision, and a review of each deal.

Advice is the hard bot's own search (``games.engine.bots.evaluate``) run on the seat's
observation only, with the seed the hard bot would use, so the coach's first choice is the hard
bot's move. Plain-words reasons come from ``wording``; the figures are stored once per position
(``models.Advice``) by a Celery task on the coach queue, and each finished deal gets a
``models.Review`` that marks the decisions that cost the most expected points.
"""
