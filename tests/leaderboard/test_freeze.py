"""The streak and its freezes (issue 27, deliverable 5) as one pure function of
the won days and today (``leaderboard.selectors.streak_of``): tokens earned on
every 10th day won, at most 3 held, spent on a missed day once it is over while
a streak runs; the frozen day keeps the streak but does not add to it."""

from __future__ import annotations

import datetime as dt

from leaderboard.selectors import STREAK_TOKENS_HELD, Streak, streak_of

TODAY = dt.date(2026, 12, 4)


def day(n: int) -> dt.date:
    """The day ``n`` days before ``TODAY``."""
    return TODAY - dt.timedelta(days=n)


def run(first: int, last: int) -> list[dt.date]:
    """The days from ``first`` days ago to ``last`` days ago, both in."""
    return [day(n) for n in range(first, last - 1, -1)]


def test_no_win_no_streak():
    assert streak_of([], today=TODAY) == Streak(current=0, longest=0, tokens=0, frozen=())


def test_nine_days_earn_nothing_the_tenth_a_token():
    assert streak_of(run(9, 1), today=TODAY).tokens == 0
    assert streak_of(run(10, 1), today=TODAY) == Streak(10, 10, 1, ())


def test_tokens_at_10_20_30_and_no_more_than_3():
    for days, tokens in ((19, 1), (20, 2), (29, 2), (30, 3), (39, 3), (40, 3), (60, 3)):
        streak = streak_of(run(days, 1), today=TODAY)
        assert (streak.current, streak.tokens) == (days, tokens), days
    assert STREAK_TOKENS_HELD == 3


def test_won_days_count_across_broken_streaks():
    """Every day won counts toward a token, not only those of the running streak."""
    won = run(30, 26) + run(5, 1)  # 5 + 5 days, two streaks apart: the 10th on day 1
    assert streak_of(won, today=TODAY) == Streak(current=5, longest=5, tokens=1, frozen=())


def test_one_missed_day_spends_the_token_and_the_streak_goes_on():
    won = run(15, 6) + run(4, 1)  # 10 days, day 5 missed, 4 days
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=14, longest=14, tokens=0, frozen=(day(5),))


def test_two_missed_days_with_one_token_break_the_streak():
    won = run(15, 6) + run(3, 1)  # days 5 and 4 missed
    streak = streak_of(won, today=TODAY)
    # The first missed day took the token; the second, without one, broke the run.
    assert streak == Streak(current=3, longest=10, tokens=0, frozen=(day(5),))


def test_two_missed_days_with_two_tokens_are_both_frozen():
    won = run(25, 6) + run(3, 1)
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=23, longest=23, tokens=0, frozen=(day(5), day(4)))


def test_a_token_is_earned_again_after_a_freeze():
    won = run(22, 13) + run(11, 1)  # 10 days, day 12 frozen, then 11 days (the 20th won: day 2)
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=21, longest=21, tokens=1, frozen=(day(12),))


def test_today_not_yet_played_spends_nothing():
    streak = streak_of(run(10, 1), today=TODAY)
    assert (streak.current, streak.tokens, streak.frozen) == (10, 1, ())


def test_yesterday_missed_is_frozen_once_over():
    streak = streak_of(run(11, 2), today=TODAY)  # yesterday (day 1) missed, today not yet
    assert streak == Streak(current=10, longest=10, tokens=0, frozen=(day(1),))
    # Won today as well: the streak goes on from the frozen day.
    streak = streak_of([*run(11, 2), TODAY], today=TODAY)
    assert streak == Streak(current=11, longest=11, tokens=0, frozen=(day(1),))


def test_without_a_token_a_missed_day_breaks_as_before():
    streak = streak_of(run(6, 4) + run(2, 1), today=TODAY)  # day 3 missed
    assert streak == Streak(current=2, longest=3, tokens=0, frozen=())


def test_tokens_held_are_spent_one_a_day_until_none_is_left():
    """A streak breaks only once no token is left: with two, two days are frozen."""
    won = run(40, 31) + run(25, 16)  # a token on day 31: 30 frozen, 29 breaks; 10 more
    streak = streak_of(won, today=TODAY)
    # The 20th day won (16) earned the next token, spent on day 15; day 14 broke.
    assert streak == Streak(current=0, longest=10, tokens=0, frozen=(day(30), day(15)))
    won = run(50, 31) + run(8, 1)  # two tokens: days 30 and 29 frozen, 28 breaks
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=8, longest=20, tokens=0, frozen=(day(30), day(29)))


def test_a_freeze_then_a_break_then_a_new_streak():
    won = [*run(30, 21), day(18), day(16)]  # token on day 21; 20 frozen, 19 breaks
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=0, longest=10, tokens=0, frozen=(day(20),))
    won = [*run(40, 21), day(1)]  # two tokens; 20 and 19 frozen, 18 breaks
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=1, longest=20, tokens=0, frozen=(day(20), day(19)))
    won = [*run(30, 21), *run(19, 1)]  # one token, day 20 frozen: 29 days, a 2nd token at 20th
    streak = streak_of(won, today=TODAY)
    assert streak == Streak(current=29, longest=29, tokens=1, frozen=(day(20),))


def test_longest_counts_across_a_freeze_but_not_the_frozen_day():
    won = run(30, 21) + run(19, 15)  # 10 won, day 20 frozen, 5 won, then days 14.. missed
    streak = streak_of(won, today=TODAY)
    assert (streak.longest, streak.current, streak.frozen) == (15, 0, (day(20),))


def test_the_json_form():
    streak = streak_of(run(15, 6) + run(4, 1), today=TODAY)
    assert streak.to_json() == {
        "current": 14,
        "longest": 14,
        "tokens": 0,
        "frozen": [day(5).isoformat()],
    }


def test_days_after_today_are_not_counted():
    assert streak_of([TODAY + dt.timedelta(days=1)], today=TODAY) == Streak(0, 0, 0, ())
