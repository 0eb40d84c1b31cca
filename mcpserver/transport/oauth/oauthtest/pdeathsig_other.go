//go:build !linux

package oauthtest

import "os/exec"

// dieWithTest does nothing here: only Linux has a parent-death signal.
func dieWithTest(*exec.Cmd) {}
