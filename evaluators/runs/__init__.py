"""A run's lifecycle: lock, journal and resume; several processes agreeing on one run; progress for long work."""
