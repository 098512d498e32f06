/* A folder's exclusive owner: one gdtune sweep per run directory, one
 * nightly per root.  The lock is flock(2) on <dir>/gdtune.lock (created
 * 0600, O_NOFOLLOW: never through a planted link, a regular file only),
 * held for the owner's whole life and released by the kernel when it ends
 * however it ends (the file stays: unlinking it would let a second owner
 * lock another inode).  The holder writes its pid, host and start time in
 * the file; a second one is refused with them (BAD_USAGE: exit 2).
 * Private to the harness. */
#ifndef GDT_LOCK_H
#define GDT_LOCK_H

#include "gdtune/gdtune.h"

#define GDT_LOCK_NAME "gdtune.lock"

/* Locks dir (which must exist) for who ("gdtune sweep"): *fd is the open
 * lock file (close it, or exit, to release), -1 on failure.  why says
 * what a second owner would break, for the refusal's message. */
gdt_status gdt_dir_lock(const char *dir, const char *who, const char *why, int *fd, gdt_error *e);
void gdt_dir_unlock(int fd);

#endif
