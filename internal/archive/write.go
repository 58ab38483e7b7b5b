// Package archive reads and writes Taskwire's archive files (backups of
// the embedded default, tenant exports): a zip file whose entries are
// listed, with their sizes and SHA-256 checksums, in a manifest.json
// written last. Zip because any system opens one; the manifest because a
// reader must know that every entry is whole and unchanged before it
// trusts any of them, which zip's CRC-32 alone cannot promise.
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
	"path/filepath"
	"strings"
	"time"
)

// ManifestName is the manifest's entry.
const ManifestName = "manifest.json"

// Manifest describes an archive: its format and that format's version,
// when it was written, and every other entry.
type Manifest struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	Entries []Entry   `json:"entries"`
	// Meta holds the format's own fields (the tenant of an export, the
	// schema version of a backup).
	Meta json.RawMessage `json:"meta,omitempty"`
}

// Entry is one file of an archive as the manifest lists it.
type Entry struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// Records counts the lines of a JSON Lines entry (.jsonl).
	Records int64 `json:"records,omitempty"`
}

// Entry returns the manifest's entry named name.
func (m Manifest) Entry(name string) (Entry, bool) {
	for _, e := range m.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Writer writes an archive's entries one after another, then the
// manifest. Entries are written as they come: nothing is held whole.
type Writer struct {
	zw  *zip.Writer
	m   Manifest
	cur *entryWriter
}

// NewWriter starts an archive of the given format and version on w.
func NewWriter(w io.Writer, format string, version int) *Writer {
	return &Writer{
		zw: zip.NewWriter(w),
		m:  Manifest{Format: format, Version: version, Created: time.Now().UTC().Truncate(time.Second), Entries: []Entry{}},
	}
}

// Create starts the entry name, ending the one before.
func (w *Writer) Create(name string) (io.Writer, error) {
	if name == ManifestName || name == "" || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return nil, fmt.Errorf("archive: entry name %q is not allowed", name)
	}
	if _, ok := w.m.Entry(name); ok || (w.cur != nil && w.cur.e.Name == name) {
		return nil, fmt.Errorf("archive: entry %q written twice", name)
	}
	w.end()
	zf, err := w.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: w.m.Created})
	if err != nil {
		return nil, err
	}
	w.cur = &entryWriter{w: zf, h: sha256.New(), e: Entry{Name: name}, lines: strings.HasSuffix(name, ".jsonl")}
	return w.cur, nil
}

func (w *Writer) end() {
	if w.cur == nil {
		return
	}
	w.cur.e.SHA256 = hex.EncodeToString(w.cur.h.Sum(nil))
	w.m.Entries = append(w.m.Entries, w.cur.e)
	w.cur = nil
}

// Close ends the last entry and writes the manifest, with meta (marshalled
// to JSON) as its Meta, and the zip's directory. It does not close the
// writer NewWriter was given. It returns the manifest written.
func (w *Writer) Close(meta any) (Manifest, error) {
	w.end()
	if meta != nil {
		raw, err := json.Marshal(meta)
		if err != nil {
			return Manifest{}, err
		}
		w.m.Meta = raw
	}
	mw, err := w.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: w.m.Created})
	if err != nil {
		return Manifest{}, err
	}
	enc := json.NewEncoder(mw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(w.m); err != nil {
		return Manifest{}, err
	}
	return w.m, w.zw.Close()
}

// entryWriter hashes, counts and compresses one entry.
type entryWriter struct {
	w     io.Writer
	h     hash.Hash
	e     Entry
	lines bool
}

func (e *entryWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	e.h.Write(p[:n])
	e.e.Bytes += int64(n)
	if e.lines {
		e.e.Records += int64(bytes.Count(p[:n], []byte{'\n'}))
	}
	return n, err
}

// ErrExists is WriteFile's error when its path is taken.
var ErrExists = errors.New("archive: file exists")

// WriteFile writes an archive to path, which must not exist: fill writes
// the entries and returns the manifest's Meta. The file is as CreateFile
// makes it.
func WriteFile(path, format string, version int, fill func(*Writer) (meta any, err error)) (Manifest, error) {
	var m Manifest
	err := CreateFile(path, func(f *os.File) (err error) {
		m, err = writeTo(f, format, version, fill)
		return err
	})
	return m, err
}

// CreateFile creates the file path, which must not exist, with what write
// writes to it. The file is private to its owner (0600) and appears only
// once whole, so a failure or an interrupt leaves no half-written file
// behind under that name (an archive downloaded, say).
func CreateFile(path string, write func(*os.File) error) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%w: %s already exists: choose another name or remove it first", ErrExists, path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(0o600)
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A link, unlike a rename, never replaces a file that appeared
	// meanwhile.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%w: %s already exists: choose another name or remove it first", ErrExists, path)
		}
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

func writeTo(f *os.File, format string, version int, fill func(*Writer) (any, error)) (Manifest, error) {
	w := NewWriter(f, format, version)
	meta, err := fill(w)
	if err != nil {
		return Manifest{}, err
	}
	return w.Close(meta)
}
