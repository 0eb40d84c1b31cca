package pgoracle

import "syscall"

// procAttr makes a child run as ids (when not nil) and die with the test
// process, so a killed test leaves no postgres behind.
func procAttr(ids *userIDs) (*syscall.SysProcAttr, bool) {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if ids != nil {
		attr.Credential = &syscall.Credential{Uid: ids.uid, Gid: ids.gid}
	}
	return attr, true
}
