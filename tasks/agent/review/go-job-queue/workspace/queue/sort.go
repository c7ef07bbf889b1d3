package queue

import "sort"

func sortedIDs(results map[string]Result) []string {
	ids := make([]string, 0, len(results))
	for id := range results {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
