package mcp

import "github.com/google/jsonschema-go/jsonschema"

// A tweak adjusts the input schema inferred from a tool's Go type: enums,
// ranges and length limits the struct tags cannot say. Every tweak names
// the property it touches and leaves a missing one alone.
type tweak = func(*jsonschema.Schema)

// tweaks applies ts in order.
func tweaks(ts ...tweak) tweak {
	return func(s *jsonschema.Schema) {
		for _, t := range ts {
			t(s)
		}
	}
}

// property calls set on the named property, if the schema has it.
func property(name string, set func(*jsonschema.Schema)) tweak {
	return func(s *jsonschema.Schema) {
		if p := s.Properties[name]; p != nil {
			set(p)
		}
	}
}

// limits caps the length of each named string property.
func limits(max map[string]int) tweak {
	return func(s *jsonschema.Schema) {
		for name, n := range max {
			property(name, func(p *jsonschema.Schema) { p.MaxLength = new(n) })(s)
		}
	}
}

// nonEmpty requires the named string properties to have at least one character.
func nonEmpty(names ...string) tweak {
	return func(s *jsonschema.Schema) {
		for _, name := range names {
			property(name, func(p *jsonschema.Schema) { p.MinLength = new(1) })(s)
		}
	}
}

// enum restricts the named property to values.
func enum[T ~string](name string, values ...T) tweak {
	return property(name, func(p *jsonschema.Schema) {
		p.Enum = make([]any, len(values))
		for i, v := range values {
			p.Enum[i] = string(v)
		}
	})
}

// between bounds the named number property, both ends included.
func between(name string, lo, hi float64) tweak {
	return property(name, func(p *jsonschema.Schema) { p.Minimum, p.Maximum = new(lo), new(hi) })
}
