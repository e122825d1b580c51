package core

// SetWalkHeldDirs sets the span of the directories a walk keeps open
// (see walkHeldDirs) until the returned function restores it.
func SetWalkHeldDirs(n int) (restore func()) {
	old := walkHeldDirs
	walkHeldDirs = n
	return func() { walkHeldDirs = old }
}
