/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "landrun/supervisor/tree.h"

static int cmp_ppid(const void *a, const void *b)
{
	const struct lr_tree_proc *x = a, *y = b;

	return (x->ppid > y->ppid) - (x->ppid < y->ppid);
}

void lr_tree_sort(struct lr_tree_proc *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_ppid);
}

size_t lr_tree_descendants(const struct lr_tree_proc *v, size_t n, pid_t root,
			   struct lr_tree_proc *out)
{
	size_t head = 0, found = 0;
	pid_t parent = root;

	for (;;) {
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid].ppid < parent)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && v[lo].ppid == parent && found < n; lo++)
			out[found++] = v[lo];
		if (head == found)
			return found;
		parent = out[head++].pid;
	}
}

bool lr_tree_is_own(const struct lr_tree_proc *tree, size_t i, const pid_t *own, size_t n)
{
	pid_t pid = tree[i].pid;

	for (;;) {
		size_t j = i;

		for (size_t k = 0; k < n; k++)
			if (pid == own[k])
				return true;
		/* up to the parent, seen earlier in the list */
		while (j > 0 && tree[j - 1].pid != tree[i].ppid)
			j--;
		if (j == 0)
			return false;
		i = j - 1;
		pid = tree[i].pid;
	}
}
