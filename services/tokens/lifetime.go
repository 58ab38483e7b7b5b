package tokens

import (
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// lifetime is how long a token asked to live ttl lives: ttl itself, or for
// 0 the default lifetime, shortened to the maximum. Past the maximum, or
// not positive, it is refused in a sentence naming the maximum.
func (s *Store) lifetime(ttl time.Duration) (time.Duration, error) {
	max := s.maxTTL
	switch {
	case ttl == 0:
		return min(authn.DefaultTTL, max), nil
	case ttl < 0:
		return 0, domainerr.New(domainerr.Invalid,
			"a token must live a positive time, at most %s on this server (--max-token-ttl): leave the lifetime out for %s",
			authn.FormatTTL(max), authn.FormatTTL(min(authn.DefaultTTL, max)))
	case ttl > max:
		return 0, domainerr.New(domainerr.Invalid,
			"a token may live at most %s on this server (--max-token-ttl), not %s: ask for %s or less",
			authn.FormatTTL(max), authn.FormatTTL(ttl), authn.FormatTTL(max))
	}
	return ttl, nil
}

// MaxTTL is the longest a token of s may live.
func (s *Store) MaxTTL() time.Duration { return s.maxTTL }
