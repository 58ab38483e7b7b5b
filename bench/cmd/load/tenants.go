package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// tenantsCmd creates tenants through the admin API, as an operator would,
// seeds each one's board through its owner's MCP token, and writes the
// tokens, one a line, for `load run -tokens`.
func tenantsCmd(args []string) error {
	fs := flag.NewFlagSet("tenants", flag.ExitOnError)
	adminURL := fs.String("admin-url", "", "the server's base URL, where /admin/v1/ is served")
	url := fs.String("url", "", "MCP endpoint")
	secretFile := fs.String("operator-secret", "", "file holding the operator secret (operator.secret in the data directory)")
	n := fs.Int("tenants", 1000, "tenants to create")
	tasks := fs.Int("tasks", 100, "open tasks to seed on each tenant's board")
	conc := fs.Int("c", 4, "tenants created at once")
	out := fs.String("tokens-out", "", "write the owners' MCP tokens here, one a line")
	prefix := fs.String("prefix", "bench", "the tenants' slugs are PREFIX-0001, PREFIX-0002, …")
	fs.Parse(args)
	secret, err := os.ReadFile(*secretFile)
	if err != nil {
		return err
	}
	start := time.Now()
	tokens := make([]string, *n)
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range *conc {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < *n; i = int(next.Add(1)) - 1 {
				token, err := createTenant(*adminURL, strings.TrimSpace(string(secret)), fmt.Sprintf("%s-%04d", *prefix, i+1))
				if err == nil {
					tokens[i] = token
					err = seed(newClient(*url, token, 1), *tasks, 0, true)
				}
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("tenant %d: %w", i+1, err) })
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := os.WriteFile(*out, []byte(strings.Join(tokens, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	fmt.Printf("created %d tenants of %d tasks in %.1f s\n", *n, *tasks, time.Since(start).Seconds())
	return nil
}

// createTenant creates the tenant slug, owned by a person "owner", and
// returns the owner's first MCP token.
func createTenant(baseURL, secret, slug string) (string, error) {
	body, _ := json.Marshal(map[string]string{"slug": slug, "ownerHandle": "owner"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(baseURL, "/")+"/admin/v1/CreateTenant", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("CreateTenant: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))
	}
	var r struct {
		OwnerToken string `json:"ownerToken"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.OwnerToken == "" {
		return "", fmt.Errorf("CreateTenant gave no owner token: %s", data)
	}
	return r.OwnerToken, nil
}
