package main

// CPU profiles of BenchmarkPeers's Go children (hubsnap and the floor
// server), when HUBSNAP_PEERS_PROFILE names a folder: the benchmark sends
// SIGUSR1 to start a child's profile before the timed calls and again to
// write it after them.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// peersProfileEnv names the folder of the children's CPU profiles.
const peersProfileEnv = "HUBSNAP_PEERS_PROFILE"

// childProfile, in a child of BenchmarkPeers given peersProfileEnv,
// starts its CPU profile on the first SIGUSR1 and writes it to name.pprof
// in that folder on the second (written beside, then renamed: the
// benchmark waits for the name).
func childProfile(name string) {
	dir := os.Getenv(peersProfileEnv)
	if dir == "" {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		<-sig
		file := filepath.Join(dir, name+".pprof")
		f, err := os.Create(file + ".part")
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cpu profile:", err)
			return
		}
		<-sig
		pprof.StopCPUProfile()
		if err := f.Close(); err == nil {
			os.Rename(file+".part", file)
		}
	}()
}

// toggleProfile sends a child of BenchmarkPeers the signal that starts or
// writes its profile.
func toggleProfile(p *os.Process) error {
	if p == nil {
		return errors.New("no process")
	}
	return p.Signal(syscall.SIGUSR1)
}

// processCPU is the CPU time (user and system) a child has used so far,
// from /proc/PID/stat; ok is false when it cannot be read.
func processCPU(p *os.Process) (cpu time.Duration, ok bool) {
	if p == nil {
		return 0, false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command (which may hold spaces) start at the
	// state, field 3; utime and stime are fields 14 and 15, in clock ticks
	// (USER_HZ, 100 on Linux).
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
