package telemetry

import (
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
)

// InstrumentNATS adds nc's health to the registry: whether it is connected
// now, and how often it had to reconnect. Both are read at scrape time
// from the connection itself. Call it once per connection.
func (t *Telemetry) InstrumentNATS(nc *nats.Conn) {
	t.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "taskwire_nats_connected",
			Help: "1 while the NATS connection is up, else 0.",
		}, func() float64 {
			if nc.IsConnected() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "taskwire_nats_reconnects_total",
			Help: "Times the NATS connection was re-established.",
		}, func() float64 { return float64(nc.Stats().Reconnects) }),
	)
}

// ProgressRelayFailed counts a call whose client was told that progress
// or log messages could not be relayed, for reason (a closed set of
// words the caller names).
func (t *Telemetry) ProgressRelayFailed(reason string) {
	t.metrics.relayFailures.WithLabelValues(reason).Inc()
}
