"""The games package: the rules engine (``games.engine``) and, later, the Django app."""
