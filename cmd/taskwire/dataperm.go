package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/taskwire/taskwire/internal/store"
)

// warnOpenDirs warns, once at start, about each directory holding the
// data of c (serve's data directory, the SQLite database's) that other
// users of the machine may enter or read: the database and the keys in
// it are private files, but a shared directory lets others see, and with
// write access replace, them. Nothing is changed: the directory may be
// shared on purpose.
func warnOpenDirs(log *slog.Logger, c *config) {
	dirs := []string{}
	if c.DataDir != "" {
		dirs = append(dirs, c.DataDir)
	}
	if d, ok := store.SQLiteDir(c.DB); ok && d != c.DataDir {
		dirs = append(dirs, d)
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			continue
		}
		if mode := info.Mode().Perm(); mode&0o077 != 0 {
			log.Warn("the data directory is open to other users of this machine: make it private with chmod 700",
				"dir", dir, "mode", fmt.Sprintf("%04o", mode))
		}
	}
}
