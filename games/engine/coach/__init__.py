"""The coach's advice, pure Python: the hard bot's search on a seat's observation, its chances
made honest, and plain words for each option.

It lives in the engine because two places run it: the site's coach app (``games.coach``, which
stores advice and reviews) and the offline page, where the same wheel runs in the browser.
"""
