//go:build unix

package store

import "syscall"

// hasRoom reports whether the file system holding dir has at least
// minRoom bytes free for an unprivileged writer; true when it cannot
// tell.
func hasRoom(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return true
	}
	return st.Bavail*uint64(st.Bsize) >= minRoom
}
