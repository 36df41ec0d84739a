package util

import "sync"

//go:generate go run ../_tools unicode-case-folding-map -o ../_tools/unicode-case-folding-map.json
//go:generate go run ../_tools emb-structs -i ../_tools/unicode-case-folding-map.json -o ./unicode_case_folding.gen.go

// Bridle's patch: built on first use, not at init (third_party/README.md).
var unicodeCaseFoldings = sync.OnceValue(func() map[rune][]rune {
	m := make(map[rune][]rune, _unicodeCaseFoldingLength)
	cTo := 0
	for i := 0; i < _unicodeCaseFoldingLength; i++ {
		tTo := cTo + int(_unicodeCaseFoldingToIndex[i])
		to := _unicodeCaseFoldingTo[cTo:tTo]
		m[_unicodeCaseFoldingFrom[i]] = to
		cTo = tTo
	}
	return m
})
