"""The coach's thinking, pure Python (no Django), so the site's workers and the offline page run
the same code: ``advice`` (the hard bot's search, every option valued and worded), ``chances``
(the search's chances made honest), ``reasons`` (plain-words reasons), ``judging`` (how much a
decision cost, for reviews) and ``calibration`` (are the chances honest?). The site's coach app
(``games.coach``) stores and shows what these compute."""
