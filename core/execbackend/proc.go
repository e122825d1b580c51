package execbackend

import (
	"fmt"
	"time"
)

// Confinement says how a host backend holds the processes of a command,
// as found on this machine at run time.
type Confinement struct {
	// Kind is "cgroup v2" or "cgroup v1" (a cgroup of each run, killed
	// as a whole), "session" (Linux without a usable cgroup: the run's
	// session and the processes descended from it, found through /proc),
	// "process group" (other Unix systems) or "none" (where the host
	// backend does not run).
	Kind string
	// MaxTasks is the most tasks (processes and threads) a run may have
	// at once; 0 when nothing caps it.
	MaxTasks int
	// UserProcs is the process limit (RLIMIT_NPROC) a command runs with,
	// below this process's own so that a command that forks without end
	// leaves room for this process's threads; 0 when it is not lowered.
	// Where a run gets no capped cgroup of its own, it is also low
	// enough to leave that room in the tightest pids cgroup this process
	// is in (it then follows how many tasks the user has in that
	// cgroup: the value of a run starting now; the user's tasks elsewhere
	// count against the command).
	UserProcs uint64
	// Unbounded says that this process is in a cgroup that caps its
	// tasks, its runs get no capped cgroup of their own, and the process
	// limit does not hold it (root): nothing keeps a command that forks
	// without end from taking the tasks this process needs.
	Unbounded bool
}

func (c Confinement) String() string {
	s := c.Kind
	if c.MaxTasks > 0 {
		s += fmt.Sprintf(", at most %d tasks a run", c.MaxTasks)
	}
	if c.UserProcs > 0 {
		s += fmt.Sprintf(", user process limit %d", c.UserProcs)
	}
	if c.Unbounded {
		s += ", nothing keeps a run within the pids limit of this process's cgroup"
	}
	return s
}

// RunEnv is the variable that marks the processes of one host run on
// Linux: each run's command gets it, set to a value of its own (32 hex
// digits), and where the run has no cgroup its processes are also found
// by it when the run is killed or ends: one that left the run's session
// and whose parent is gone (a daemon's double fork) still carries it,
// unless it cleared its environment. Other systems do not set it.
const RunEnv = "AGENTTOOLS_RUN"

// killWait bounds how long killing a run waits for its processes to be
// gone; a process stuck in the kernel may outlast it.
const killWait = 10 * time.Second
