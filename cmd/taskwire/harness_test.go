package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// setups are the deployments of nodetest, each started as `taskwire
// serve` starts it: the first start prints what serve prints.
func setups() []nodetest.Setup {
	list := nodetest.Setups()
	for i := range list {
		list[i].FirstStart = firstStart
	}
	return list
}

// adminClient drives the admin API of a harness three ways: the CLI run
// in process, and JSON over HTTP and gRPC on the same port
// (nodetest.AdminClient).
type adminClient struct {
	*nodetest.AdminClient
}

func newAdminClient(t *testing.T, h *nodetest.Harness) *adminClient {
	t.Helper()
	return &adminClient{nodetest.NewAdminClient(t, h)}
}

// cli runs `taskwire admin args… --url … --token bearer`.
func (a *adminClient) cli(bearer string, args ...string) (stdout string, err error) {
	var out, errOut bytes.Buffer
	args = append(append([]string{"admin"}, args...), "--url", a.Base, "--token", bearer)
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), err
}

func (a *adminClient) cliOK(bearer string, args ...string) string {
	a.T.Helper()
	out, err := a.cli(bearer, args...)
	if err != nil {
		a.T.Fatalf("taskwire admin %s: %v", strings.Join(args, " "), err)
	}
	return out
}
