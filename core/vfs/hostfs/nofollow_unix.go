//go:build unix

package hostfs

import "golang.org/x/sys/unix"

// noFollow is the open flag that refuses a symbolic link in the last
// component: O_NOFOLLOW. (os.Root adds it to every open itself and
// still follows a link there that stays inside the root: refuseLink
// checks first.)
const noFollow = unix.O_NOFOLLOW
