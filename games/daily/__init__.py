"""The daily deals: every day the same eight deals for everyone, compared like duplicate bridge
(docs/daily.md)."""
