package archive

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// maxManifest bounds the manifest read before anything is checked.
const maxManifest = 16 << 20

// DamagedError says an archive cannot be trusted: it is not one of ours,
// it was cut short, or an entry differs from what its manifest lists.
type DamagedError struct {
	Path string
	Why  string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s cannot be used: %s", e.Path, e.Why)
}

// Reader reads an archive whose manifest was found and whose format
// matched.
type Reader struct {
	path  string
	f     *os.File
	zr    *zip.Reader
	m     Manifest
	files map[string]*zip.File
}

// OpenFile opens the archive at path, expecting the given format. It reads
// the manifest only: Verify checks the entries.
func OpenFile(path, format string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := open(f, path, format)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func open(f *os.File, path, format string) (*Reader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return nil, &DamagedError{path, "it is not a whole Taskwire archive (" + err.Error() + "): it may have been cut short while written or copied; use the original file"}
	}
	r := &Reader{path: path, f: f, zr: zr, files: map[string]*zip.File{}}
	for _, zf := range zr.File {
		if _, dup := r.files[zf.Name]; dup {
			return nil, &DamagedError{path, fmt.Sprintf("it holds %s twice", zf.Name)}
		}
		r.files[zf.Name] = zf
	}
	if err := r.readManifest(format); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Reader) readManifest(format string) error {
	zf, ok := r.files[ManifestName]
	if !ok {
		return &DamagedError{r.path, "it has no " + ManifestName + ", so it is not a Taskwire " + format + " archive"}
	}
	rc, err := zf.Open()
	if err != nil {
		return &DamagedError{r.path, ManifestName + " cannot be read: " + err.Error()}
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, maxManifest+1))
	if err != nil {
		return &DamagedError{r.path, ManifestName + " cannot be read: " + err.Error()}
	}
	if len(raw) > maxManifest {
		return &DamagedError{r.path, ManifestName + " is too large to be a Taskwire manifest"}
	}
	if err := json.Unmarshal(raw, &r.m); err != nil {
		return &DamagedError{r.path, ManifestName + " is not valid JSON: " + err.Error()}
	}
	if r.m.Format != format {
		return &DamagedError{r.path, fmt.Sprintf("it is a %q archive, not a Taskwire %s", r.m.Format, format)}
	}
	return nil
}

// Manifest returns the archive's manifest, as read (unverified until
// Verify).
func (r *Reader) Manifest() Manifest { return r.m }

// Verify reads every entry and checks it against the manifest: each entry
// listed is present with its size, checksum and line count, and nothing
// else is in the archive. Reading an archive's entries afterwards checks
// them again as they are read (Open), so a file changed between the two
// is still caught.
func (r *Reader) Verify() error {
	if len(r.files) != len(r.m.Entries)+1 {
		return &DamagedError{r.path, fmt.Sprintf("it holds %d files but its manifest lists %d", len(r.files)-1, len(r.m.Entries))}
	}
	for _, e := range r.m.Entries {
		rc, err := r.Open(e.Name)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Open opens the entry name for reading. The reader it returns fails at
// the entry's end, rather than reporting io.EOF, when what was read is not
// what the manifest lists.
func (r *Reader) Open(name string) (io.ReadCloser, error) {
	e, ok := r.m.Entry(name)
	if !ok {
		return nil, &DamagedError{r.path, "its manifest does not list " + name}
	}
	zf, ok := r.files[name]
	if !ok {
		return nil, &DamagedError{r.path, name + " is missing"}
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, &DamagedError{r.path, name + " cannot be read: " + err.Error()}
	}
	return &checkedReader{rc: rc, h: sha256.New(), e: e, path: r.path}, nil
}

// Close closes the archive's file.
func (r *Reader) Close() error { return r.f.Close() }

// checkedReader hashes and counts an entry as it is read and compares
// both with the manifest at its end.
type checkedReader struct {
	rc    io.ReadCloser
	h     hash.Hash
	e     Entry
	path  string
	n     int64
	lines int64
}

func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	c.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	if c.n > c.e.Bytes {
		return n, c.damaged("is longer than its manifest says")
	}
	switch {
	case errors.Is(err, io.EOF):
		if why := c.check(); why != "" {
			return n, c.damaged(why)
		}
	case err != nil:
		return n, c.damaged("cannot be read (" + err.Error() + ")")
	}
	return n, err
}

func (c *checkedReader) check() string {
	switch {
	case c.n != c.e.Bytes:
		return fmt.Sprintf("has %d bytes where its manifest says %d", c.n, c.e.Bytes)
	case hex.EncodeToString(c.h.Sum(nil)) != c.e.SHA256:
		return "does not match its checksum"
	case c.e.Records != 0 && c.lines != c.e.Records:
		return fmt.Sprintf("has %d records where its manifest says %d", c.lines, c.e.Records)
	}
	return ""
}

func (c *checkedReader) damaged(why string) error {
	return &DamagedError{c.path, c.e.Name + " " + why + ": the archive was changed or damaged after it was written; use the original file"}
}

func (c *checkedReader) Close() error { return c.rc.Close() }
