package execbackend

import "time"

// SetAfterFunc replaces what starts the timeouts of h's runs: f runs fire
// after d unless the stop it returns is called first.
func SetAfterFunc(h *Host, f func(d time.Duration, fire func()) (stop func() bool)) { h.afterFunc = f }
