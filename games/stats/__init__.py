"""Personal statistics: a summary row per seat per finished deal, ratings per finished match,
and the page that turns them into figures and charts."""
