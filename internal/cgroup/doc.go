// Package cgroup makes Linux control groups below this process's own,
// to hold the processes of one command: a cap on how many tasks they
// may have (the pids controller) and a way to kill every one of them,
// wherever they moved to in the process tree. It reads the hierarchies
// from /proc/self/mountinfo and /proc/self/cgroup at run time, cgroup
// v2 and v1 alike. It is Linux only: elsewhere the package is empty.
//
// cgroup imports only the standard library.
package cgroup
