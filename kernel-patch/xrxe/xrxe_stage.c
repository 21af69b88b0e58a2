// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Where each stage of a stream runs.
 *
 * A QP's work goes through stages: the post (a post_send() or a doorbell,
 * in the poster's system call), the requester and the completer (rxe's
 * send task, in the poster's context, on rxe_wq or on the QP's engine),
 * and, at the other end, the responder (the receive task, in the receive
 * softirq or on rxe_wq). A run of a stage is a system call for the post,
 * and for the others a pass of their task (from the run or schedule that
 * started it until it found no more work) in which the stage did work;
 * a pass that only found nothing to do is no run. Each run counts on the
 * CPU it ran on, and as "same CPU" if the QP's stage before last ran on
 * that CPU too: the post for the requester, the requester for the
 * completer; the responder and the post against their own last run, so
 * that they show how often the QP's receive work, or its poster, moved.
 *
 * On many CPUs, a stream whose stages chain on one CPU is served one
 * stage after the other; the per-CPU runs (debugfs rdma_xrxe/stages)
 * show which CPUs do the work at all. The counts are per CPU so that
 * counting serialises nothing: a run adds to its own CPU's counts only.
 */

#include <linux/debugfs.h>
#include <linux/nsproxy.h>
#include <linux/seq_file.h>
#include "rxe.h"

/* The devices, for debugfs: added before registration, gone at dealloc. */
static LIST_HEAD(stage_devs);
static DEFINE_MUTEX(stage_devs_mutex);

int xrxe_stage_add(struct rxe_dev *rxe)
{
	rxe->stage_counts = alloc_percpu(struct xrxe_stage_counts);
	if (!rxe->stage_counts)
		return -ENOMEM;
	mutex_lock(&stage_devs_mutex);
	list_add_tail(&rxe->stage_node, &stage_devs);
	mutex_unlock(&stage_devs_mutex);
	return 0;
}

void xrxe_stage_del(struct rxe_dev *rxe)
{
	if (!rxe->stage_counts)
		return;
	mutex_lock(&stage_devs_mutex);
	list_del(&rxe->stage_node);
	mutex_unlock(&stage_devs_mutex);
	free_percpu(rxe->stage_counts);
	rxe->stage_counts = NULL;
}

/* Add cpu's counts of rxe to sum, read while that CPU may count more. */
static void stage_add(struct xrxe_stage_counts *sum, struct rxe_dev *rxe,
		      int cpu)
{
	struct xrxe_stage_counts *c = per_cpu_ptr(rxe->stage_counts, cpu);
	int s;

	for (s = 0; s < XRXE_NUM_STAGES; s++) {
		sum->runs[s] += READ_ONCE(c->runs[s]);
		sum->same_cpu[s] += READ_ONCE(c->same_cpu[s]);
	}
}

/* The device's counts, summed over the CPUs. */
void xrxe_stage_sum(struct rxe_dev *rxe, struct xrxe_stage_counts *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu)
		stage_add(sum, rxe, cpu);
}

/*
 * debugfs rdma_xrxe/stages: a line per device and CPU (every online CPU,
 * and an offline one that counted runs), with the runs of each stage on
 * that CPU and, of them, those on the CPU of the stage before. A device's
 * lines add up to its hw counters.
 */
static int stages_show(struct seq_file *m, void *unused)
{
	struct rxe_dev *rxe;
	int cpu, s;

	seq_puts(m, "device cpu post req comp resp post_same req_same comp_same resp_same\n");
	mutex_lock(&stage_devs_mutex);
	list_for_each_entry(rxe, &stage_devs, stage_node) {
		/* Not another namespace's device (exclusive mode). */
		if (!rdma_dev_access_netns(&rxe->ib_dev,
					   current->nsproxy->net_ns))
			continue;
		for_each_possible_cpu(cpu) {
			struct xrxe_stage_counts c = {};
			u64 any = 0;

			stage_add(&c, rxe, cpu);
			for (s = 0; s < XRXE_NUM_STAGES; s++)
				any |= c.runs[s];
			if (!any && !cpu_online(cpu))
				continue;
			seq_printf(m, "%s %d", rxe->ib_dev.name, cpu);
			for (s = 0; s < XRXE_NUM_STAGES; s++)
				seq_printf(m, " %llu", c.runs[s]);
			for (s = 0; s < XRXE_NUM_STAGES; s++)
				seq_printf(m, " %llu", c.same_cpu[s]);
			seq_putc(m, '\n');
		}
	}
	mutex_unlock(&stage_devs_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stages);

void xrxe_stage_debugfs(struct dentry *dir)
{
	debugfs_create_file("stages", 0400, dir, NULL, &stages_fops);
}
