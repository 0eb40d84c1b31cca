package snapshot

import "github.com/go-json-experiment/json/jsontext"

// The top-level members of a document other than its tables and logics:
// formatVersion, release, origin and connections.

func (d *decoder) formatVersion() error {
	d.push("formatVersion")
	defer d.pop()
	d.sawFormat = true
	v, ok, err := d.integer()
	switch {
	case err != nil || !ok:
		return err
	case v == FormatVersion:
	case v == 0:
		d.add("", "missing (or 0); this hubsnap reads version %d", FormatVersion)
	default:
		d.add("", "unsupported version %d; this hubsnap reads version %d", v, FormatVersion)
	}
	return nil
}

func (d *decoder) release() error {
	d.push("release")
	defer d.pop()
	d.sawRelease, d.bad = true, false
	var r Release
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "id":
			r.ID, err = d.str("id", maxName, freeText)
		case "project":
			r.Project, err = d.str("project", maxName, freeText)
		case "environment":
			r.Environment, err = d.str("environment", maxName, freeText)
		case "version":
			r.Version, _, err = d.integerAt("version")
		case "createdAt":
			r.CreatedAt, err = d.str("createdAt", maxName, uniqueName)
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad {
		return err
	}
	if d.checkRelease(r) && !d.failed {
		return d.hand(Part{Kind: KindRelease, Release: r})
	}
	return nil
}

// checkRelease reports whether r may name a release: its names become file
// names.
func (d *decoder) checkRelease(r Release) bool {
	n := len(d.problems)
	d.releaseName("release.id", r.ID)
	d.releaseName("release.project", r.Project)
	d.releaseName("release.environment", r.Environment)
	if r.Version < 0 {
		d.addAt("release.version", "negative (%d)", r.Version)
	}
	return len(d.problems) == n && !d.more
}

func (d *decoder) releaseName(path, s string) {
	switch {
	case s == "":
		d.addAt(path, "empty")
	case !ValidName(s):
		d.addAt(path, "%s is not valid: it must match %s", quote(s), NamePattern)
	}
}

func (d *decoder) origin() error {
	d.push("origin")
	defer d.pop()
	d.bad = false
	var o Origin
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "source":
			o.Source, err = d.str("source", maxName, uniqueName)
		case "digest":
			o.Digest, err = d.str("digest", maxName, uniqueName)
		case "syncedAt":
			o.SyncedAt, err = d.str("syncedAt", maxName, uniqueName)
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad || d.failed {
		return err
	}
	return d.hand(Part{Kind: KindOrigin, Origin: o})
}

func (d *decoder) connections() error {
	seen := map[string]bool{}
	return d.array("connections", true, maxList, "connections", func(i int) error {
		return d.connection(i, seen)
	})
}

func (d *decoder) connection(i int, seen map[string]bool) error {
	d.bad = false
	var c Connection
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			c.Name, err = d.str("name", maxName, commonName)
		case "engine":
			c.Engine, err = d.str("engine", maxName, commonName)
		default: // the URL, credentials, options: dropped
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad {
		return err
	}
	switch {
	case c.Name == "":
		d.add("name", "empty")
	case seen[c.Name]:
		d.add("name", "duplicate %s", quote(c.Name))
	}
	seen[c.Name] = true
	if d.failed {
		return nil
	}
	return d.hand(Part{Kind: KindConnection, Index: i, Connection: c})
}
