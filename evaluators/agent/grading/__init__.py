"""Deciding an attempt: staging and running the hidden tests, canaries, the verdict, tamper flags, test proofs."""
