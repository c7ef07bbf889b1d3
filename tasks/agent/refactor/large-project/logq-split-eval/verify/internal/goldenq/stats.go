package goldenq

import (
	"math"
	"sort"

	"example.com/logq/internal/record"
)

// accumulator collects one aggregate for one group.
type accumulator struct {
	agg      Agg
	count    int
	sum      float64
	min, max float64
	distinct map[string]bool
}

func newAccumulator(a Agg) *accumulator {
	return &accumulator{agg: a, min: math.Inf(1), max: math.Inf(-1), distinct: map[string]bool{}}
}

func (acc *accumulator) add(env *Env, r *record.Record) error {
	if acc.agg.Arg == nil { // count()
		acc.count++
		return nil
	}
	v, err := env.Eval(acc.agg.Arg, r)
	if err != nil || v.Kind == record.Null {
		return err
	}
	switch acc.agg.Func {
	case "count":
		acc.count++
	case "distinct":
		acc.distinct[v.Text()] = true
	default:
		n, ok := v.AsNumber()
		if !ok {
			return nil
		}
		acc.count++
		acc.sum += n
		acc.min = math.Min(acc.min, n)
		acc.max = math.Max(acc.max, n)
	}
	return nil
}

func (acc *accumulator) result() record.Value {
	switch acc.agg.Func {
	case "count":
		return record.NumberValue(float64(acc.count))
	case "distinct":
		return record.NumberValue(float64(len(acc.distinct)))
	case "sum":
		return record.NumberValue(acc.sum)
	}
	if acc.count == 0 {
		return record.NullValue()
	}
	switch acc.agg.Func {
	case "avg":
		return record.NumberValue(acc.sum / float64(acc.count))
	case "min":
		return record.NumberValue(acc.min)
	}
	return record.NumberValue(acc.max)
}

type group struct {
	key  []record.Value
	accs []*accumulator
}

// runStats groups records by the `by` fields (missing fields group as null) and computes the aggregates;
// groups come out ordered by their key values. Without `by` there is exactly one group, even for no input.
func runStats(env *Env, st *Stats, records []*record.Record) ([]*record.Record, []string, error) {
	groups := map[string]*group{}
	var order []*group
	for _, r := range records {
		key := make([]record.Value, len(st.By))
		id := ""
		for i, name := range st.By {
			v, _ := r.Get(name)
			key[i] = v
			id += string(rune('0'+v.Kind)) + v.Text() + "\x00"
		}
		g, ok := groups[id]
		if !ok {
			g = &group{key: key}
			for _, a := range st.Aggs {
				g.accs = append(g.accs, newAccumulator(a))
			}
			groups[id] = g
			order = append(order, g)
		}
		for _, acc := range g.accs {
			if err := acc.add(env, r); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(st.By) == 0 && len(order) == 0 {
		g := &group{}
		for _, a := range st.Aggs {
			g.accs = append(g.accs, newAccumulator(a))
		}
		order = append(order, g)
	}
	sort.SliceStable(order, func(i, j int) bool {
		for k := range order[i].key {
			if c := record.Compare(order[i].key[k], order[j].key[k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	columns := append([]string(nil), st.By...)
	for _, a := range st.Aggs {
		columns = append(columns, a.Name())
	}
	out := make([]*record.Record, 0, len(order))
	for i, g := range order {
		r := record.New(i + 1)
		for k, name := range st.By {
			r.Set(name, g.key[k])
		}
		for _, acc := range g.accs {
			r.Set(acc.agg.Name(), acc.result())
		}
		out = append(out, r)
	}
	return out, columns, nil
}
