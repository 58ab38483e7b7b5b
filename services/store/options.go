package store

import (
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/ent"
)

// Option changes how Open and Connect build the client they return.
type Option func(*options)

type options struct {
	wrap func(*entsql.Driver) dialect.Driver
}

// WrapDriver has the client run its statements through fn's driver, built
// over the opened one once the schema is migrated or checked: telemetry
// wraps it to trace statements and to watch the pool (telemetry's
// EntDriver fits), while migrations and version checks stay untraced.
func WrapDriver(fn func(*entsql.Driver) dialect.Driver) Option {
	return func(o *options) { o.wrap = fn }
}

// newClient builds the client over drv, wrapped as opts ask.
func newClient(drv *entsql.Driver, opts []Option) *ent.Client {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.wrap == nil {
		return ent.NewClient(ent.Driver(drv))
	}
	return ent.NewClient(ent.Driver(o.wrap(drv)))
}
