"""The games app: attempts and their action log, the daily deals, replays, the
fair-play review, their HTTP and websocket doors and jobs; the rules engine is
``games.engine`` (pure Python, no Django)."""
