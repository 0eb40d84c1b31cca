package answer

// What the answers about releases share.

// ReleaseRef names a cached release.
type ReleaseRef struct {
	ID      string `json:"id"`
	Version int64  `json:"version"`
}
