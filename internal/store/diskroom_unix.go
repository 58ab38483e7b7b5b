//go:build unix

package store

import "syscall"

// hasRoom reports whether the file system holding dir has at least
// minRoom bytes free for an unprivileged writer; true when it cannot
// tell.
func hasRoom(dir string) bool {
	free, ok := freeRoom(dir)
	return !ok || free >= minRoom
}

// freeRoom is the room free on the file system holding dir for an
// unprivileged writer; ok is false when it cannot tell.
func freeRoom(dir string) (free uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
