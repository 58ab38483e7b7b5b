package tests

// The host page of the MCP Apps browser tests (browser_apps_test.go) runs
// the ext-apps SDK's AppBridge, bundled from appshost/ (its versions
// pinned in package-lock.json) into testdata/appshost/host.js, which is
// committed: plain `go test` needs neither npm nor the network. This
// rebuilds it, with npm.
//go:generate sh -c "cd appshost && npm ci --silent --no-audit --no-fund && npm run --silent build"
