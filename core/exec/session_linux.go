package exec

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// killSession kills every live process of session sid, however it
// grouped itself: a command's children that made a process group of
// their own (timeout, set -m) are found by their session. It scans
// /proc until a pass finds none, for processes forked while it killed.
func killSession(sid int) {
	for range 10 {
		found := false
		for _, pid := range sessionMembers(sid) {
			found = true
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !found {
			return
		}
	}
}

// sessionAlive reports whether a live process of session sid is left.
func sessionAlive(sid int) bool {
	return len(sessionMembers(sid)) > 0
}

// sessionMembers lists the processes of session sid that are not
// zombies, from /proc/<pid>/stat.
func sessionMembers(sid int) []int {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces
		// and parentheses, so read after the last ')'.
		s := string(stat)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 4 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if session, err := strconv.Atoi(fields[3]); err == nil && session == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}
