"""Running attempts: the batch runner, one attempt, the stuck monitor, events, reference replays, reviews, scores."""
