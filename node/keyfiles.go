package node

import (
	"fmt"

	"github.com/taskwire/taskwire/internal/caller/authn"
)

// minInternalKey is the shortest internal key accepted, in bytes.
const minInternalKey = 32

// loadInternalKey reads the internal key: workers trust the caller a call
// names only when it carries this key, so it must be long and private.
func loadInternalKey(path string) (string, error) {
	key, err := ReadSecretFile(path)
	if err != nil {
		return "", fmt.Errorf("internal key: %w", err)
	}
	if len(key) < minInternalKey {
		return "", fmt.Errorf("internal key %s has %d bytes, want at least %d (e.g. openssl rand -base64 32 > %s)", path, len(key), minInternalKey, path)
	}
	return key, nil
}

// loadRootKey reads the deployment's root key, which must exist (two
// processes that each created their own would not understand each
// other), and the retired root keys.
func loadRootKey(path string, retiredFiles []string) (root *authn.Key, retired []*authn.Key, err error) {
	if root, err = authn.LoadKey(path); err != nil {
		return nil, nil, fmt.Errorf("signing key: %w (create one with: openssl genpkey -algorithm ed25519 -out %s)", err, path)
	}
	retired, err = LoadRetiredKeys(retiredFiles, root)
	return root, retired, err
}
