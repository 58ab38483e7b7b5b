package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// A data directory is served by at most one `taskwire serve`, which holds
// its lock (an exclusive file lock, released by the system if the process
// dies) and writes the address of its admin API beside it. The `taskwire
// token` commands take the lock shared while they work on the database
// alone, so no serve starts under them; when a serve holds it, they go
// through its admin API instead, so that a revocation is the server's own
// and holds from the very next call.
const (
	dataLockName = "serve.lock"
	adminURLName = "admin.url"
)

// dataLockWait is how long serve waits for token commands working on the
// database to finish before it gives up.
const dataLockWait = 10 * time.Second

// holdDataDir takes dir for a serve whose admin API is at adminURL: it
// holds the lock until release, and records adminURL for the token
// commands. Another serve on dir is refused.
func holdDataDir(ctx context.Context, dir, adminURL string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(dir, dataLockName), flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(ctx, dataLockWait)
	defer cancel()
	ok, err := lock.TryLockContext(ctx, 50*time.Millisecond)
	if !ok || err != nil {
		return nil, fmt.Errorf("data directory %s is in use by another taskwire serve (or a token command that did not finish): stop it, or give this one another --data", dir)
	}
	path := filepath.Join(dir, adminURLName)
	if err := os.WriteFile(path, []byte(adminURL+"\n"), 0o600); err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("record the admin URL in %s: %w", path, err)
	}
	return func() {
		os.Remove(path)
		lock.Unlock()
	}, nil
}

// LocalServer returns the admin URL of the serve holding dir. When none
// does, it returns "" with dir's lock taken shared, which keeps a serve
// from starting until release (a no-op otherwise); a dir that does not
// exist has no server.
func LocalServer(dir string) (adminURL string, release func(), err error) {
	path := filepath.Join(dir, dataLockName)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return "", func() {}, nil
	}
	lock := flock.New(path, flock.SetPermissions(0o600))
	ok, err := lock.TryRLock()
	if err != nil {
		return "", nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if ok {
		return "", func() { lock.Unlock() }, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, adminURLName))
	if err != nil {
		return "", nil, fmt.Errorf("a taskwire serve holds %s, but its admin URL cannot be read (%w): pass --url", dir, err)
	}
	return strings.TrimSpace(string(data)), func() {}, nil
}
