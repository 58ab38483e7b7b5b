package keys

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestKeysReloadOnReconnect: a nudge sent while a process was away from
// NATS is lost, so the keys are loaded again whenever its connection comes
// back, as revocations are.
func TestKeysReloadOnReconnect(t *testing.T) {
	nc, err := nats.Connect(natstest.Start(t), nats.ReconnectWait(20*time.Millisecond), nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	loads := make(chan struct{}, 16)
	stop, err := followKeys(nc, func(context.Context) error { loads <- struct{}{}; return nil }, storetest.Logger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	if err := nc.ForceReconnect(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the reconnect to reload the keys", func() bool {
		select {
		case <-loads:
			return true
		default:
			return false
		}
	})
}
