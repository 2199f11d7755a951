import datetime as dt

import pytest

from local_runtime.schedule import Cron, Schedule, ScheduleError, schedules_of
from local_runtime.testing import services

UTC = dt.timezone.utc


def t(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s).replace(tzinfo=UTC)


def test_cron_daily_at_six():
    s = Schedule("F", "E", "cron(0 6 * * ? *)")
    assert s.due(t("2025-03-04T06:00"))
    assert not s.due(t("2025-03-04T06:01")) and not s.due(t("2025-03-04T07:00"))


def test_cron_weekly_monday_and_aws_day_numbers():
    s = Schedule("F", "E", "cron(0 9 ? * MON *)")
    assert s.due(t("2025-03-03T09:00"))  # a Monday
    assert not s.due(t("2025-03-04T09:00"))
    assert Schedule("F", "E", "cron(0 9 ? * 2 *)").due(t("2025-03-03T09:00"))  # 2 = MON in AWS
    assert Schedule("F", "E", "cron(0/15 * ? * MON-FRI *)").due(t("2025-03-07T10:45"))
    assert not Schedule("F", "E", "cron(0/15 * ? * MON-FRI *)").due(t("2025-03-08T10:45"))


def test_cron_last_day_and_nth_weekday():
    assert Schedule("F", "E", "cron(0 0 L * ? *)").due(t("2024-02-29T00:00"))
    assert not Schedule("F", "E", "cron(0 0 L * ? *)").due(t("2024-02-28T00:00"))
    assert Schedule("F", "E", "cron(0 0 ? * MON#1 *)").due(t("2025-03-03T00:00"))
    assert not Schedule("F", "E", "cron(0 0 ? * MON#1 *)").due(t("2025-03-10T00:00"))


@pytest.mark.parametrize("bad", ["cron(0 6 * * * *)", "cron(0 6 * *)", "rate(1 minutes)", "rate(5 minute)",
                                 "rate(0 minutes)", "cron(61 * * * ? *)", "every day"])
def test_bad_expressions_rejected(bad):
    with pytest.raises(ScheduleError):
        Schedule("F", "E", bad)


def test_rate_fires_every_n_minutes_after_start():
    s = Schedule("F", "E", "rate(5 minutes)", start=t("2025-01-01T00:00"))
    fired = [m for m in range(0, 21) if s.due(t("2025-01-01T00:00") + dt.timedelta(minutes=m))]
    assert fired == [5, 10, 15, 20]


def test_timezone_for_schedule_v2():
    s = Schedule("F", "E", "cron(0 9 * * ? *)", timezone="Asia/Kolkata", v2=True)
    assert s.due(t("2025-03-04T03:30"))  # 09:00 IST


def test_event_payloads():
    assert Schedule("F", "E", "rate(1 minute)", input={"job": "x"}).event() == {"job": "x"}
    ev = Schedule("F", "E", "rate(1 minute)").event()
    assert ev["source"] == "aws.events" and ev["detail-type"] == "Scheduled Event"
    assert not Schedule("F", "E", "rate(1 minute)", enabled=False).due(t("2030-01-01T00:00"))


def test_every_schedule_in_the_templates_parses():
    found = []
    for svc in services().values():
        for fn in svc.functions.values():
            found += schedules_of(fn)
    assert any(s.input == {"job": "job-alerts"} for s in found)
    assert all(s.expression for s in found) and len(found) >= 6
    assert isinstance(Cron.parse("0 6 * * ? *"), Cron)
