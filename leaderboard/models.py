"""Rankings are read from the games app's attempts; this app stores nothing yet."""
