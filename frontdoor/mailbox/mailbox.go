// Package mailbox delivers a message to whichever front door replica holds
// a key. Front doors are stateless and any replica may receive a client's
// next POST, but some messages concern a call whose stream is held by one
// replica: an older client's notifications/cancelled, or its answer to an
// elicitation sent on that stream. The holder opens a box for the call's
// key; a sender anywhere publishes to the key over NATS.
package mailbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/nats-io/nats.go"
)

// SubjectPrefix starts every mailbox subject.
const SubjectPrefix = "taskwire.mailbox."

// Mailbox opens boxes and sends to them.
type Mailbox struct {
	nc *nats.Conn
}

// New returns a Mailbox over nc.
func New(nc *nats.Conn) (*Mailbox, error) {
	if nc == nil {
		return nil, errors.New("mailbox: no NATS connection")
	}
	return &Mailbox{nc: nc}, nil
}

// Key names a call by the parts that identify it to its client, e.g. a
// sealed session id and a JSON-RPC request id.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ErrUnreachable is what Open and Send return while the connection to NATS
// is down, at once: waiting for it would hold up the call (the flush waits
// up to 10 s), and a box opened then would hear nothing anyway.
var ErrUnreachable = errors.New("mailbox: the message bus is unreachable")

// Box receives what is sent to one key while it is open.
type Box struct {
	C   <-chan []byte
	sub *nats.Subscription
}

// Open starts receiving messages sent to key. The subscription reaches the
// NATS server before Open returns, so nothing sent afterwards is missed.
// Messages beyond a small buffer are dropped: a box holds answers to one
// call, not a queue.
func (m *Mailbox) Open(key string) (*Box, error) {
	if !m.nc.IsConnected() {
		return nil, ErrUnreachable
	}
	ch := make(chan []byte, 8)
	sub, err := m.nc.Subscribe(subject(key), func(msg *nats.Msg) {
		select {
		case ch <- msg.Data:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	if err := m.nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, err
	}
	return &Box{C: ch, sub: sub}, nil
}

// Close stops receiving.
func (b *Box) Close() { b.sub.Unsubscribe() }

// Send delivers payload to the box open for key on any replica. It reports
// no error when no box is open: the call may have finished, and senders
// (cancellations, late answers) must tolerate that race.
func (m *Mailbox) Send(key string, payload []byte) error {
	if !m.nc.IsConnected() {
		return ErrUnreachable
	}
	if err := m.nc.Publish(subject(key), payload); err != nil {
		return err
	}
	return m.nc.Flush()
}

func subject(key string) string {
	return SubjectPrefix + strings.Map(func(r rune) rune {
		if r == '.' || r == '*' || r == '>' || r <= ' ' {
			return '_'
		}
		return r
	}, key)
}
