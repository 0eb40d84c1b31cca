package indexer

import (
	"fmt"
	"regexp"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/store"
)

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Pick chooses the release to sync from a listing: the one with id when id
// is not "", else the highest version (ties go to the newest createdAt, then
// the greatest id). The choice is checked before anything uses it.
func Pick(list []hub.Listing, project, environment, id string) (hub.Listing, error) {
	var best hub.Listing
	found := false
	for _, l := range list {
		switch {
		case id != "":
			if l.ID != id {
				continue
			}
		case found && (l.Version < best.Version ||
			l.Version == best.Version && (l.CreatedAt < best.CreatedAt ||
				l.CreatedAt == best.CreatedAt && l.ID < best.ID)):
			continue
		}
		best, found = l, true
	}
	if !found {
		if id != "" {
			return best, store.Errorf(store.NotFound, "release %q not found for project %q, environment %q", id, project, environment)
		}
		return best, store.Errorf(store.NotFound, "project %q has no releases in environment %q", project, environment)
	}
	if !ValidName(best.ID) {
		return best, fmt.Errorf("the hub listed a release id %s that is not valid: it must match %s", quote(best.ID), NamePattern)
	}
	if !digestPattern.MatchString(best.Digest) {
		return best, fmt.Errorf("the hub listed release %q with digest %s: want sha256:<64 hex digits>", best.ID, quote(best.Digest))
	}
	return best, nil
}
