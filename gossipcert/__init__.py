"""gossipcert: certified optimal schedules for gossip, broadcast and related problems."""

from __future__ import annotations

__version__ = "0.1.0"
