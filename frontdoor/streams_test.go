package frontdoor

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/internal/poll"
)

// openListen opens a listen stream with token and returns the response:
// a stream to read, or a refusal. Closing its body (or cancel) ends it.
func openListen(t *testing.T, srv *httptest.Server, token string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := newCall(t, "L", "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.RequestURI = ""
	req.URL.Scheme, req.URL.Host = "http", strings.TrimPrefix(srv.URL, "http://")
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return resp, cancel
}

// wantStreamRefused checks the 429 of a listen request over a stream
// limit: -31429 naming the limit, and no Retry-After, since no wait is
// sure to free a place.
func wantStreamRefused(t *testing.T, resp *http.Response, limit string, max int) {
	t.Helper()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("listen over the %s limit = %d, want 429", limit, resp.StatusCode)
	}
	body, _ := io.ReadAll(resp.Body)
	var m struct {
		Error struct {
			Code    int
			Message string
			Data    streamLimitData
		}
	}
	json.Unmarshal(body, &m)
	want := streamLimitData{Limit: limit, Key: "subscriptions/listen", Max: max}
	if resp.StatusCode != http.StatusTooManyRequests || m.Error.Code != jsonrpc.RateLimited || m.Error.Data != want {
		t.Fatalf("listen over the %s limit = %d %s, want 429 with code %d and data %+v", limit, resp.StatusCode, body, jsonrpc.RateLimited, want)
	}
	if !strings.Contains(m.Error.Message, "close one") || resp.Header.Get("Retry-After") != "" {
		t.Errorf("message %q, Retry-After %q: want a sentence saying to close a stream, and no Retry-After",
			m.Error.Message, resp.Header.Get("Retry-After"))
	}
}

// TestListenLimits: the 11th open stream of a token is refused; closing
// one lets another open. The tenant's limit counts all its tokens.
func TestListenLimits(t *testing.T) {
	_, srv := listenHandlerWith(t, Config{Events: &fakeEvents{}, ListenLimits: StreamLimits{PerToken: 10, PerTenant: 12}})
	var cancels []context.CancelFunc
	for i := range 10 {
		resp, cancel := openListen(t, srv, tokenAll)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of the token = %d, want 200", i+1, resp.StatusCode)
		}
		cancels = append(cancels, cancel)
	}
	resp, _ := openListen(t, srv, tokenAll)
	wantStreamRefused(t, resp, "token", 10)

	// Another token of the tenant opens two, then meets the tenant's limit.
	for i := range 2 {
		if resp, _ := openListen(t, srv, tokenRead); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of another token = %d, want 200", i+1, resp.StatusCode)
		}
	}
	resp, _ = openListen(t, srv, tokenRead)
	wantStreamRefused(t, resp, "tenant", 12)

	// Closing a stream frees its place, once the server has seen it go.
	cancels[0]()
	poll.Until(t, 10*time.Second, "a closed stream to free its place", func() bool {
		resp, _ := openListen(t, srv, tokenAll)
		return resp.StatusCode == http.StatusOK
	})
}

// TestListenNoLimits: with no limits, streams are not counted at all.
func TestListenNoLimits(t *testing.T) {
	h, srv := listenHandlerWith(t, Config{Events: &fakeEvents{}})
	for i := range 12 {
		if resp, _ := openListen(t, srv, tokenAll); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d = %d, want 200 without limits", i+1, resp.StatusCode)
		}
	}
	if h.streams != nil {
		t.Error("streams are counted without limits")
	}
}
