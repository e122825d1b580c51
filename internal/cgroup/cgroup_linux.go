package cgroup

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Parent is a cgroup this process may make groups in: its own cgroup in
// one hierarchy, writable by it.
type Parent struct {
	// Version is 2 (the unified hierarchy) or 1 (a v1 hierarchy with the
	// pids controller).
	Version int
	// Dir is the cgroup's directory.
	Dir string
	// Pids says whether a group made here can cap its tasks (pids.max).
	Pids bool
}

// Find lists the cgroups this process can make groups in, best first:
// v2 with the pids controller, v1 pids, then v2 without pids (which can
// still kill a group). Nil when there is none (not Linux, no cgroup
// file system, or no write permission: a user's cgroup is writable only
// where it was delegated).
func Find() []Parent {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var v2, v2pids, v1pids []Parent
	for line := range strings.Lines(string(own)) {
		// hierarchy-id:controllers:path
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		controllers := strings.Split(parts[1], ",")
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir := mountDir(string(mounts), "cgroup2", "", parts[2])
			if dir == "" || !writable(dir) {
				continue
			}
			p := Parent{Version: 2, Dir: dir}
			if sub, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); err == nil && hasWord(string(sub), "pids") {
				p.Pids = true
				v2pids = append(v2pids, p)
			} else {
				v2 = append(v2, p)
			}
		case hasWord(strings.Join(controllers, " "), "pids"):
			if dir := mountDir(string(mounts), "cgroup", "pids", parts[2]); dir != "" && writable(dir) {
				v1pids = append(v1pids, Parent{Version: 1, Dir: dir, Pids: true})
			}
		}
	}
	return append(append(v2pids, v1pids...), v2...)
}

// mountDir finds the mount of a cgroup file system of type fstype (and,
// for v1, with controller among its options) whose root holds path, and
// returns path's directory under it; "" when there is none.
func mountDir(mountinfo, fstype, controller, path string) string {
	for line := range strings.Lines(mountinfo) {
		// id parent dev root mountpoint opts [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(strings.TrimSpace(line), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || g[0] != fstype {
			continue
		}
		if controller != "" && !hasWord(strings.ReplaceAll(g[2], ",", " "), controller) {
			continue
		}
		root, point := unescape(f[3]), unescape(f[4])
		rel, ok := strings.CutPrefix(path, root)
		if !ok || (rel != "" && root != "/" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		return filepath.Join(point, rel)
	}
	return ""
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hasWord(s, w string) bool {
	for f := range strings.FieldsSeq(s) {
		if f == w {
			return true
		}
	}
	return false
}

// writable says whether this process may make a cgroup in dir and move
// its own children into it.
func writable(dir string) bool {
	return syscall.Access(dir, 2|1) == nil && syscall.Access(filepath.Join(dir, "cgroup.procs"), 2) == nil
}

// Available is how many more tasks the cgroups from dir up to the
// hierarchy's root allow (the least of pids.max minus pids.current), or
// -1 when none of them caps it.
func Available(dir string) int {
	least, _ := tightestAbove(dir)
	return least
}

// tightestAbove is Available(dir) and how many levels above dir the
// cgroup that allows the least is (0: dir itself).
func tightestAbove(dir string) (least, up int) {
	least = -1
	for d, k := dir, 0; ; d, k = filepath.Dir(d), k+1 {
		if _, err := os.Stat(filepath.Join(d, "cgroup.procs")); err != nil {
			return least, up // above the hierarchy's root
		}
		m, c := readInt(d, "pids.max"), readInt(d, "pids.current")
		if m >= 0 && c >= 0 && (least < 0 || m-c < least) {
			least, up = max(m-c, 0), k
		}
		if d == filepath.Dir(d) {
			return least, up
		}
	}
}

// Scope is one cgroup as /proc/PID/cgroup names it: a hierarchy and a
// path in it. The zero Scope holds nothing.
type Scope struct {
	hierarchy string // the line's "id:controllers:"
	path      string
}

// Holds reports whether process pid (a /proc name) is in the cgroup or
// one below it; false when it is gone.
func (s Scope) Holds(pid string) bool {
	if s.hierarchy == "" {
		return false
	}
	own, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(own)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), s.hierarchy); ok {
			return s.path == "/" || p == s.path || strings.HasPrefix(p, s.path+"/")
		}
	}
	return false
}

// Headroom is how many more tasks the pids cgroups this process is in
// allow, in every hierarchy that has the pids controller (v1 pids and
// the unified one): the least of pids.max minus pids.current over its
// cgroups and their ancestors, read whether or not this process may
// write there. -1 when none of them caps its tasks, or they cannot be
// read.
func Headroom() int {
	room, _ := Tightest()
	return room
}

// Tightest is Headroom and the cgroup that allows the least (the zero
// Scope when room is -1).
func Tightest() (room int, at Scope) {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return -1, Scope{}
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return -1, Scope{}
	}
	room = -1
	for line := range strings.Lines(string(own)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		dir := ""
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir = mountDir(string(mounts), "cgroup2", "", parts[2])
		case hasWord(strings.ReplaceAll(parts[1], ",", " "), "pids"):
			dir = mountDir(string(mounts), "cgroup", "pids", parts[2])
		}
		if dir == "" {
			continue
		}
		if n, up := tightestAbove(dir); n >= 0 && (room < 0 || n < room) {
			path := parts[2]
			for range up {
				path = filepath.Dir(path)
			}
			room, at = n, Scope{hierarchy: parts[0] + ":" + parts[1] + ":", path: path}
		}
	}
	return room, at
}

// readInt reads a number from the file name in dir; -1 when there is
// none ("max", or no such file).
func readInt(dir, name string) int {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return -1
	}
	return n
}

// Group is a cgroup made for one command.
type Group struct {
	// Dir is the group's directory.
	Dir     string
	version int
	pids    bool
}

// New makes the group name in p; with maxTasks > 0 and the pids
// controller, the group may hold at most that many tasks (threads
// included). It fails when the directory cannot be made.
func (p Parent) New(name string, maxTasks int) (*Group, error) {
	g := &Group{Dir: filepath.Join(p.Dir, name), version: p.Version, pids: p.Pids}
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return nil, err
	}
	if p.Pids && maxTasks > 0 {
		if err := g.write("pids.max", strconv.Itoa(maxTasks)); err != nil {
			_ = os.Remove(g.Dir)
			return nil, err
		}
	}
	return g, nil
}

// Capped says whether the group caps its tasks.
func (g *Group) Capped() bool { return g.pids }

// Version is the group's cgroup version, 1 or 2.
func (g *Group) Version() int { return g.version }

func (g *Group) write(file, value string) error {
	return os.WriteFile(filepath.Join(g.Dir, file), []byte(value), 0)
}

// Add moves the process pid (all its threads) into the group.
func (g *Group) Add(pid int) error { return g.write("cgroup.procs", strconv.Itoa(pid)) }

// Tasks is how many tasks the group holds now (pids.current); -1 when
// it does not count them.
func (g *Group) Tasks() int { return readInt(g.Dir, "pids.current") }

// Refused is how many forks the group refused because it was full
// (pids.events "max"); -1 when it does not say.
func (g *Group) Refused() int {
	data, err := os.ReadFile(filepath.Join(g.Dir, "pids.events"))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "max "); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return -1
}

// Procs lists the processes in the group.
func (g *Group) Procs() []int {
	f, err := os.Open(filepath.Join(g.Dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var pids []int
	s := bufio.NewScanner(f)
	for s.Scan() {
		if pid, err := strconv.Atoi(s.Text()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Kill kills every process in the group, except skip (this process,
// should one of its threads be in it), and returns once the group is
// empty, or with an error when it is not by the deadline. v2's
// cgroup.kill kills all at once; else v2 freezes the group first, so no
// process can fork while the others are killed. v1 kills what it finds,
// round after round: a process forking when it is killed either fails
// to fork and dies without running on, or its child is found in the
// next round. Only a group that still grows after two rounds has its
// pids.max set to 0: that stops it, but a process that is not killed
// yet then sees its forks fail, and a shell says so ("Cannot fork") on
// the command's stderr, which a group that merely had a child in the
// making must not show.
func (g *Group) Kill(skip int, deadline time.Time) error {
	if g.version == 2 && g.write("cgroup.kill", "1") == nil {
		return g.wait(skip, deadline, nil)
	}
	if g.version == 2 {
		frozen := g.write("cgroup.freeze", "1") == nil
		err := g.wait(skip, deadline, func(int) {})
		if frozen {
			_ = g.write("cgroup.freeze", "0")
		}
		return err
	}
	capped := false
	return g.wait(skip, deadline, func(growths int) {
		if growths > 2 && g.pids && !capped {
			capped = g.write("pids.max", "0") == nil
		}
	})
}

// wait waits until the group has no process but skip. With grown set,
// it kills what it finds, and calls grown before each round's kills with
// how many rounds so far found a process not killed before.
func (g *Group) wait(skip int, deadline time.Time, grown func(growths int)) error {
	pause := 50 * time.Microsecond
	killed := map[int]bool{}
	growths := 0
	for {
		var left []int
		fresh := false
		for _, pid := range g.Procs() {
			if pid != skip {
				left = append(left, pid)
				fresh = fresh || !killed[pid]
			}
		}
		if len(left) == 0 {
			return nil
		}
		if grown != nil {
			if fresh {
				growths++
			}
			grown(growths)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed[pid] = true
			}
		}
		if time.Now().After(deadline) {
			return errors.New("cgroup: " + strconv.Itoa(len(left)) + " processes still in " + g.Dir)
		}
		if !fresh || grown == nil {
			time.Sleep(pause) // killed processes take a moment to exit
			pause = min(2*pause, 10*time.Millisecond)
		}
	}
}

// Remove removes the group's directory; it fails while a process is in
// it.
func (g *Group) Remove() error { return syscall.Rmdir(g.Dir) }

// Chown gives the group's cgroup.procs to uid, so that a process of that
// user can move itself into the group.
func (g *Group) Chown(uid int) error {
	return os.Chown(filepath.Join(g.Dir, "cgroup.procs"), uid, -1)
}
