/* SPDX-License-Identifier: MIT */
/*
 * The tree: the supervisor's descendants, computed from a list of
 * {pid, parent} records (read from /proc by supervise.c), without a kernel.
 * The list is what /proc showed at one moment and may be anything: a
 * process reparented since, a pid reused, even a cycle; every function here
 * terminates on it and never writes past what it was given.
 */
#ifndef LANDRUN_SUPERVISOR_TREE_H
#define LANDRUN_SUPERVISOR_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct lr_tree_proc {
	pid_t pid, ppid;
};

/* Sort V (N records) by parent, as lr_tree_descendants wants it. */
void lr_tree_sort(struct lr_tree_proc *v, size_t n);

/* The descendants of ROOT among V (N records, sorted by parent), breadth
 * first (parents before children), into OUT (room for N).  How many: at
 * most N, whatever V holds. */
size_t lr_tree_descendants(const struct lr_tree_proc *v, size_t n, pid_t root,
			   struct lr_tree_proc *out);

/* Is TREE[I] (a list from lr_tree_descendants) one of OWN (N pids: landrun's
 * own processes; 0, which names no process, for none), or beneath one (the broker's opener)? */
bool lr_tree_is_own(const struct lr_tree_proc *tree, size_t i, const pid_t *own, size_t n);

#endif
