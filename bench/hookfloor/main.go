// Command hookfloor links only the packages bridle hook decides with (the
// rules being served and the enforce checks) and exits: the start-up floor
// of a hook binary of its own, had bridle one, beside bridle hook itself in
// bench/startup.sh — how much of bridle hook's start is the rest of the
// binary's package initialisation.
package main

import (
	_ "github.com/bridle-dev/bridle/enforce"
	_ "github.com/bridle-dev/bridle/live"
)

func main() {}
