/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One CUnit suite per test program: register the tests, run, report. */
#ifndef XRXE_CUNIT_RUN_H
#define XRXE_CUNIT_RUN_H

#include <CUnit/Basic.h>

struct xrxe_unit_test {
	const char *name;
	CU_TestFunc fn;
};

/* Runs the NULL-terminated tests; returns the process exit status. */
static inline int xrxe_cunit_run(const char *suite, const struct xrxe_unit_test *tests)
{
	unsigned int failed;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(suite, NULL, NULL);
	for (; s && tests->name; tests++)
		CU_add_test(s, tests->name, tests->fn);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed || !s ? 1 : 0;
}

#endif /* XRXE_CUNIT_RUN_H */
