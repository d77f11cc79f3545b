"""The Setback rules engine: pure Python, no Django. See docs/engine-api.md.

Everything other code needs is importable from here::

    from games.engine import Rules, Deal, MatchState, IllegalAction
"""

from .actions import Action, discard_token
from .cards import CODES, SUITS, sort_cards
from .deal import Deal
from .errors import EngineError, IllegalAction, RecordError, RulesError
from .match import MatchState
from .observation import Observation
from .phases import AUCTION, DISCARD, OVER, PHASES, PLAY, TRUMP, Phase
from .records import deal_from_record, deal_to_record, match_from_record, match_record_json
from .rules import OPTION_NAMES, PRESET_NAMES, Rules
from .scoring import DealResult, Trick

__all__ = [
    "AUCTION",
    "Action",
    "CODES",
    "DISCARD",
    "Deal",
    "DealResult",
    "EngineError",
    "IllegalAction",
    "MatchState",
    "OPTION_NAMES",
    "OVER",
    "Observation",
    "PHASES",
    "Phase",
    "PLAY",
    "PRESET_NAMES",
    "RecordError",
    "Rules",
    "RulesError",
    "SUITS",
    "TRUMP",
    "Trick",
    "deal_from_record",
    "deal_to_record",
    "discard_token",
    "match_from_record",
    "match_record_json",
    "sort_cards",
]
