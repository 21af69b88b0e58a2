// SPDX-License-Identifier: GPL-2.0
/*
 * Loading this module raises one kernel WARNING and nothing else: the
 * testbed's own test uses it to prove that a run whose guest warns fails.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_selftest_init(void)
{
	WARN(1, "xrxe testbed self-test: deliberate warning\n");
	return 0;
}

static void __exit warn_selftest_exit(void)
{
}

module_init(warn_selftest_init);
module_exit(warn_selftest_exit);
MODULE_DESCRIPTION("xrxe testbed: raise one WARNING on load");
MODULE_LICENSE("GPL");
