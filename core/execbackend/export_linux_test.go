package execbackend

// WithoutCgroup makes h hold its runs as it does where no cgroup can be
// made: by their session and their RunEnv mark.
func WithoutCgroup(h *Host) {
	h.procs.init()
	h.procs.parent = nil
}
