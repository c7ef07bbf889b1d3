package ini

import "strings"

// interpolate replaces ${key}, ${section.key} and $$ in every value, resolving references recursively.
func (f *File) interpolate() error {
	r := &resolver{file: f, done: map[*Key]bool{}, active: map[*Key]bool{}}
	for _, s := range f.Sections {
		for _, k := range s.Keys {
			if err := r.resolve(s.Name, k); err != nil {
				return err
			}
		}
	}
	return nil
}

type resolver struct {
	file   *File
	done   map[*Key]bool
	active map[*Key]bool
	path   []string
}

func (r *resolver) resolve(section string, k *Key) error {
	if r.done[k] {
		return nil
	}
	name := section + "." + k.Name
	if r.active[k] {
		return errorf(k.File, k.Line, "interpolation cycle: %s -> %s", strings.Join(r.path, " -> "), name)
	}
	r.active[k] = true
	r.path = append(r.path, name)
	defer func() {
		delete(r.active, k)
		r.path = r.path[:len(r.path)-1]
	}()
	var b strings.Builder
	v := k.Value
	for i := 0; i < len(v); i++ {
		if v[i] != '$' || i+1 >= len(v) {
			b.WriteByte(v[i])
			continue
		}
		switch v[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := strings.IndexByte(v[i+2:], '}')
			if end < 0 {
				return errorf(k.File, k.Line, "%s: unterminated ${", name)
			}
			ref := v[i+2 : i+2+end]
			value, err := r.lookup(section, ref, k, name)
			if err != nil {
				return err
			}
			b.WriteString(value)
			i += end + 2
		default:
			b.WriteByte('$')
		}
	}
	k.Value = b.String()
	r.done[k] = true
	return nil
}

func (r *resolver) lookup(section, ref string, from *Key, fromName string) (string, error) {
	target, key := section, strings.TrimSpace(ref)
	if dot := strings.LastIndexByte(key, '.'); dot >= 0 {
		target, key = strings.TrimSpace(key[:dot]), strings.TrimSpace(key[dot+1:])
	}
	target, key = strings.ToLower(target), strings.ToLower(key)
	s := r.file.Section(target)
	var k *Key
	if s != nil {
		k = s.Key(key)
	}
	if k == nil {
		return "", errorf(from.File, from.Line, "%s: unknown reference ${%s}", fromName, ref)
	}
	if err := r.resolve(target, k); err != nil {
		return "", err
	}
	return k.Value, nil
}
