package events

// KeysSubject carries the news that the signing keys changed (a rotation)
// to every worker and front door, which then reload them: from the
// database on a worker, from a worker on a front door. The message is a
// nudge only; the keys never travel on NATS.
const KeysSubject = "taskwire.keys"

// KeysChanged is the nudge sent on KeysSubject.
type KeysChanged struct{}

// PublishKeysChanged tells every worker and front door to reload the keys.
func (b *Bus) PublishKeysChanged() error {
	return publish(b.nc, KeysSubject, KeysChanged{})
}

// SubscribeKeysChanged calls fn with each nudge published on KeysSubject.
func (b *Bus) SubscribeKeysChanged(fn func()) (unsubscribe func(), err error) {
	return subscribe(b.nc, KeysSubject, func(KeysChanged) bool { return true }, func(KeysChanged) { fn() })
}
