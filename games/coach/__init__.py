"""The coach: ranked advice with figures at a person's every decision, and a review of each deal.

Advice is the hard bot's own search (``games.engine.bots.evaluate``) run on the seat's
observation only, with the seed the hard bot would use, so the coach's first choice is the hard
bot's move. The search, its honest chances and its plain words are pure Python in
``games.engine.coach`` (the offline page runs them in the browser too); the figures are stored once per position
(``models.Advice``) by a Celery task on the coach queue, and each finished deal gets a
``models.Review`` that marks the decisions that cost the most expected points.
"""
