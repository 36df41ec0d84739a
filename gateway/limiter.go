package gateway

import (
	"sync"
	"time"
)

// limiter slows down an address that fails authentication repeatedly:
// after max (Options.MaxFailures) failures within FailureWindow it is refused (429) until
// the window has passed since its last failure.
type limiter struct {
	now func() time.Time
	max int
	mu  sync.Mutex
	ips map[string]*failures
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
}

// blocked is how long ip must still wait, 0 when it may try.
func (l *limiter) blocked(ip string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.ips[ip]
	if !ok || f.n < l.max {
		return 0
	}
	wait := FailureWindow - l.now().Sub(f.last)
	if wait <= 0 {
		delete(l.ips, ip)
		return 0
	}
	return wait
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
