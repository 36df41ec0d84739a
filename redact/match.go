package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
)

// windowLen is the run of a secret masked wherever it occurs: every run of
// at least windowLen bytes of a value of at least windowLen bytes (or of
// one of its forms) is masked. 12 bytes of a token never occur by chance.
const windowLen = 12

// key is one windowLen-byte run, folded to lower case: its first 8 bytes
// and its last 4, as they shift through a scan.
type key struct {
	hi uint64
	lo uint32
}

// hash is a filter's hash of k: of its last 8 bytes, which is selective
// enough, with one multiplication.
func (k key) hash() uint64 { return (k.hi<<32 | uint64(k.lo)) * 0x9e3779b97f4a7c15 }

// hash4 is the hash of a form's first 4 bytes, folded.
func hash4(z uint32) uint64 { return uint64(z) * 0x9e3779b97f4a7c15 }

// bitset is a filter in front of a set: a scan looks a key up only when
// its bit is set, which, with at most one key in 16 bits, is rare in text
// that holds no secret.
type bitset struct {
	words []uint64
	shift uint // 64 - log2(bits)
}

func (b *bitset) has(h uint64) bool {
	if len(b.words) == 0 {
		return false
	}
	i := h >> b.shift
	return b.words[i>>6]&(1<<(i&63)) != 0
}

func (b *bitset) set(h uint64) {
	i := h >> b.shift
	b.words[i>>6] |= 1 << (i & 63)
}

// fit makes b large enough for n keys, at one in 16 bits; all yields the
// hashes of every key, for when it had to grow.
func (b *bitset) fit(n int, all func(yield func(uint64))) {
	bits := uint(12)
	for 1<<bits < 16*n {
		bits++
	}
	if len(b.words)<<6 >= 1<<bits {
		return
	}
	*b = bitset{words: make([]uint64, (1<<bits)/64), shift: 64 - bits}
	all(b.set)
}

// keySet is a set of windows: open addressing, at most half full, with a
// bitset in front.
type keySet struct {
	slots []key // the zero key marks an empty slot; zero says whether it is in the set
	zero  bool
	n     int
	bits  bitset
}

// reserve makes room for n more keys.
func (s *keySet) reserve(n int) {
	want := s.n + n + 1
	if 2*want > len(s.slots) {
		size := 64
		for size < 2*want {
			size *= 2
		}
		old := s.slots
		s.slots = make([]key, size)
		for _, o := range old {
			if o != (key{}) {
				s.put(o)
			}
		}
	}
	s.bits.fit(want, func(yield func(uint64)) {
		for _, o := range s.slots {
			if o != (key{}) {
				yield(o.hash())
			}
		}
		if s.zero {
			yield(key{}.hash())
		}
	})
}

func (s *keySet) add(k key) {
	s.reserve(1)
	if k == (key{}) {
		s.zero = true
	} else if s.put(k) {
		s.n++
	}
	s.bits.set(k.hash())
}

// put places k in a slot; false if it was there already.
func (s *keySet) put(k key) bool {
	mask := uint64(len(s.slots) - 1)
	for i := k.hash() >> 32 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case key{}:
			s.slots[i] = k
			return true
		}
	}
}

// has reports whether k is in the set; h is k.hash().
func (s *keySet) has(k key, h uint64) bool {
	if !s.bits.has(h) {
		return false
	}
	if k == (key{}) {
		return s.zero
	}
	mask := uint64(len(s.slots) - 1)
	for i := h >> 32 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case key{}:
			return false
		}
	}
}

func (s *keySet) empty() bool { return s.n == 0 && !s.zero }

// matcher finds every registered form in a text in one pass, ASCII case
// ignored: whole forms (of values shorter than windowLen, of multi-line
// values, of Basic credentials), looked up by their first 4 bytes, and
// windowLen-byte runs of longer values' forms. Runs are matched across line
// breaks (CR and LF are skipped), so that a secret split over lines is
// masked; whole forms are matched as they are.
//
// A run is looked for where an 8-byte piece of one may be: the text's
// 8-byte pieces are looked up in grams only at every 5th byte, which is
// enough, since a run of 12 holds 5 pieces of 8 at consecutive offsets.
// Where a piece is there, the runs that may hold it (ending at that byte
// and the 4 after it) are looked up in windows.
type matcher struct {
	exact     map[uint32][]string // lower-cased whole forms, by their first 4 bytes
	nExact    int
	exactBits bitset
	windows   keySet
	grams     bitset // the 8-byte pieces of windows
}

// gramStep is how often a scan looks up an 8-byte piece: a run of
// windowLen bytes holds windowLen-8+1 of them at consecutive offsets.
const gramStep = windowLen - 8 + 1

// gram is the 8 bytes of k from offset o (0 to 4).
func (k key) gram(o int) uint64 { return k.hi<<(8*o) | uint64(k.lo)>>(32-8*o) }

func gramHash(g uint64) uint64 { return g * 0xc2b2ae3d27d4eb4f }

func fold(c byte) byte {
	if c-'A' < 26 {
		return c + 'a' - 'A'
	}
	return c
}

func foldString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = fold(c)
	}
	return string(b)
}

// maskText is the text of Mask, folded: no form may occur in it, or masked
// text would be masked again.
const maskText = "[redacted]"

// addExact registers f to be masked whole.
func (m *matcher) addExact(f string) {
	f = foldString(f)
	if len(f) < MinLen || strings.Contains(maskText, f) {
		return
	}
	if m.exact == nil {
		m.exact = map[uint32][]string{}
	}
	z := uint32(f[0])<<24 | uint32(f[1])<<16 | uint32(f[2])<<8 | uint32(f[3])
	if slices.Contains(m.exact[z], f) {
		return
	}
	m.exact[z] = append(m.exact[z], f)
	m.nExact++
	m.exactBits.fit(m.nExact, func(yield func(uint64)) {
		for z := range m.exact {
			yield(hash4(z))
		}
	})
	m.exactBits.set(hash4(z))
}

// addWindows registers every windowLen-byte run of f.
func (m *matcher) addWindows(f string) {
	f = foldString(f)
	if len(f) < windowLen {
		m.addExact(f)
		return
	}
	m.grams.fit(m.windows.n+len(f), func(yield func(uint64)) {
		for _, k := range m.windows.slots {
			if k != (key{}) {
				for o := range gramStep {
					yield(gramHash(k.gram(o)))
				}
			}
		}
		if m.windows.zero {
			yield(gramHash(0))
		}
	})
	for k := range windowKeys(f) {
		m.windows.add(k)
		for o := range gramStep {
			m.grams.set(gramHash(k.gram(o)))
		}
	}
}

func windowKeys(f string) func(yield func(key) bool) {
	return func(yield func(key) bool) {
		var k key
		for i := 0; i < len(f); i++ {
			k.hi = k.hi<<8 | uint64(k.lo>>24)
			k.lo = k.lo<<8 | uint32(f[i])
			if i+1 >= windowLen && !yield(k) {
				return
			}
		}
	}
}

// addValue registers a one-line value: its forms whole when it is shorter
// than windowLen, else every run of windowLen bytes of each form, and of
// base64 of it at every alignment (inside a longer encoded text).
func (m *matcher) addValue(v string) {
	if len(v) < windowLen {
		for _, f := range forms(v) {
			m.addExact(f)
		}
		return
	}
	fs := append(forms(v), base64Cores(v)...)
	n := 0
	for _, f := range fs {
		n += max(0, len(f)-windowLen+1)
	}
	m.windows.reserve(n)
	for _, f := range fs {
		m.addWindows(f)
	}
}

// span is a run of text to mask: [start, end).
type span struct{ start, end int }

// find returns every run of s that holds a registered form.
func (m *matcher) find(s string) []span {
	var spans []span
	if len(m.exact) > 0 {
		spans = m.findExact(s, spans)
	}
	if !m.windows.empty() {
		spans = m.findWindows(s, spans)
	}
	return spans
}

// findExact appends the whole forms in s.
func (m *matcher) findExact(s string, spans []span) []span {
	var z uint32
	for i := 0; i < len(s); i++ {
		z = z<<8 | uint32(fold(s[i]))
		if i >= 3 && m.exactBits.has(hash4(z)) {
			for _, f := range m.exact[z] {
				if hasFoldPrefix(s[i-3:], f) {
					spans = append(spans, span{i - 3, i - 3 + len(f)})
				}
			}
		}
	}
	return spans
}

// findWindows appends the registered runs in s, line breaks skipped.
func (m *matcher) findWindows(s string, spans []span) []span {
	var hi uint64 // the 8 bytes before the last 4
	var lo uint32 // the last 4 bytes
	n := 0        // bytes seen, line breaks left out
	next := 8     // when the next 8-byte piece is looked up
	verify := -1  // up to when runs are looked up
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\r' {
			continue
		}
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		hi = hi<<8 | uint64(lo>>24)
		lo = lo<<8 | uint32(c)
		n++
		if n < next && n > verify {
			continue
		}
		if n == next {
			next += gramStep
			if m.grams.has(gramHash(hi<<32 | uint64(lo))) {
				verify = n + gramStep - 1
			}
		}
		if k := (key{hi, lo}); n <= verify && n >= windowLen && m.windows.has(k, k.hash()) {
			spans = append(spans, span{windowStart(s, i), i + 1})
		}
	}
	return spans
}

// hasFoldPrefix reports whether s starts with f (folded), ASCII case ignored.
func hasFoldPrefix(s, f string) bool {
	if len(s) < len(f) {
		return false
	}
	for i := 0; i < len(f); i++ {
		if fold(s[i]) != f[i] {
			return false
		}
	}
	return true
}

// windowStart is where the run of windowLen bytes (line breaks not
// counted) that ends at s[end] starts.
func windowStart(s string, end int) int {
	n := 0
	for i := end; i >= 0; i-- {
		if s[i] != '\n' && s[i] != '\r' {
			if n++; n == windowLen {
				return i
			}
		}
	}
	return 0
}

// mask replaces each run of s covered by spans (merged where they overlap
// or touch, widened to whole UTF-8 characters) with Mask.
func mask(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		for n := 0; n < 3 && start > 0 && continuation(s[start]); n++ {
			start--
		}
		for n := 0; n < 3 && end < len(s) && continuation(s[end]); n++ {
			end++
		}
		start = max(start, last)
		b.WriteString(s[last:start])
		b.WriteString(Mask)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

func continuation(c byte) bool { return c&0xc0 == 0x80 }

func base64s() []*base64.Encoding {
	return []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}
}

func base32s() []*base32.Encoding {
	return []*base32.Encoding{base32.StdEncoding, base32.HexEncoding, base32.StdEncoding.WithPadding(base32.NoPadding), base32.HexEncoding.WithPadding(base32.NoPadding)}
}

// forms are the forms in which a value can leave Bridle: raw, reversed,
// JSON-escaped (with and without HTML escaping, and ASCII-only),
// URL-escaped (query and path), hex, base64 (standard and URL alphabets,
// padded and not) and base32 (standard and extended-hex alphabets, padded
// and not). Case is ignored when they are matched.
func forms(s string) []string {
	b := []byte(s)
	out := []string{s, reversed(s), jsonEscape(s, true), jsonEscape(s, false), jsonASCII(s),
		url.QueryEscape(s), url.PathEscape(s), hex.EncodeToString(b)}
	for _, e := range base64s() {
		out = append(out, e.EncodeToString(b))
	}
	for _, e := range base32s() {
		out = append(out, e.EncodeToString(b))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// base64Cores are the characters of base64 that only s decides, when s
// sits 0, 1 or 2 bytes into the encoded text (a Basic credential user:s,
// for any user, is one): the rest of each 4-character group also encodes
// its neighbours.
func base64Cores(s string) []string {
	var out []string
	for k := range 3 {
		b := append(make([]byte, k), s...)
		from, to := (8*k+5)/6, 8*len(b)/6
		for _, e := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			out = append(out, e.EncodeToString(b)[from:to])
		}
	}
	return out
}

// basic are the forms of the HTTP Basic credential user:s (base64,
// standard and URL alphabets, padded and not).
func basic(user, s string) []string {
	var out []string
	for _, e := range base64s() {
		out = append(out, e.EncodeToString([]byte(user+":"+s)))
	}
	return out
}
