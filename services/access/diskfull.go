package access

import "google.golang.org/grpc/codes"

// ReasonDiskFull marks a RESOURCE_EXHAUSTED status saying that the disk
// holding the database is full (gRPC's own words for the code include
// "the entire file system is out of space"), as against one gRPC itself
// raised: its sentence is for the caller, and retrying helps once space
// is freed.
const ReasonDiskFull = "DISK_FULL"

// DiskFullSentence is what a call that could not save anything because
// the disk is full is told.
const DiskFullSentence = "The data directory's disk is full, so nothing can be saved just now: free some space on it (or ask whoever runs Taskwire to), then try again."

// DiskFull returns the status of a call that failed because the disk
// holding the database is full.
func DiskFull() error {
	return reasoned(codes.ResourceExhausted, DiskFullSentence, ReasonDiskFull, nil)
}

// IsDiskFull reports whether err is a status made by DiskFull.
func IsDiskFull(err error) bool {
	reason, _ := reasonOf(err, codes.ResourceExhausted)
	return reason == ReasonDiskFull
}
