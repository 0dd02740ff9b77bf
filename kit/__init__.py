"""The web kit every app uses and that knows no app: one error vocabulary and
its HTTP shape, input parsing and rate limits, the log context, generic
metrics."""
