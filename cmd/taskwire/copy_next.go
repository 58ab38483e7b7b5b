package main

import (
	"fmt"
	"io"
	neturl "net/url"
	"path/filepath"
	"strings"
)

// nextSteps is what the commands printed after a copy need.
type nextSteps struct {
	source    string // serve's database file
	db        string // the PostgreSQL database, its password hidden
	publicURL string // serve's public URL, if given
}

// printNext tells what to start on the copy: the split deployment of
// Operations, given serve's root key and public URL so that every token
// minted before keeps verifying.
func printNext(w io.Writer, n nextSteps) {
	dir := filepath.Dir(n.source)
	url := n.publicURL
	if url == "" {
		url = "http://127.0.0.1:8080"
	}
	key, secret := filepath.Join(dir, "signing.key"), filepath.Join(dir, "operator.secret")
	addr := "127.0.0.1:8080"
	if u, err := neturl.Parse(url); err == nil && u.Port() != "" {
		addr = u.Host // where serve listened, since clients reach that
	}
	shared := fmt.Sprintf("--nats nats://127.0.0.1:4222 --public-url %s \\\n      --signing-key %s --internal-key-file internal.key", url, key)
	fmt.Fprintln(w, strings.Join([]string{
		"",
		"Next, start Taskwire on PostgreSQL (leave serve stopped: " + dir + " stays as it was, to go back to):",
		"",
		"  openssl rand -base64 32 > internal.key && chmod 600 internal.key",
		"  taskwire migrate --db '" + n.db + "'",
		"  taskwire worker --db '" + n.db + "' " + shared,
		"  taskwire frontdoor --addr " + addr + " --workers 127.0.0.1:9090 " + shared + " \\",
		"      --operator-secret-file " + secret,
		"",
		"- --public-url must be the URL serve used (" + url + " above): tokens are bound to it.",
		"- --signing-key is serve's root key: the signing keys copied are sealed under it. Keep it",
		"  as secret as the database, and give every worker and front door the same file.",
		"- NATS: a NATS server with JetStream on (serve ran one inside); give every process its URL.",
		"- Then check: taskwire admin tenants list --url " + url + " --operator-secret-file " + secret,
	}, "\n"))
}
