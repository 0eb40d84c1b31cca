package oauthtest

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill cmd when the test process dies, so a
// killed test leaves no provider behind.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
