"""Schedules as the API answers them: a run request enqueued on a cron pattern or an interval."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional

from .request_models import extra_field


@dataclass
class ScheduleTick:
    """One tick: it fired a run, or it was skipped (``reason``: ``overlap``, or the refused run's code)."""

    tick_at: float
    outcome: Literal["fired", "skipped"]
    at: float
    run_id: Optional[str] = None
    reason: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class Schedule:
    """``GET /v1/schedules/{scheduleId}``: when it ticks, what it runs, and its recent ticks."""

    schedule_id: str
    tenant: str
    overlap: Literal["skip", "queue"]
    request: Dict[str, Any]
    created_at: float
    paused: bool
    ticks_fired: int
    ticks_skipped: int
    recent_ticks: List[ScheduleTick]
    created_by: Optional[str] = None
    name: Optional[str] = None
    cron: Optional[str] = None
    every_ms: Optional[int] = None
    timezone: Optional[str] = None
    next_tick_at: Optional[float] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class SchedulePage:
    """A page of ``GET /v1/schedules``, newest first."""

    schedules: List[Schedule]
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ScheduleDeleted:
    """``DELETE /v1/schedules/{scheduleId}``: the schedule is gone; its runs stay."""

    schedule_id: str
    deleted: bool
    extra: Dict[str, Any] = extra_field()
