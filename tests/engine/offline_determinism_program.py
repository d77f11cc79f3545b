"""Fixed-seed offline matches played through the offline page's own worker API: run natively
and under Pyodide by tests/engine/test_offline_pyodide.py, which requires the same output.

It prints one JSON line: for each match, every action taken and, at each of the person's
decisions, the coach's ranking with its figures rounded."""

import json

from games.offline import worker

GAMES = (
    ({"preset": "house"}, "hard", 101, 1),
    ({"preset": "classic"}, "medium", 202, 1),
    ({"preset": "family"}, "easy", 303, 2),
    ({"preset": "house", "switches": ["draw"]}, "medium", 404, 1),
    ({"preset": "auction", "seating": "six"}, "easy", 505, 1),
)


def coach_summary(panel: dict) -> list:
    if panel["state"] != "advice":
        return [panel["state"]]
    return [
        [option["action"], option["points_text"], option["chances"], option["contract"]]
        for option in panel["options"]
    ]


def play(choices: dict, level: str, seed: int, deals: int) -> dict:
    options = {
        "choices": choices,
        "level": level,
        "seed": seed,
        "key": f"det{seed:05d}",
        "engine": "",
    }
    view = json.loads(worker.start(json.dumps(options)))["table"]
    coach = []
    while True:
        if view["result"] is not None:
            if view["match_over"] or view["deal_number"] >= deals:
                break
            view = json.loads(worker.next_deal())["table"]
        elif view["bot_to_act"]:
            view = json.loads(worker.bot())["table"]
        else:
            # The person follows the coach, whose first choice is the hard bot's move.
            panel = json.loads(worker.coach())
            coach.append(coach_summary(panel))
            if panel["state"] == "advice":
                answer = worker.act(panel["options"][0]["action"])
            elif view["bids"]:
                answer = worker.act(view["bids"][0]["token"])
            elif view["discard_choices"]:
                legal = [c["code"] for c in view["discard_choices"] if c["legal"]]
                answer = worker.discard(json.dumps(legal[: view["discard_exact"] or 0]))
            else:
                answer = worker.act(next(c["action"] for c in view["hand"] if c["legal"]))
            view = json.loads(answer)["table"]
    saved = worker._current().saved()
    return {
        "rules": choices,
        "level": level,
        "seed": seed,
        "actions": saved["deals"],
        "coach": coach,
        "totals": view["totals"],
    }


print(json.dumps([play(*game) for game in GAMES]))
