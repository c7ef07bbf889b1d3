package query

import (
	"sort"

	"example.com/logq/internal/record"
)

// Result is a table: column names and one record per row.
type Result struct {
	Columns []string
	Rows    []*record.Record
}

// Run applies the pipeline's stages in order.
func Run(pl *Pipeline, records []*record.Record) (*Result, error) {
	env := NewEnv()
	rows := records
	var columns []string // nil: all fields, in order of first appearance
	for _, st := range pl.Stages {
		switch s := st.(type) {
		case *Where:
			kept := rows[:0:0]
			for _, r := range rows {
				v, err := env.Eval(s.Cond, r)
				if err != nil {
					return nil, err
				}
				if v.Truthy() {
					kept = append(kept, r)
				}
			}
			rows = kept
		case *Fields:
			columns = append([]string(nil), s.Names...)
		case *Stats:
			var err error
			rows, columns, err = runStats(env, s, rows)
			if err != nil {
				return nil, err
			}
		case *Sort:
			sorted := append([]*record.Record(nil), rows...)
			sort.SliceStable(sorted, func(i, j int) bool {
				for _, k := range s.Keys {
					a, _ := sorted[i].Get(k.Name)
					b, _ := sorted[j].Get(k.Name)
					if c := record.Compare(a, b); c != 0 {
						return (c < 0) != k.Desc
					}
				}
				return false
			})
			rows = sorted
		case *Limit:
			if len(rows) > s.N {
				rows = rows[:s.N]
			}
		}
	}
	if columns == nil {
		seen := map[string]bool{}
		for _, r := range rows {
			for _, name := range r.Order {
				if !seen[name] {
					seen[name] = true
					columns = append(columns, name)
				}
			}
		}
	}
	return &Result{Columns: columns, Rows: rows}, nil
}
