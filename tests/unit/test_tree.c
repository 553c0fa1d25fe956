/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's tree (supervisor/tree.h) from lists of {pid, parent}
 * as /proc could show them: chains, reparented processes, pids whose
 * parent is not in the list, cycles that bad input may hold, and which of
 * the tree are landrun's own.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/supervisor/tree.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The descendants of ROOT among V (sorted first), into OUT (room for N). */
static size_t tree_of(struct lr_tree_proc *v, size_t n, pid_t root, struct lr_tree_proc *out)
{
	lr_tree_sort(v, n);
	return lr_tree_descendants(v, n, root, out);
}

static bool has(const struct lr_tree_proc *t, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].pid == pid)
			return true;
	return false;
}

/* Every entry's parent is the root or comes before it. */
static void expect_parents_first(const struct lr_tree_proc *t, size_t n, pid_t root)
{
	for (size_t i = 0; i < n; i++) {
		bool seen = t[i].ppid == root;

		for (size_t j = 0; j < i && !seen; j++)
			seen = t[j].pid == t[i].ppid;
		cr_expect(seen, "pid %d (parent %d) listed before its parent", (int)t[i].pid,
			  (int)t[i].ppid);
	}
}

Test(tree, sort_orders_by_parent)
{
	struct lr_tree_proc v[] = {{5, 3}, {2, 1}, {9, 7}, {4, 1}, {3, 2}};

	lr_tree_sort(v, ARRAY_SIZE(v));
	for (size_t i = 1; i < ARRAY_SIZE(v); i++)
		cr_expect_leq(v[i - 1].ppid, v[i].ppid, "at %zu", i);
	lr_tree_sort(v, 0); /* nothing to sort: no call on NULL ranges */
}

Test(tree, an_empty_list_has_no_descendants)
{
	struct lr_tree_proc out[1] = {{-1, -1}};

	cr_expect_eq(lr_tree_descendants(NULL, 0, 1, out), 0);
	cr_expect_eq(out[0].pid, -1, "nothing written");
}

Test(tree, a_root_absent_from_the_list_has_none)
{
	struct lr_tree_proc v[] = {{2, 1}, {3, 2}, {4, 1}}, out[ARRAY_SIZE(v)];

	cr_expect_eq(tree_of(v, ARRAY_SIZE(v), 100, out), 0);
	/* a leaf has none either */
	cr_expect_eq(tree_of(v, ARRAY_SIZE(v), 3, out), 0);
}

Test(tree, children_and_grandchildren_but_not_the_rest)
{
	/* 100 is the supervisor: 101 (the command) -> 102, 103 -> 104;
	 * 1 and 50 are outside, as are their children */
	struct lr_tree_proc v[] = {
		{50, 1},    {101, 100}, {104, 103}, {51, 50},
		{102, 101}, {103, 101}, {100, 50},  {200, 1},
	};
	struct lr_tree_proc out[ARRAY_SIZE(v)];
	size_t n = tree_of(v, ARRAY_SIZE(v), 100, out);

	cr_assert_eq(n, 4);
	cr_expect_eq(out[0].pid, 101, "breadth first: the child first");
	cr_expect(has(out, n, 102) && has(out, n, 103) && has(out, n, 104));
	cr_expect(!has(out, n, 100), "the root is not its own descendant");
	cr_expect(!has(out, n, 50) && !has(out, n, 51) && !has(out, n, 200));
	expect_parents_first(out, n, 100);
}

Test(tree, a_deep_chain_is_followed_to_its_end)
{
	enum { DEPTH = 5000 };
	struct lr_tree_proc *v = calloc(DEPTH, sizeof(*v)), *out = calloc(DEPTH, sizeof(*out));

	cr_assert(v && out);
	/* 1000 -> 1001 -> ... -> 5999, listed leaf first */
	for (size_t i = 0; i < DEPTH; i++) {
		v[i].pid = (pid_t)(1000 + DEPTH - i);
		v[i].ppid = v[i].pid - 1;
	}
	cr_assert_eq(tree_of(v, DEPTH, 1000, out), DEPTH);
	for (size_t i = 0; i < DEPTH; i++)
		cr_expect_eq(out[i].pid, (pid_t)(1001 + i), "depth %zu", i);
	cr_expect_eq(tree_of(v, DEPTH, 1000 + DEPTH / 2, out), DEPTH / 2, "from the middle");
	free(v);
	free(out);
}

Test(tree, a_wide_level_is_taken_whole)
{
	enum { WIDTH = 300 };
	struct lr_tree_proc v[WIDTH + 2], out[WIDTH + 2];

	for (size_t i = 0; i < WIDTH; i++)
		v[i] = (struct lr_tree_proc){(pid_t)(1000 + i), 10};
	v[WIDTH] = (struct lr_tree_proc){10, 1};
	v[WIDTH + 1] = (struct lr_tree_proc){5000, 1099};
	cr_assert_eq(tree_of(v, WIDTH + 2, 10, out), WIDTH + 1);
	cr_expect_eq(out[WIDTH].pid, 5000, "the grandchild after every child");
}

Test(tree, a_reparented_process_belongs_to_its_new_parent)
{
	/* 102's parent 101 died and it was reparented to 1 (no subreaper):
	 * out of the tree; 103, reparented to the supervisor (its subreaper),
	 * is in it with its child */
	struct lr_tree_proc v[] = {{101, 100}, {102, 1}, {103, 100}, {105, 103}, {106, 102}};
	struct lr_tree_proc out[ARRAY_SIZE(v)];
	size_t n = tree_of(v, ARRAY_SIZE(v), 100, out);

	cr_expect_eq(n, 3);
	cr_expect(has(out, n, 101) && has(out, n, 103) && has(out, n, 105));
	cr_expect(!has(out, n, 102) && !has(out, n, 106));
}

Test(tree, a_pid_whose_parent_is_not_listed_is_left_out)
{
	/* 300's parent 299 has gone (or its pid was reused by a process that
	 * /proc listed before: it read 0 and was dropped) */
	struct lr_tree_proc v[] = {{101, 100}, {300, 299}, {301, 300}, {102, 101}};
	struct lr_tree_proc out[ARRAY_SIZE(v)];
	size_t n = tree_of(v, ARRAY_SIZE(v), 100, out);

	cr_expect_eq(n, 2);
	cr_expect(!has(out, n, 300) && !has(out, n, 301));
}

Test(tree, a_pid_listed_twice_is_not_a_reason_to_overflow)
{
	/* a pid reused between two reads: the same pid under two parents */
	struct lr_tree_proc v[] = {{101, 100}, {102, 101}, {102, 100}, {103, 102}};
	struct lr_tree_proc out[ARRAY_SIZE(v) + 1];
	size_t n;

	memset(out, 0x55, sizeof(out));
	n = tree_of(v, ARRAY_SIZE(v), 100, out);
	cr_expect_leq(n, ARRAY_SIZE(v));
	cr_expect(has(out, n, 101) && has(out, n, 102) && has(out, n, 103));
	cr_expect_eq(out[ARRAY_SIZE(v)].pid, 0x55555555, "nothing past the room given");
}

Test(tree, a_cycle_ends_within_the_room_given)
{
	/* bad input: 101 -> 102 -> 103 -> 101, and the root's child in it */
	struct lr_tree_proc v[] = {{101, 103}, {102, 101}, {103, 102}, {104, 100}, {101, 104}};
	struct lr_tree_proc out[ARRAY_SIZE(v) + 1];
	size_t n;

	memset(out, 0x55, sizeof(out));
	n = tree_of(v, ARRAY_SIZE(v), 100, out);
	cr_expect_leq(n, ARRAY_SIZE(v));
	cr_expect(has(out, n, 104) && has(out, n, 101) && has(out, n, 102) && has(out, n, 103));
	cr_expect_eq(out[ARRAY_SIZE(v)].pid, 0x55555555, "nothing past the room given");
	/* a cycle through the root itself */
	struct lr_tree_proc w[] = {{100, 101}, {101, 100}}, wout[3];

	memset(wout, 0x55, sizeof(wout));
	n = tree_of(w, ARRAY_SIZE(w), 100, wout);
	cr_expect_leq(n, 2);
	cr_expect(has(wout, n, 101));
	cr_expect_eq(wout[2].pid, 0x55555555);
	/* a process its own parent */
	struct lr_tree_proc s[] = {{7, 7}}, sout[2];

	memset(sout, 0x55, sizeof(sout));
	cr_expect_eq(tree_of(s, 1, 7, sout), 1);
	cr_expect_eq(sout[1].pid, 0x55555555);
}

/* The tree of the supervisor 100: the command 101 with a child 105; the
 * egress helper 102 and the broker 103 (landrun's own), a process 104
 * beneath the broker, and its child 106. */
static struct lr_tree_proc own_v[] = {{101, 100}, {102, 100}, {103, 100},
				      {104, 103}, {105, 101}, {106, 104}};

Test(tree, landrun_s_own_and_what_is_beneath_them)
{
	struct lr_tree_proc out[ARRAY_SIZE(own_v)];
	const pid_t own[2] = {102, 103};
	size_t n = tree_of(own_v, ARRAY_SIZE(own_v), 100, out);
	static const struct {
		pid_t pid;
		bool own;
	} want[] = {{101, false}, {102, true}, {103, true}, {104, true}, {105, false}, {106, true}};
	size_t checked = 0;

	cr_assert_eq(n, ARRAY_SIZE(own_v));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ARRAY_SIZE(want); k++)
			if (want[k].pid == out[i].pid) {
				cr_expect_eq(lr_tree_is_own(out, i, own, 2), want[k].own, "pid %d",
					     (int)out[i].pid);
				checked++;
			}
	cr_expect_eq(checked, n);
}

Test(tree, with_no_own_processes_none_is_own)
{
	struct lr_tree_proc out[ARRAY_SIZE(own_v)];
	const pid_t own[2] = {0, 0};
	size_t n = tree_of(own_v, ARRAY_SIZE(own_v), 100, out);

	for (size_t i = 0; i < n; i++)
		cr_expect(!lr_tree_is_own(out, i, own, 2), "pid %d", (int)out[i].pid);
	for (size_t i = 0; i < n; i++)
		cr_expect(!lr_tree_is_own(out, i, NULL, 0), "pid %d", (int)out[i].pid);
}

Test(tree, only_one_own_process_known)
{
	/* one of the two known so far (lr_supervise_own fills them one by one) */
	struct lr_tree_proc out[ARRAY_SIZE(own_v)];
	const pid_t own[2] = {103, 0};
	size_t n = tree_of(own_v, ARRAY_SIZE(own_v), 100, out);

	for (size_t i = 0; i < n; i++) {
		pid_t p = out[i].pid;

		cr_expect_eq(lr_tree_is_own(out, i, own, 2), p == 103 || p == 104 || p == 106,
			     "pid %d", (int)p);
	}
}

Test(tree, ownership_of_a_deep_descendant)
{
	enum { DEPTH = 2000 };
	struct lr_tree_proc *v = calloc(DEPTH + 1, sizeof(*v)),
			    *out = calloc(DEPTH + 1, sizeof(*out));
	const pid_t own[2] = {0, 1001};
	size_t n;

	cr_assert(v && out);
	for (size_t i = 0; i < DEPTH; i++)
		v[i] = (struct lr_tree_proc){(pid_t)(1001 + i), (pid_t)(1000 + i)};
	v[DEPTH] = (struct lr_tree_proc){900, 1000}; /* the command, beside it */
	n = tree_of(v, DEPTH + 1, 1000, out);
	cr_assert_eq(n, DEPTH + 1);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(lr_tree_is_own(out, i, own, 2), out[i].pid != 900, "pid %d",
			     (int)out[i].pid);
	free(v);
	free(out);
}

/* A naive reference: is PID beneath ROOT, following parents in V (acyclic)? */
static bool beneath(const struct lr_tree_proc *v, size_t n, pid_t pid, pid_t root)
{
	for (size_t hops = 0; hops <= n; hops++) {
		size_t i = 0;

		while (i < n && v[i].pid != pid)
			i++;
		if (i == n)
			return false;
		if (v[i].ppid == root)
			return true;
		pid = v[i].ppid;
	}
	return false;
}

/* ... and is it one of OWN, or beneath one, within ROOT's tree? */
static bool own_naive(const struct lr_tree_proc *v, size_t n, pid_t pid, pid_t root,
		      const pid_t *own)
{
	for (size_t hops = 0; hops <= n && pid != root; hops++) {
		size_t i = 0;

		if (pid == own[0] || pid == own[1])
			return true;
		while (i < n && v[i].pid != pid)
			i++;
		if (i == n)
			return false;
		pid = v[i].ppid;
	}
	return false;
}

Test(tree, random_forests_agree_with_a_naive_walk)
{
	enum { N = 400, ROUNDS = 50 };
	struct lr_tree_proc v[N], out[N];
	unsigned seed = 24;

	for (int round = 0; round < ROUNDS; round++) {
		pid_t root = 1000 + (pid_t)(rand_r(&seed) % 50);
		pid_t own[2];
		size_t n, want = 0;

		/* pids 1000.., each with an earlier parent or one outside (1..999):
		 * a forest, listed in a shuffled order */
		for (size_t i = 0; i < N; i++) {
			v[i].pid = 1000 + (pid_t)i;
			v[i].ppid = i && rand_r(&seed) % 8 ? 1000 + (pid_t)(rand_r(&seed) % i)
							   : 1 + (pid_t)(rand_r(&seed) % 999);
		}
		for (size_t i = N - 1; i > 0; i--) {
			size_t j = (size_t)rand_r(&seed) % (i + 1);
			struct lr_tree_proc t = v[i];

			v[i] = v[j];
			v[j] = t;
		}
		own[0] = 1000 + (pid_t)(rand_r(&seed) % N);
		own[1] = rand_r(&seed) % 2 ? 1000 + (pid_t)(rand_r(&seed) % N) : 0;
		for (size_t i = 0; i < N; i++)
			want += beneath(v, N, v[i].pid, root);
		n = tree_of(v, N, root, out);
		cr_assert_eq(n, want, "round %d: %zu descendants of %d, want %zu", round, n,
			     (int)root, want);
		expect_parents_first(out, n, root);
		for (size_t i = 0; i < n; i++) {
			cr_expect(beneath(v, N, out[i].pid, root), "round %d: pid %d", round,
				  (int)out[i].pid);
			cr_expect_eq(lr_tree_is_own(out, i, own, 2),
				     own_naive(v, N, out[i].pid, root, own), "round %d: pid %d",
				     round, (int)out[i].pid);
		}
	}
}
