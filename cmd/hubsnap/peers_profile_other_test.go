//go:build !linux

package main

import (
	"errors"
	"os"
	"time"
)

// peersProfileEnv names the folder of the children's CPU profiles (Linux
// only).
const peersProfileEnv = "HUBSNAP_PEERS_PROFILE"

// childProfile does nothing here: the profiles are toggled by SIGUSR1, on
// Linux only.
func childProfile(string) {}

// toggleProfile fails here: see childProfile.
func toggleProfile(*os.Process) error { return errors.New("profiles of the children need Linux") }

// processCPU is not measured here (it reads Linux's /proc).
func processCPU(*os.Process) (time.Duration, bool) { return 0, false }
