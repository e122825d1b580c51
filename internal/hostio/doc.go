// Package hostio holds what the host-directory parts of agenttools share
// and no user of the library needs: copying a tree between a workspace
// and a host directory (Copy, for `agenttools import`/`export` and the
// exec mirror), removing a host tree that may hold directories closed to
// their owner (RemoveAll), a host file's node type and change time.
//
// It imports core/vfs; core/vfs must not import it.
package hostio
