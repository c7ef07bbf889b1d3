"""Summaries of web server access logs (combined log format, optional request duration field)."""
