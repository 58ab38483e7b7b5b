package telemetry

import (
	"context"
	"database/sql"
	"time"

	"entgo.io/ent/dialect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// pingTimeout bounds the database ping of one scrape.
const pingTimeout = 2 * time.Second

// EntDriver adds the health of the database db under d to the registry,
// its connection pool (sql.DB.Stats, as go_sql_* series) and a ping on
// every scrape (taskwire_db_up, taskwire_db_ping_seconds), and returns d
// wrapped so that each statement run for a traced call becomes a span
// (TraceDriver). It fits store.WrapDriver. Call it once per process.
func (t *Telemetry) EntDriver(db *sql.DB, d dialect.Driver) dialect.Driver {
	t.reg.MustRegister(collectors.NewDBStatsCollector(db, "taskwire"), &pingCollector{db: db})
	return t.TraceDriver(d)
}

var (
	dbUpDesc = prometheus.NewDesc("taskwire_db_up",
		"1 when the database answered a ping at this scrape, else 0.", nil, nil)
	dbPingDesc = prometheus.NewDesc("taskwire_db_ping_seconds",
		"How long the database took to answer the ping of this scrape.", nil, nil)
)

// pingCollector pings the database when scraped, so the health it reports
// is as fresh as the scrape, and costs nothing between scrapes.
type pingCollector struct{ db *sql.DB }

func (c *pingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dbUpDesc
	ch <- dbPingDesc
}

func (c *pingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	start := time.Now()
	err := c.db.PingContext(ctx)
	took := time.Since(start).Seconds()
	up := 1.0
	if err != nil {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(dbUpDesc, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(dbPingDesc, prometheus.GaugeValue, took)
}

// InstrumentOutages adds what a worker's circuit breaker on its database
// counts, read at scrape time through stats: whether the database answers
// now (taskwire_db_reachable), the outages begun (taskwire_db_outages_total)
// and the calls refused during them without reaching the database
// (taskwire_db_calls_refused_total). Call it once per process.
func (t *Telemetry) InstrumentOutages(stats func() (reachable bool, outages, refused uint64)) {
	t.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "taskwire_db_reachable",
			Help: "1 while the worker's breaker finds the database reachable, 0 during an outage.",
		}, func() float64 {
			if up, _, _ := stats(); up {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "taskwire_db_outages_total",
			Help: "Outages of the database the worker saw begin: calls failed to reach it, or a ping went unanswered.",
		}, func() float64 { _, n, _ := stats(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "taskwire_db_calls_refused_total",
			Help: "Calls answered as unavailable during outages of the database, without reaching it.",
		}, func() float64 { _, _, n := stats(); return float64(n) }),
	)
}
