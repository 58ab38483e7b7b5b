package taskwirev1

import _ "embed"

// SourceDescriptor is the FileDescriptorSet of this package's .proto files
// with source info (comments) kept. The generated Go drops comments; the
// front door's tool catalogue needs them as schema descriptions.
//
//go:embed descriptor.binpb
var SourceDescriptor []byte
