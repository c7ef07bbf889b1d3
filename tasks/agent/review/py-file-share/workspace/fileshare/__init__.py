"""A small internal file-sharing service: upload a file, get a link, download it with a token."""
