package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProtocolErrors: what the bare peer does not serve is a JSON-RPC
// error with the request's id, as from any MCP server, before the database
// is asked.
func TestProtocolErrors(t *testing.T) {
	srv := httptest.NewServer(&handler{})
	defer srv.Close()
	for body, want := range map[string]int{
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`:                                     -32601,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tasks_create","arguments":{}}}`: -32602,
	} {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			ID    int `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || got.ID != 7 || got.Error.Code != want {
			t.Errorf("POST %s = id %d, code %d, %v; want id 7, code %d", body, got.ID, got.Error.Code, err, want)
		}
	}
}
