//go:build windows

package hostfs

// noFollow: Windows has no O_NOFOLLOW. os.Root opens every component
// there without following reparse points (OBJ_DONT_REPARSE) and follows
// a link itself only while it stays inside the root, as it does on Unix
// with O_NOFOLLOW: the confinement is the same, and refuseLink checks
// for a link in the last component as on Unix.
const noFollow = 0
