"""The race rooms' job: races whose time is up end (beat, every minute)."""

from __future__ import annotations

from celery import shared_task

from .services import races_end_due


@shared_task
def end_due_races() -> int:
    """End the running races past ``RACE_MINUTES`` (those still racing are
    resigned); safe to run twice. Returns how many ended."""
    return races_end_due()
