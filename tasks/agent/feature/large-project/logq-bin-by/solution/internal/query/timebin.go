package query

import (
	"math"
	"strings"
	"time"

	"example.com/logq/internal/record"
)

// toUnixSeconds reads an RFC 3339 timestamp, or a number of seconds since the epoch (milliseconds when the
// number is 1e11 or more in magnitude).
func toUnixSeconds(v record.Value) (float64, bool) {
	switch v.Kind {
	case record.Number:
		if math.Abs(v.N) >= 1e11 {
			return v.N / 1000, true
		}
		return v.N, true
	case record.String:
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v.S))
		if err != nil {
			return 0, false
		}
		return float64(t.Unix()) + float64(t.Nanosecond())/1e9, true
	}
	return 0, false
}

// binTime rounds a timestamp down to a multiple of width seconds (counted from the Unix epoch) and returns
// the bucket start as an RFC 3339 UTC string; null when either argument does not fit.
func binTime(ts, width record.Value) record.Value {
	secs, ok := toUnixSeconds(ts)
	w, okW := width.AsNumber()
	if !ok || !okW || width.Kind == record.Null || w < 1 || w != math.Trunc(w) {
		return record.NullValue()
	}
	start := math.Floor(secs/w) * w
	return record.StringValue(time.Unix(int64(start), 0).UTC().Format("2006-01-02T15:04:05Z"))
}
