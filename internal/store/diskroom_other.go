//go:build !unix

package store

// hasRoom cannot tell how much room is left here, so says there is.
func hasRoom(string) bool { return true }

// freeRoom cannot tell how much room is left here.
func freeRoom(string) (uint64, bool) { return 0, false }
