package node

import (
	"strings"
	"testing"
)

// TestValidateNamesAllMissing checks that an empty configuration is
// refused with every required setting named, so that one failed start
// tells all that is missing.
func TestValidateNamesAllMissing(t *testing.T) {
	for name, tc := range map[string]struct {
		validate func() error
		want     string
	}{
		"WorkerConfig":           {WorkerConfig{}.Validate, "worker: missing DB, NATS, Log, Listen"},
		"FrontdoorConfig":        {FrontdoorConfig{}.Validate, "front door: missing Listener, Log, Key, PublicURL, Worker"},
		"SystemConfig":           {SystemConfig{}.Validate, "system: missing Listener, Log, DataDir, DB, SigningKey, PublicURL, OperatorSecretFile"},
		"WorkerProcessConfig":    {WorkerProcessConfig{}.Validate, "worker: missing Log, Telemetry, DB, NATS, Listen, InternalKeyFile, SigningKey, PublicURL"},
		"FrontdoorProcessConfig": {FrontdoorProcessConfig{}.Validate, "front door: missing Node.Log, Node.Telemetry, Node.PublicURL, Node.Worker, Addr, NATS, InternalKeyFile, SigningKey"},
	} {
		if err := tc.validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%s{}.Validate() = %v, want %s", name, err, tc.want)
		}
	}
	if _, err := NewWorker(WorkerConfig{}); err == nil || !strings.HasPrefix(err.Error(), "worker: missing") {
		t.Errorf("NewWorker(WorkerConfig{}) = %v, want the Validate error", err)
	}
}
