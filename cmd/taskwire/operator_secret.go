package main

import (
	"fmt"
	"io"
	"path/filepath"
)

// operatorSecretName is the operator secret's file in the data directory.
const operatorSecretName = "operator.secret"

// operatorSecretPath is where the operator secret is read: the file
// configured, which must exist, or the data directory's, created on the
// first start.
func (c *config) operatorSecretPath() (path string, create bool) {
	if c.OperatorSecretFile != "" {
		return c.OperatorSecretFile, false
	}
	return filepath.Join(c.DataDir, operatorSecretName), true
}

// printOperatorSecret shows a newly created operator secret, once.
func printOperatorSecret(out io.Writer, secret, path, url string) {
	if secret == "" {
		return
	}
	fmt.Fprintf(out, `
Platform operator secret, shown this once (also in %s, mode 0600).
It manages every tenant through the admin API, never through MCP; keep it secret.

  %s

  taskwire admin tenants list --url %s --operator-secret-file %s
`, path, secret, url, path)
}
