//go:build !linux

package pgoracle

import "syscall"

// procAttr cannot switch users outside Linux here: it reports false when
// asked to, and the test skips.
func procAttr(ids *userIDs) (*syscall.SysProcAttr, bool) {
	return nil, ids == nil
}
