"""Tables shared by people: forming, seating, presence, stand-in bots, leaving, rematch, chat.

A feature of its own on top of the core (`services`, its writes; `views` and `urls`, its pages).
The lobby is built on it (quick pairing seats people at a shared table). See docs/people.md.
"""
