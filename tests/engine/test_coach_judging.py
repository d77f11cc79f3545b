"""A review's accuracy agrees with its marks (issue 28: a review said "96% accuracy" with no
decision marked). tests/db/test_exercises.py checks that its costs agree with the figures shown."""

from games.engine.coach import judging


def figures(action, points, theirs, stderr=0.05, ranking="points"):
    return {
        "action": action,
        "ranking": ranking,
        "expected_points": points,
        "expected_margin": points - theirs,
        "stderr": stderr,
        "margin_stderr": stderr,
        "p_win_match": None,
        "samples": 100,
    }


def test_a_decision_the_review_does_not_mark_counts_fully_toward_accuracy():
    best = figures("2S", 1.50, 0.50)
    # Worse than the coach's choice by more than the noise, but less than an inaccuracy.
    close = judging.judge(best, figures("3S", 1.40, 0.50))
    assert close.counted and close.mark == ""
    assert judging.accuracy([close, judging.judge(best, best)]) == 100.0


def test_a_marked_decision_costs_accuracy_in_proportion_to_its_loss():
    best = figures("2S", 1.50, 0.50)
    mistake = judging.judge(best, figures("7S", 1.20, 0.80))
    assert mistake.mark == "mistake"
    assert judging.accuracy([mistake]) < 100.0
