package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Naming what differs between two indexes (compare.go): the tables or
// logics of a release whose rows of a part differ.

// describeOwners names the tables or logics of release whose rows of part
// p differ, by reading p again for that release.
func describeOwners(ctx context.Context, p comparedPart, release string, a, b *comparer) (string, error) {
	sa, sb, err := bothSums(ctx, p, release, a, b)
	if err != nil {
		return "", err
	}
	keys := differingKeys(sa, sb)
	if len(keys) == 0 {
		return "", nil
	}
	var names []string
	for _, k := range keys[:min(len(keys), maxNamed)] {
		name := b.ownerName(ctx, p.owner, release, k.owner)
		if name == "" {
			name = a.ownerName(ctx, p.owner, release, k.owner)
		}
		if name == "" {
			name = "#" + strconv.FormatInt(k.owner, 10)
		}
		names = append(names, name)
	}
	noun := p.owner
	if len(keys) > 1 {
		noun += "s"
	}
	what := strings.Join(names, ", ")
	if len(keys) > maxNamed {
		what += fmt.Sprintf(" and %d more", len(keys)-maxNamed)
	}
	return fmt.Sprintf("the rows of %s %s differ", noun, what), nil
}

// ownerName names the table or logic at place n of release, "" when the
// index has none there.
func (c *comparer) ownerName(ctx context.Context, owner, release string, n int64) string {
	var id int64 = -1
	for k, v := range c.releases {
		if v == release {
			id = k
		}
	}
	if id < 0 {
		return ""
	}
	var name string
	var err error
	if owner == "table" {
		err = c.conn.QueryRowContext(ctx, `SELECT connection || '.' || name FROM tables WHERE id = ?`, id<<32+n).Scan(&name)
	} else {
		err = c.conn.QueryRowContext(ctx, `SELECT name FROM logics WHERE id = ?`, id<<32+n).Scan(&name)
	}
	if err != nil {
		return ""
	}
	return name
}
