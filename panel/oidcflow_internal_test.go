package panel

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/gateway"
)

// Sign-ins in progress are bounded per client as the gateway's other bounds
// count clients (gateway.ClientKey): a host rotating through the addresses of
// its IPv6 /64 is one client, holds perAddress sign-ins at most, and pushes
// out none of another client's; when many clients fill the store, a new
// sign-in is refused rather than a person's dropped. (The end-to-end test of
// this cannot run here: every address a test can dial from is loopback, one
// client.)
func TestSignInsInProgressPerClient(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	f := newOIDCFlow(&gateway.SignIn{}, func() time.Time { return now })
	from := func(remote string) pending {
		return pending{created: now, addr: gateway.ClientKey(&http.Request{RemoteAddr: remote})}
	}
	victim := f.start(from("192.0.2.7:40000"))
	if victim == "" {
		t.Fatal("the first sign-in was refused")
	}
	for i := range 2000 {
		f.start(from(fmt.Sprintf("[2001:db8:1:2:%x::1]:%d", i, 1024+i)))
	}
	rotated := 0
	for _, p := range f.pending {
		if p.addr == "2001:db8:1:2::/64" {
			rotated++
		}
	}
	if rotated != perAddress {
		t.Errorf("2000 sign-ins from one /64's addresses hold %d places, want %d (one client's share)", rotated, perAddress)
	}
	// Many clients fill the store: a new sign-in is refused, none dropped.
	for i := 0; len(f.pending) < maxPending; i++ {
		f.start(from(fmt.Sprintf("198.51.%d.%d:1", i/250, i%250)))
	}
	if id := f.start(from("203.0.113.9:1")); id != "" {
		t.Error("a full store took one more sign-in; it must refuse it")
	}
	if _, ok := f.take(victim); !ok {
		t.Error("a flood from other clients (a rotating /64, then many addresses) pushed out a person's sign-in in progress")
	}
}
