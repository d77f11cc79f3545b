"""History and replay: every finished deal, move by move; records out and in (docs/rules.md section 4).

`frames` turns an engine `Deal` into the moment-by-moment view a replay shows; `selectors`
finds what a person may watch (their matches, a shared link, their own imports); `services`
holds the only writes (sharing a match, storing an import); the coach plugs its marks in through `games/core/marks.py`.
"""
