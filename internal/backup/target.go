package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// checkTarget refuses a data directory to restore into that is not
// missing or empty: a restore never overwrites, nor mixes with, data.
func checkTarget(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is a file: --data must name a new or empty directory to restore into", dir)
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("%s is not empty (it holds %s): restore into a new or empty directory, so that nothing there is overwritten; "+
			"to restore a server's own data directory, stop the server and move the directory aside first", dir, names[0].Name())
	}
	return nil
}

// makeTarget creates the data directory to restore into, private (0700),
// unless it exists (empty, as checkTarget found it), and returns what
// undoes the restore: the directory removed if made here, else the files
// a restore writes removed from it.
func makeTarget(dir string) (undo func(), err error) {
	if err := checkTarget(dir); err != nil { // again: it may have changed meanwhile
		return nil, err
	}
	if _, err := os.Stat(dir); err == nil {
		return func() { removeEntries(dir) }, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil { // past the umask
		os.Remove(dir)
		return nil, err
	}
	return func() { os.RemoveAll(dir) }, nil
}

// removeEntries removes from dir the files a restore writes there.
func removeEntries(dir string) {
	for _, e := range entries {
		os.Remove(filepath.Join(dir, e.name))
	}
	removeDB(filepath.Join(dir, DatabaseName+partialSuffix))
}

// ctxReader stops a long copy once ctx ends (an interrupt).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
