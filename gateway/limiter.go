package gateway

import (
	"sync"
	"time"
)

// limiter slows down authentication failures: after max
// (Options.MaxFailures) failures within FailureWindow an address (its
// ClientKey) is refused (429) until the window has passed since its last
// failure; and after totalCeiling(max) failures from every address together,
// every address is, likewise. A valid credential is never refused by it.
type limiter struct {
	now   func() time.Time
	max   int
	mu    sync.Mutex
	ips   map[string]*failures
	total failures // every address's failures together
}

type failures struct {
	n    int
	last time.Time
}

// Rate limits of failed authentication, per address. Behind a reverse
// proxy every client has the proxy's address and shares its limit.
const (
	MaxFailures   = 10
	FailureWindow = time.Minute
	maxAddresses  = 100000
)

// totalCeiling is how many failures the whole server answers within
// FailureWindow before it refuses every wrong credential: ten addresses'
// worth. Addresses from many networks (a botnet, a cloud's many IPv4
// addresses) cannot multiply the guesses without bound.
func totalCeiling(max int) int { return 10 * max }

func newLimiter(now func() time.Time, max int) *limiter {
	return &limiter{now: now, max: max, ips: map[string]*failures{}}
}

func (l *limiter) fail(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	f, ok := l.ips[ip]
	if !ok || now.Sub(f.last) > FailureWindow {
		if len(l.ips) >= maxAddresses {
			l.evict(now)
		}
		f = &failures{}
		l.ips[ip] = f
	}
	f.n++
	f.last = now
	if now.Sub(l.total.last) > FailureWindow {
		l.total.n = 0
	}
	l.total.n++
	l.total.last = now
}

// blocked is how long ip must still wait, 0 when it may try.
func (l *limiter) blocked(ip string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var wait time.Duration
	if l.total.n >= totalCeiling(l.max) {
		if wait = FailureWindow - now.Sub(l.total.last); wait <= 0 {
			l.total.n, wait = 0, 0
		}
	}
	f, ok := l.ips[ip]
	if !ok || f.n < l.max {
		return wait
	}
	own := FailureWindow - now.Sub(f.last)
	if own <= 0 {
		delete(l.ips, ip)
		return wait
	}
	return max(own, wait)
}

// evict makes room for one more address in constant time: it drops up to
// a few expired entries, else one arbitrary entry (a table full of fresh
// addresses is an attack; forgetting one of them costs nothing).
func (l *limiter) evict(now time.Time) {
	seen := 0
	for ip, f := range l.ips {
		seen++
		if now.Sub(f.last) > FailureWindow || seen >= 8 {
			delete(l.ips, ip)
			return
		}
	}
}
